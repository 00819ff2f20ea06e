package callgen

import (
	"reflect"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// shelvesYAML nests one collection in another: a book is found by listing
// a shelf's books, the shelf by listing the shelves.
const shelvesYAML = `openapi: 3.0.3
info: {title: Shelves, version: "1"}
paths:
  /shelves:
    get:
      operationId: listShelves
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /shelves/{shelfId}/books:
    parameters: [{name: shelfId, in: path, required: true, schema: {type: string}}]
    get:
      operationId: listBooks
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
    post:
      operationId: addBook
      requestBody: {content: {application/json: {schema: {type: object, properties: {title: {type: string}}}}}}
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /shelves/{shelfId}/books/{bookId}:
    parameters:
      - {name: shelfId, in: path, required: true, schema: {type: string}}
      - {name: bookId, in: path, required: true, schema: {type: string}}
    get:
      operationId: getBook
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
`

// shelves is a server holding one shelf, s1, with the books given.
type shelves struct {
	books []string
	sent  []string // method and path of every call
}

func (s *shelves) send(c *Call) (int, []byte) {
	s.sent = append(s.sent, c.Method+" "+c.Path)
	switch c.Method + " " + c.Path {
	case "GET /shelves":
		return 200, []byte(`{"shelves":[{"id":"s1","name":"fiction"}]}`)
	case "GET /shelves/s1/books":
		list := `{"books":[`
		for i, b := range s.books {
			if i > 0 {
				list += ","
			}
			list += `{"book":{"id":"` + b + `"}}`
		}
		return 200, []byte(list + `]}`)
	case "POST /shelves/s1/books":
		s.books = append(s.books, "b9")
		return 200, []byte(`{"book":{"id":"b9"}}`)
	}
	return 404, nil
}

func shelvesOp(t *testing.T, id string) (*spec.Document, *spec.Operation) {
	t.Helper()
	doc, err := spec.Load([]byte(shelvesYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range doc.Operations {
		if op.ID == id {
			return doc, op
		}
	}
	t.Fatalf("no operation %s", id)
	return nil, nil
}

func TestFinderFindsNestedIDsByListing(t *testing.T) {
	doc, op := shelvesOp(t, "getBook")
	srv := &shelves{books: []string{"b1", "b2"}}
	values, ok := NewFinder(doc, synth.New(synth.WithSeed(1)), srv.send).PathValues(op)
	if want := map[string]string{"shelfId": "s1", "bookId": "b1"}; !ok || !reflect.DeepEqual(values, want) {
		t.Fatalf("PathValues = %v, %v; want %v (calls: %v)", values, ok, want, srv.sent)
	}
}

// A finder that only reads never writes, even where a collection is
// empty: what it finds must be held by any server started the same way.
func TestFinderOnlyReadsUnlessCreating(t *testing.T) {
	doc, op := shelvesOp(t, "getBook")
	srv := &shelves{}
	if values, ok := NewFinder(doc, synth.New(synth.WithSeed(1)), srv.send).PathValues(op); ok {
		t.Errorf("an empty shelf gave a book id: %v", values)
	}
	if i := slices.IndexFunc(srv.sent, func(c string) bool { return c[:4] != "GET " }); i >= 0 {
		t.Errorf("a reading finder sent %s", srv.sent[i])
	}

	srv = &shelves{}
	values, ok := NewFinder(doc, synth.New(synth.WithSeed(1)), srv.send, Creating(nil)).PathValues(op)
	if !ok || values["bookId"] != "b9" {
		t.Errorf("a creating finder did not add a book to the empty shelf: %v, %v (calls: %v)", values, ok, srv.sent)
	}
}

// A required id in the query (an organization's) names one held, found
// in the collection a path parameter of that name addresses.
func TestFinderPlacesRequiredQueryIDs(t *testing.T) {
	doc, err := spec.Load([]byte(`openapi: 3.0.3
info: {title: Rooms, version: "1"}
paths:
  /rooms:
    get:
      operationId: listRooms
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /rooms/{roomId}:
    parameters: [{name: roomId, in: path, required: true, schema: {type: string}}]
    get:
      operationId: getRoom
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /labels:
    get:
      operationId: listLabels
      parameters: [{name: roomId, in: query, required: true, schema: {type: string}}]
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	var op *spec.Operation
	for _, o := range doc.Operations {
		if o.ID == "listLabels" {
			op = o
		}
	}
	send := func(c *Call) (int, []byte) {
		if c.Method == "GET" && c.Path == "/rooms" {
			return 200, []byte(`{"rooms":[{"id":"r7"}]}`)
		}
		return 404, nil
	}
	c, err := Build(op, synth.New(synth.WithSeed(1)), "labels")
	if err != nil {
		t.Fatal(err)
	}
	NewFinder(doc, synth.New(synth.WithSeed(1)), send).PlaceQuery(op, c)
	if got := c.Query.Get("roomId"); got != "r7" {
		t.Errorf("the required roomId query names %q, not the held room r7", got)
	}
}
