package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// shopYAML is a small store API that exercises what the index keeps: route
// order, success responses, examples, security and paging.
const shopYAML = `openapi: 3.0.3
info:
  title: Corner Shop
  version: 2.5.0
security:
  - bearer: []
components:
  securitySchemes:
    bearer:
      type: http
      scheme: bearer
  schemas:
    Item:
      type: object
      required: [sku]
      properties:
        sku: {type: string}
        added: {type: string, format: date}
paths:
  /items/{sku}:
    get:
      operationId: getItem
      parameters:
        - {name: sku, in: path, required: true, schema: {type: string}}
        - {name: offset, in: header, schema: {type: integer}}
      responses:
        "200":
          description: one item
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
              example: {sku: apple, added: 2024-05-01}
  /items/featured:
    get:
      operationId: featuredItems
      security: []
      responses:
        "200":
          description: featured items
          content:
            text/plain:
              schema: {type: string}
            application/json:
              schema:
                type: array
                items: {$ref: '#/components/schemas/Item'}
              examples:
                empty:
                  summary: nothing featured
                  value: []
                some:
                  value: [{sku: pear}]
  /items:
    parameters:
      - {name: offset, in: query, schema: {type: integer, minimum: 0}}
    get:
      operationId: listItems
      parameters:
        - {name: max, in: query, schema: {type: integer, default: 25}}
        - {name: max, in: header, schema: {type: string}}
      responses:
        "404": {description: none}
        "206":
          description: partial
          content:
            application/json: {schema: {type: object}}
        "200":
          description: all of them
          content:
            application/json:
              schema: {type: object}
              example:
                200: fine
                404: missing
                nested: {7: [1, 2]}
    post:
      operationId: addItem
      security:
        - {}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Item'}
      responses:
        "201":
          description: added
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
        "202": {description: queued}
    delete:
      responses:
        "204":
          description: gone
          content:
            application/json: {schema: {type: object}}
  /stock/{sku}/{warehouse}:
    get:
      operationId: stockAt
      parameters:
        - {name: sku, in: path, required: true, schema: {type: string}}
        - {name: warehouse, in: path, required: true, schema: {type: string}}
      responses:
        default:
          description: whatever happens
          content:
            application/xml: {schema: {type: string}}
  /stock/{sku}/total:
    get:
      operationId: stockTotal
      parameters:
        - {name: sku, in: path, required: true, schema: {type: string}}
        - {name: max, in: query, schema: {type: integer}}
      responses:
        "400": {description: bad}
  /stock/{sku}/wildcard:
    get:
      operationId: stockWildcard
      parameters:
        - {name: sku, in: path, required: true, schema: {type: string}}
      responses:
        2XX:
          description: ranged
          content:
            application/json: {schema: {type: integer}}
`

// openDoorJSON is a JSON, OpenAPI 3.1 document without global security.
const openDoorJSON = `{
  "openapi": "3.1.0",
  "info": {"title": "Open Door", "version": "1"},
  "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}},
  "paths": {
    "/doors/{id}": {
      "put": {
        "operationId": "paintDoor",
        "security": [{"key": []}],
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": ["string", "null"]}}],
        "responses": {"200": {"description": "painted", "content": {"application/problem+json": {"schema": {"type": "object"}}}}}
      }
    },
    "/doors": {
      "get": {
        "operationId": "listDoors",
        "responses": {"200": {"description": "doors", "content": {"application/json": {"example": {"count": 2}}}}}
      }
    }
  }
}`

func load(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Load([]byte(doc))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return d
}

func opByID(t *testing.T, d *Document, id string) *Operation {
	t.Helper()
	for _, op := range d.Operations {
		if op.ID == id {
			return op
		}
	}
	t.Fatalf("no operation %q", id)
	return nil
}

// TestLoadDocuments guards that YAML and JSON documents, 3.0 and 3.1, load
// with their info and one indexed operation per method and path, and that
// an operation without an operationId gets "METHOD path" as its ID.
func TestLoadDocuments(t *testing.T) {
	cases := []struct {
		name, doc               string
		title, version, openapi string
		ops                     []string
	}{
		{"yaml 3.0", shopYAML, "Corner Shop", "2.5.0", "3.0.3",
			[]string{"DELETE /items", "addItem", "featuredItems", "getItem", "listItems", "stockAt", "stockTotal", "stockWildcard"}},
		{"json 3.1", openDoorJSON, "Open Door", "1", "3.1.0", []string{"listDoors", "paintDoor"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, tc.doc)
			if d.Title != tc.title || d.Version != tc.version || d.OpenAPI != tc.openapi {
				t.Errorf("info = %q %q %q, want %q %q %q", d.Title, d.Version, d.OpenAPI, tc.title, tc.version, tc.openapi)
			}
			if d.Model == nil {
				t.Fatal("no model")
			}
			var got []string
			for _, op := range d.Operations {
				got = append(got, op.ID)
				if op.Op == nil || op.PathItem == nil || op.Method != strings.ToUpper(op.Method) {
					t.Errorf("%s: incomplete entry %+v", op.ID, op)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.ops) {
				t.Errorf("operations %v, want %v", got, tc.ops)
			}
		})
	}
}

// TestLoadRejects guards that documents the fake cannot serve are refused
// with a message that says why.
func TestLoadRejects(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"empty", "", "empty"},
		{"blank", " \n\t\n", "empty"},
		{"not openapi", "just: some\nyaml: here\n", "OpenAPI"},
		{"not yaml", "{{{", "OpenAPI"},
		{"swagger 2", "swagger: \"2.0\"\ninfo: {title: old, version: \"1\"}\npaths:\n  /x:\n    get:\n      responses:\n        \"200\": {description: ok}\n", "3.x"},
		{"openapi 4", "openapi: 4.0.0\ninfo: {title: t, version: \"1\"}\npaths:\n  /x:\n    get:\n      responses:\n        \"200\": {description: ok}\n", "3.x"},
		{"no paths", "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\n", "no paths"},
		{"no operations", "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\npaths:\n  /x: {}\n", "no operations"},
		{"relative path", "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\npaths:\n  x:\n    get:\n      responses:\n        \"200\": {description: ok}\n", "'/'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Load([]byte(tc.doc))
			if err == nil {
				t.Fatalf("Load accepted it: %d operations", len(d.Operations))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestLoadFile guards that LoadFile reads a document from disk and names
// the file when it cannot load it.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte(openDoorJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, err := LoadFile(good); err != nil || d.Title != "Open Door" {
		t.Errorf("LoadFile(good) = %v, %v", d, err)
	}
	if _, err := LoadFile(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadFile(bad) error %v does not name the file", err)
	}
	if _, err := LoadFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("LoadFile of a missing file succeeded")
	}
}

// TestRouteOrderInDocument guards that the indexed order tries literal
// segments before parameters, whatever order the document lists them in.
// Route finds an operation from a call's escaped path, whatever order the
// document lists its paths in, and decodes parameter values; a value that
// does not decode names nothing.
func TestRoute(t *testing.T) {
	d := load(t, shopYAML)
	for _, tc := range []struct {
		method, path, want string
		vars               map[string]string
	}{
		{"GET", "/items/featured", "featuredItems", nil},
		{"GET", "/items/abc", "getItem", map[string]string{"sku": "abc"}},
		{"GET", "/items/a%2Fb", "getItem", map[string]string{"sku": "a/b"}},
		{"GET", "/items", "listItems", nil},
		{"GET", "/items/a%zzb", "", nil},
		{"DELETE", "/items/abc", "", nil},
		{"GET", "/nothing", "", nil},
	} {
		op, vars, ok := d.Route(tc.method, tc.path)
		if tc.want == "" {
			if ok {
				t.Errorf("%s %s routed to %s", tc.method, tc.path, op.ID)
			}
			continue
		}
		if !ok || op.ID != tc.want || !reflect.DeepEqual(vars, tc.vars) {
			t.Errorf("%s %s: %v %v %v, want %s %v", tc.method, tc.path, op, vars, ok, tc.want, tc.vars)
		}
	}
}

func TestRouteOrderInDocument(t *testing.T) {
	d := load(t, shopYAML)
	pos := map[string]int{}
	for i, op := range d.Operations {
		if _, ok := pos[op.Path]; !ok {
			pos[op.Path] = i
		}
	}
	before := [][2]string{
		{"/items/featured", "/items/{sku}"},
		{"/stock/{sku}/total", "/stock/{sku}/{warehouse}"},
		{"/stock/{sku}/wildcard", "/stock/{sku}/{warehouse}"},
	}
	for _, p := range before {
		if pos[p[0]] > pos[p[1]] {
			t.Errorf("%s is tried after %s", p[0], p[1])
		}
	}
}

func isParam(segment string) bool { return strings.Contains(segment, "{") }

// shadows reports whether template general matches every path that
// template specific matches, being a parameter where specific is literal.
func shadows(general, specific string) bool {
	gs, ss := strings.Split(general, "/"), strings.Split(specific, "/")
	if len(gs) != len(ss) || general == specific {
		return false
	}
	wider := false
	for i := range gs {
		switch {
		case isParam(gs[i]) && !isParam(ss[i]):
			wider = true
		case isParam(gs[i]) && isParam(ss[i]):
		case gs[i] != ss[i] || isParam(ss[i]):
			return false
		}
	}
	return wider
}

// TestRouteOrderNoShadowing guards the router's need: once sorted, no
// template comes after a more general one that would swallow its calls.
func TestRouteOrderNoShadowing(t *testing.T) {
	paths := []string{
		"/w/{wid}/{sub}", "/w/{zid}/logs", "/w/{x}", "/w/random-name", "/w",
		"/w/{wid}/tasks/{tid}", "/w/{a}/tasks/{b}/log", "/w/{a}/{b}/{c}/log",
		"/o/{o}/w/{w}", "/o/{org}/w/list", "/o/mine/w/{w}",
	}
	for _, perm := range [][]string{paths, reversed(paths)} {
		got := slices.Clone(perm)
		sort.SliceStable(got, func(i, j int) bool { return oasdoc.RouteLess(got[i], got[j]) })
		for i := range got {
			for j := i + 1; j < len(got); j++ {
				if shadows(got[i], got[j]) {
					t.Errorf("%s is tried before %s, which it swallows (order %v)", got[i], got[j], got)
				}
			}
		}
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// TestSuccess guards the success answer: the lowest 2xx (or 2XX, or the
// default response), no media type for 204, JSON preferred among several
// media types, and examples (plain or the first named one) encoded as JSON.
func TestSuccess(t *testing.T) {
	d := load(t, shopYAML)
	dj := load(t, openDoorJSON)
	cases := []struct {
		doc       *Document
		id        string
		status    int
		mediaType string
		schema    bool
		example   string // JSON; "" for none
	}{
		{d, "getItem", 200, "application/json", true, `{"sku":"apple","added":"2024-05-01"}`},
		{d, "featuredItems", 200, "application/json", true, `[]`},
		{d, "listItems", 200, "application/json", true, `{"200":"fine","404":"missing","nested":{"7":[1,2]}}`},
		{d, "addItem", 201, "application/json", true, ""},
		{d, "DELETE /items", 204, "", false, ""},
		{d, "stockAt", 200, "application/xml", true, ""},
		{d, "stockTotal", 200, "", false, ""},
		{d, "stockWildcard", 200, "application/json", true, ""},
		{dj, "paintDoor", 200, "application/problem+json", true, ""},
		{dj, "listDoors", 200, "application/json", false, `{"count":2}`},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			s := opByID(t, tc.doc, tc.id).Success
			if s.Status != tc.status || s.MediaType != tc.mediaType || (s.Schema != nil) != tc.schema {
				t.Errorf("success = %d %q schema:%v, want %d %q schema:%v",
					s.Status, s.MediaType, s.Schema != nil, tc.status, tc.mediaType, tc.schema)
			}
			if tc.example == "" {
				if s.Example != nil {
					t.Errorf("example %s, want none", s.Example)
				}
				return
			}
			if !jsonEqual(t, s.Example, []byte(tc.example)) {
				t.Errorf("example %s, want %s", s.Example, tc.example)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// TestSecured guards how security is read: the global requirement applies
// unless an operation declares its own; `security: []` and an empty
// requirement object mean none; an operation's requirement counts alone.
func TestSecured(t *testing.T) {
	d := load(t, shopYAML)
	dj := load(t, openDoorJSON)
	cases := []struct {
		doc  *Document
		id   string
		want bool
	}{
		{d, "getItem", true},        // global
		{d, "featuredItems", false}, // security: []
		{d, "addItem", false},       // security: [{}]
		{dj, "paintDoor", true},     // its own requirement
		{dj, "listDoors", false},    // nothing anywhere
	}
	for _, tc := range cases {
		if got := opByID(t, tc.doc, tc.id).Secured; got != tc.want {
			t.Errorf("%s: Secured = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// TestPaging guards that paging parameters are found among query
// parameters only, from the path item and the operation, with the
// documented default of max.
func TestPaging(t *testing.T) {
	d := load(t, shopYAML)
	cases := []struct {
		id   string
		want *Paging
	}{
		{"listItems", &Paging{MaxParam: "max", OffsetParam: "offset", DefaultMax: 25}},
		{"addItem", &Paging{OffsetParam: "offset"}}, // from the path item
		{"stockTotal", &Paging{MaxParam: "max"}},
		{"getItem", nil}, // a header called offset is not paging
	}
	for _, tc := range cases {
		got := opByID(t, d, tc.id).Paging
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Paging = %+v, want %+v", tc.id, got, tc.want)
		}
	}
}

// TestRender guards serving the document in the other format: the loaded
// bytes are served as they are, and the conversion carries the same content
// (an unquoted date stays the date text it was, numeric keys become strings)
// and loads back to the same operations.
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		// want is YAML (or JSON) whose plain decoding is the content the
		// renderings must carry.
		want   string
		isJSON bool
	}{
		{"yaml", shopYAML, strings.Replace(shopYAML, "added: 2024-05-01", `added: "2024-05-01"`, 1), false},
		{"json", openDoorJSON, openDoorJSON, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, tc.doc)
			y, err := d.YAML()
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			j, err := d.JSON()
			if err != nil {
				t.Fatalf("JSON: %v", err)
			}
			same := y
			if tc.isJSON {
				same = j
			}
			if string(same) != tc.doc {
				t.Error("the document is not served in its own format as loaded")
			}
			if !json.Valid(j) {
				t.Fatalf("JSON() is not JSON: %.200s", j)
			}
			want := plainJSON(t, []byte(tc.want))
			if !jsonEqual(t, j, want) {
				t.Errorf("JSON() does not carry the document:\n got %s\nwant %s", j, want)
			}
			if tc.isJSON && !jsonEqual(t, plainJSON(t, y), want) {
				t.Errorf("YAML() does not carry the document:\n%s", y)
			}
			for _, b := range [][]byte{y, j} {
				d2, err := Load(b)
				if err != nil {
					t.Fatalf("reloading a rendering: %v", err)
				}
				if !reflect.DeepEqual(opIDs(d2), opIDs(d)) || d2.Title != d.Title {
					t.Errorf("rendering loads as %v %q, want %v %q", opIDs(d2), d2.Title, opIDs(d), d.Title)
				}
			}
		})
	}
}

// plainJSON decodes YAML (or JSON) the plain way and encodes it as JSON.
func plainJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	out, err := json.Marshal(JSONValue(v))
	if err != nil {
		t.Fatalf("cannot encode %v: %v", v, err)
	}
	return out
}

func opIDs(d *Document) []string {
	var out []string
	for _, op := range d.Operations {
		out = append(out, op.Method+" "+op.Path+" "+op.ID)
	}
	return out
}

// TestRenderConcurrent guards that the first renderings, asked for at once,
// are safe (run with -race) and agree.
func TestRenderConcurrent(t *testing.T) {
	d := load(t, shopYAML)
	var wg sync.WaitGroup
	out := make([][]byte, 16)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], _ = d.JSON()
		}()
	}
	wg.Wait()
	for i := range out {
		if string(out[i]) != string(out[0]) || len(out[i]) == 0 {
			t.Fatalf("rendering %d differs", i)
		}
	}
}

// TestStringKeys guards the conversion of YAML maps with non-string keys
// into maps JSON can hold, at any depth, leaving other values alone.
func TestJSONValue(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{map[any]any{200: "ok", "x": 1}, `{"200":"ok","x":1}`},
		{map[string]any{"a": map[any]any{true: []any{map[any]any{1.5: nil}}}}, `{"a":{"true":[{"1.5":null}]}}`},
		{[]any{map[any]any{7: 8}}, `[{"7":8}]`},
		{"plain", `"plain"`},
		{nil, `null`},
		{time.Date(2024, 5, 1, 2, 3, 4, 5, time.FixedZone("x", 3600)), `"2024-05-01T01:03:04Z"`},
		{[]any{int(3), uint64(1 << 63), float32(0.5)}, `[3,9223372036854776000,0.5]`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(JSONValue(tc.in))
		if err != nil {
			t.Errorf("JSONValue(%v) cannot be encoded: %v", tc.in, err)
			continue
		}
		if string(b) != tc.want {
			t.Errorf("JSONValue(%v) = %s, want %s", tc.in, b, tc.want)
		}
	}
	if v, _ := JSONValue([]any{int(3)}).([]any); len(v) != 1 || v[0] != int64(3) {
		t.Errorf("an int decodes to %T, want int64 as JSON decoding into the generator's values gives", v[0])
	}
}

// TestLoadRecursiveSchema guards that a document whose schemas refer to
// themselves (which libopenapi flags as circular) still loads.
func TestLoadRecursiveSchema(t *testing.T) {
	doc := `openapi: 3.0.0
info: {title: tree, version: "1"}
components:
  schemas:
    Node:
      type: object
      required: [child]
      properties:
        child: {$ref: '#/components/schemas/Node'}
paths:
  /tree:
    get:
      responses:
        "200":
          description: a tree
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
`
	d := load(t, doc)
	if s := opByID(t, d, "GET /tree").Success; s.Schema == nil {
		t.Error("recursive schema lost")
	}
}

// TestTextTimestamps guards the date fix-up: unquoted dates decode as the
// text written, through aliases too, and the source nodes (libopenapi's
// model) are left as they were.
func TestTextTimestamps(t *testing.T) {
	src := "a: &d 2024-01-02\nb: *d\nc: [2001-12-14t21:59:43.10-05:00, '2020-02-02', 5]\n"
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := textTimestamps(&n, map[*yaml.Node]*yaml.Node{}).Decode(&v); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(v)
	if want := `{"a":"2024-01-02","b":"2024-01-02","c":["2001-12-14t21:59:43.10-05:00","2020-02-02",5]}`; string(got) != want {
		t.Errorf("decoded %s, want %s", got, want)
	}
	var orig any
	if err := n.Decode(&orig); err != nil {
		t.Fatal(err)
	}
	if _, ok := orig.(map[string]any)["a"].(string); ok {
		t.Error("the source node was changed")
	}
}
