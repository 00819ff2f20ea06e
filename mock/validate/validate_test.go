package validate

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi-validator/cache"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// bakeryYAML is a small order API; its schemas share a component so that
// operations overlap in what they compile.
const bakeryYAML = `openapi: 3.0.3
info: {title: Bakery, version: "1"}
components:
  schemas:
    Order:
      type: object
      required: [name, qty]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, pattern: "^(?!stale)[a-z]+$"}
        qty: {type: integer, minimum: 1}
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - {name: limit, in: query, required: true, schema: {type: integer, minimum: 1}}
        - {name: status, in: query, schema: {type: string, enum: [open, baked]}}
        - {name: offset, in: query, schema: {type: integer, format: int32, minimum: 0}}
        - {name: X-Shop, in: header, schema: {type: integer, format: int64}}
      responses:
        "200":
          description: orders
          content:
            application/json:
              schema:
                type: object
                required: [orders]
                properties:
                  orders:
                    type: array
                    items: {$ref: '#/components/schemas/Order'}
    post:
      operationId: placeOrder
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Order'}
      responses:
        "201":
          description: placed
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Order'}
  /orders/{orderId}:
    parameters:
      - {name: orderId, in: path, required: true, schema: {type: integer, format: int32}}
    get:
      operationId: getOrder
      responses:
        "200":
          description: one order
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Order'}
    patch:
      operationId: renameOrder
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string}
      responses:
        "204": {description: renamed}
`

type fixture struct {
	doc *spec.Document
	v   *Validator
}

func newFixture(t *testing.T, basePath string) *fixture {
	t.Helper()
	doc, err := spec.Load([]byte(bakeryYAML))
	if err != nil {
		t.Fatalf("loading the bakery document: %v", err)
	}
	return &fixture{doc: doc, v: New(doc, basePath, WithRegexpEngine(synth.RegexpEngine))}
}

func (f *fixture) op(t *testing.T, id string) *spec.Operation {
	t.Helper()
	for _, o := range f.doc.Operations {
		if o.ID == id {
			return o
		}
	}
	t.Fatalf("no operation %q", id)
	return nil
}

// reqCase is one call and whether the validator must accept it.
type reqCase struct {
	name        string
	op          string
	method      string
	target      string // path and query, under /api
	contentType string
	body        string
	valid       bool
	contains    string // a text every rejection must include, when set
}

var requestCases = []reqCase{
	{"list", "listOrders", "GET", "/api/orders?limit=5", "", "", true, ""},
	{"list with enum", "listOrders", "GET", "/api/orders?limit=5&status=open", "", "", true, ""},
	{"query of the wrong type", "listOrders", "GET", "/api/orders?limit=five", "", "", false, "limit"},
	{"query under its minimum", "listOrders", "GET", "/api/orders?limit=0", "", "", false, "limit"},
	{"required query missing", "listOrders", "GET", "/api/orders?status=open", "", "", false, "limit"},
	{"query outside its enum", "listOrders", "GET", "/api/orders?limit=1&status=burnt", "", "", false, "status"},
	{"int32 query at its bound", "listOrders", "GET", "/api/orders?limit=1&offset=2147483647", "", "", true, ""},
	{"int32 query past its bound", "listOrders", "GET", "/api/orders?limit=1&offset=2147483648", "", "", false, "offset=2147483648 is out of range for int32"},
	{"int32 query far past its bound", "listOrders", "GET", "/api/orders?limit=1&offset=99999999999999999999999", "", "", false, "out of range for int32"},
	{"int32 path parameter past its bound", "getOrder", "GET", "/api/orders/2147483648", "", "", false, "orderId=2147483648 is out of range for int32"},
	{"path parameter", "getOrder", "GET", "/api/orders/42", "", "", true, ""},
	{"path parameter of the wrong type", "getOrder", "GET", "/api/orders/forty-two", "", "", false, "orderId"},
	{"body", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye","qty":2}`, true, ""},
	{"body with charset", "placeOrder", "POST", "/api/orders", "application/json; charset=utf-8", `{"name":"rye","qty":2}`, true, ""},
	{"malformed body", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye",`, false, "decoded"},
	{"body missing a property", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye"}`, false, "qty"},
	{"body property of the wrong type", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye","qty":"two"}`, false, "qty"},
	{"body failing a look-ahead pattern", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"stalebread","qty":1}`, false, "name"},
	{"required body missing", "placeOrder", "POST", "/api/orders", "application/json", "", false, "the request body is required"},
	{"wrong content type", "placeOrder", "POST", "/api/orders", "text/plain", `{"name":"rye","qty":2}`, false, "text/plain"},
	{"optional body missing", "renameOrder", "PATCH", "/api/orders/7", "", "", true, ""},
	{"optional body", "renameOrder", "PATCH", "/api/orders/7", "application/json", `{"name":"spelt"}`, true, ""},
}

func (c reqCase) request() (*http.Request, []byte) {
	var body []byte
	if c.body != "" {
		body = []byte(c.body)
	}
	r := httptest.NewRequest(c.method, "http://fake"+c.target, bytes.NewReader(body))
	if c.contentType != "" {
		r.Header.Set("Content-Type", c.contentType)
	}
	return r, body
}

// TestRequest guards request validation: valid calls pass, and wrong
// parameter types, values, missing required parameters, malformed or
// invalid bodies, a missing required body and an undeclared content type
// are each refused with a reason that names the problem.
func TestRequest(t *testing.T) {
	f := newFixture(t, "/api")
	for _, tc := range requestCases {
		t.Run(tc.name, func(t *testing.T) {
			r, body := tc.request()
			got := f.v.Request(r, f.op(t, tc.op), body)
			if tc.valid {
				if got != nil {
					t.Errorf("valid call refused: %q", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatal("invalid call accepted")
			}
			if tc.contains != "" && !strings.Contains(strings.Join(got, "\n"), tc.contains) {
				t.Errorf("reasons %q do not mention %q", got, tc.contains)
			}
		})
	}
}

// TestRequestMissingBodyMessage guards the one message the fake writes
// itself: a missing required body is reported as such, alone.
func TestRequestMissingBodyMessage(t *testing.T) {
	f := newFixture(t, "/api")
	for _, body := range [][]byte{nil, {}} {
		r := httptest.NewRequest("POST", "http://fake/api/orders", nil)
		got := f.v.Request(r, f.op(t, "placeOrder"), body)
		if len(got) != 1 || got[0] != "the request body is required but the request has none" {
			t.Errorf("body %q: reasons %q", body, got)
		}
	}
}

// TestBasePath guards that the fake's base path is taken off before the
// path is matched against the document, with or without a trailing slash,
// and that no base path leaves the path alone.
func TestBasePath(t *testing.T) {
	cases := []struct {
		base, target string
	}{
		{"/api", "/api/orders/42"},
		{"/api/", "/api/orders/42"},
		{"/v1/api", "/v1/api/orders/42"},
		{"", "/orders/42"},
	}
	for _, tc := range cases {
		f := newFixture(t, tc.base)
		r := httptest.NewRequest("GET", "http://fake"+tc.target, nil)
		if got := f.v.Request(r, f.op(t, "getOrder"), nil); got != nil {
			t.Errorf("base %q, %s: refused: %q", tc.base, tc.target, got)
		}
		bad := httptest.NewRequest("GET", "http://fake"+strings.Replace(tc.target, "42", "x", 1), nil)
		if got := f.v.Request(bad, f.op(t, "getOrder"), nil); got == nil {
			t.Errorf("base %q: a bad path parameter was accepted", tc.base)
		}
	}
}

func response(status int, contentType, body string) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body))}
}

type respCase struct {
	name, op, method, target string
	status                   int
	contentType, body        string
	valid                    bool
}

var responseCases = []respCase{
	{"list", "listOrders", "GET", "/api/orders?limit=1", 200, "application/json", `{"orders":[{"id":1,"name":"rye","qty":3}]}`, true},
	{"empty list", "listOrders", "GET", "/api/orders?limit=1", 200, "application/json", `{"orders":[]}`, true},
	{"list missing its field", "listOrders", "GET", "/api/orders?limit=1", 200, "application/json", `{"items":[]}`, false},
	{"list of the wrong shape", "listOrders", "GET", "/api/orders?limit=1", 200, "application/json", `{"orders":{}}`, false},
	{"item breaking the schema", "listOrders", "GET", "/api/orders?limit=1", 200, "application/json", `{"orders":[{"name":"rye","qty":0}]}`, false},
	{"one order", "getOrder", "GET", "/api/orders/1", 200, "application/json", `{"id":1,"name":"rye","qty":3}`, true},
	{"not JSON", "getOrder", "GET", "/api/orders/1", 200, "application/json", `{"id":`, false},
	{"created", "placeOrder", "POST", "/api/orders", 201, "application/json", `{"id":2,"name":"spelt","qty":1}`, true},
	{"created, wrong type", "placeOrder", "POST", "/api/orders", 201, "application/json", `{"id":"two","name":"spelt","qty":1}`, false},
}

// TestResponse guards response validation: a body that matches the
// document passes and one that does not is refused.
func TestResponse(t *testing.T) {
	f := newFixture(t, "/api")
	for _, tc := range responseCases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "http://fake"+tc.target, nil)
			got := f.v.Response(r, f.op(t, tc.op), response(tc.status, tc.contentType, tc.body))
			if tc.valid && got != nil {
				t.Errorf("valid answer refused: %q", got)
			}
			if !tc.valid && len(got) == 0 {
				t.Error("invalid answer accepted")
			}
		})
	}
}

// Answer judges a value against a schema outside any call (the fake checks
// a document's own examples with it before serving them).
func TestAnswerValues(t *testing.T) {
	f := newFixture(t, "/api")
	schema := f.op(t, "getOrder").Success.Schema.Schema()
	cases := []struct {
		body  string
		valid bool
	}{
		{`{"name":"rye","qty":1}`, true},
		{`{"id":5,"name":"rye","qty":9}`, true},
		{`{"name":"rye"}`, false},
		{`{"name":"Rye","qty":1}`, false},
		{`{"name":"stale","qty":1}`, false},
		{`[1,2]`, false},
	}
	for _, tc := range cases {
		got := f.v.Answer(schema, []byte(tc.body))
		if (got == nil) != tc.valid {
			t.Errorf("Answer(%s) = %q, want valid=%v", tc.body, got, tc.valid)
		}
	}
	if got := f.v.Answer(nil, []byte(`"anything"`)); got != nil {
		t.Errorf("Answer without a schema = %q, want nothing to check", got)
	}
}

// Answer judges values as the response check does, from the same cache:
// after an operation is warmed, judging its answer schema compiles
// nothing more, and a value the answer check refuses is refused here.
func TestAnswer(t *testing.T) {
	f := newFixture(t, "/api")
	op := f.op(t, "getOrder")
	f.v.warmResponses(op)
	before := cacheSize(f.v)
	schema := op.Success.Schema.Schema()
	for _, tc := range []struct {
		body  string
		valid bool
	}{
		{`{"id":5,"name":"rye","qty":9}`, true},
		{`{"name":"rye"}`, false},
		{`{"name":"stale","qty":1}`, false},
		{`not json`, false},
	} {
		got := f.v.Answer(schema, []byte(tc.body))
		if (got == nil) != tc.valid {
			t.Errorf("Answer(%s) = %q, want valid=%v", tc.body, got, tc.valid)
		}
		resp := f.v.Response(httptest.NewRequest("GET", "/api/orders/5", nil), op, response(200, "application/json", tc.body))
		if (resp == nil) != (got == nil) {
			t.Errorf("%s: Answer says %q, the response check %q", tc.body, got, resp)
		}
	}
	if after := cacheSize(f.v); after != before {
		t.Errorf("Answer compiled %d more schemas; it should use the response check's", after-before)
	}
}

func cacheSize(v *Validator) int {
	n := 0
	v.options.SchemaCache.Range(func(uint64, *cache.SchemaCacheEntry) bool { n++; return true })
	return n
}

// TestWarm guards the warm-up: Warm compiles an operation's request
// schemas once (a second Warm adds nothing) and covers everything request
// validation then needs; warmResponses does the same for its answers, and
// only it compiles response schemas, which a first call to a fake that
// does not check its answers never pays for.
func TestWarm(t *testing.T) {
	f := newFixture(t, "/api")
	if n := cacheSize(f.v); n != 0 {
		t.Fatalf("a new validator has %d compiled schemas; compilation must wait for use", n)
	}
	total := 0
	for _, o := range f.doc.Operations {
		before := cacheSize(f.v)
		f.v.Warm(o)
		afterWarm := cacheSize(f.v)
		f.v.Warm(o)
		if n := cacheSize(f.v); n != afterWarm {
			t.Errorf("%s: a second Warm grew the cache from %d to %d", o.ID, afterWarm, n)
		}
		if _, ok := f.v.warmed.Load(o); !ok {
			t.Errorf("%s: not marked warm", o.ID)
		}
		total += afterWarm - before
	}
	if total == 0 {
		t.Fatal("Warm compiled nothing")
	}
	warm := cacheSize(f.v)
	for _, tc := range requestCases {
		r, body := tc.request()
		f.v.Request(r, f.op(t, tc.op), body)
	}
	if n := cacheSize(f.v); n != warm {
		t.Errorf("validating calls to warm operations compiled %d more schemas: Warm missed them", n-warm)
	}
	for _, o := range f.doc.Operations {
		f.v.warmResponses(o)
	}
	if cacheSize(f.v) == warm {
		t.Fatal("warmResponses compiled nothing: Warm compiled the response schemas too")
	}
	warm = cacheSize(f.v)
	for _, tc := range responseCases {
		r := httptest.NewRequest(tc.method, "http://fake"+tc.target, nil)
		f.v.Response(r, f.op(t, tc.op), response(tc.status, tc.contentType, tc.body))
	}
	if n := cacheSize(f.v); n != warm {
		t.Errorf("validating answers of warm operations compiled %d more schemas: warmResponses missed them", n-warm)
	}
}

// TestConcurrentValidation guards that once operations are warm, a burst
// of concurrent validations is safe (run with -race) and gives the same
// verdicts as one at a time.
func TestConcurrentValidation(t *testing.T) {
	f := newFixture(t, "/api")
	for _, o := range f.doc.Operations {
		f.v.Warm(o)
	}
	ops := map[string]*spec.Operation{}
	for _, o := range f.doc.Operations {
		ops[o.ID] = o
	}
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range len(requestCases) {
				tc := requestCases[(g+i)%len(requestCases)]
				r, body := tc.request()
				if got := f.v.Request(r, ops[tc.op], body); (got == nil) != tc.valid {
					errs <- fmt.Sprintf("request %s: %q, want valid=%v", tc.name, got, tc.valid)
				}
			}
			for i := range len(responseCases) {
				tc := responseCases[(g+i)%len(responseCases)]
				r := httptest.NewRequest(tc.method, "http://fake"+tc.target, nil)
				if got := f.v.Response(r, ops[tc.op], response(tc.status, tc.contentType, tc.body)); (got == nil) != tc.valid {
					errs <- fmt.Sprintf("response %s: %q, want valid=%v", tc.name, got, tc.valid)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestConcurrentFirstValidation guards the cold path: many first
// validations of operations that share schemas, at once, are safe too
// (run with -race), since each warms its operation under the model lock.
func TestConcurrentFirstValidation(t *testing.T) {
	f := newFixture(t, "/api")
	ops := map[string]*spec.Operation{}
	for _, o := range f.doc.Operations {
		ops[o.ID] = o
	}
	var wg sync.WaitGroup
	for g := range 8 {
		for _, tc := range requestCases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, body := tc.request()
				if got := f.v.Request(r, ops[tc.op], body); (got == nil) != tc.valid {
					t.Errorf("goroutine %d, %s: %q, want valid=%v", g, tc.name, got, tc.valid)
				}
			}()
		}
	}
	wg.Wait()
}

// shapesYAML holds one operation per kind of parameter that decides whether
// a call can skip the validator.
const shapesYAML = `openapi: 3.0.3
info: {title: Plain, version: "1"}
paths:
  /free/{id}:
    get:
      operationId: free
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: Accept-Version, in: header, schema: {type: string}}
        - {name: verbose, in: query, schema: {type: boolean}}
      responses: {"200": {description: ok}}
  /typed/{id}:
    get:
      operationId: typed
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses: {"200": {description: ok}}
  /patterned/{id}:
    get:
      operationId: patterned
      parameters:
        - {name: id, in: path, required: true, schema: {type: string, pattern: "^[a-z]+$"}}
      responses: {"200": {description: ok}}
  /needs-query:
    get:
      operationId: needsQuery
      parameters:
        - {name: q, in: query, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
  /with-header:
    get:
      operationId: withHeader
      parameters:
        - {name: X-Trace, in: header, schema: {type: integer}}
      responses: {"200": {description: ok}}
`

// loadOps loads a document and indexes its operations by id.
func loadOps(t *testing.T, doc string) (*spec.Document, map[string]*spec.Operation) {
	t.Helper()
	d, err := spec.Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*spec.Operation{}
	for _, o := range d.Operations {
		ops[o.ID] = o
	}
	return d, ops
}

// TestPlainOperations: the validator is skipped only for calls that cannot
// be invalid; a parameter with a type or constraint, a required query or
// header parameter, or any other header parameter keeps the full check.
func TestPlainOperations(t *testing.T) {
	d, ops := loadOps(t, shapesYAML)
	want := map[string]bool{"free": true, "typed": false, "patterned": false, "needsQuery": false, "withHeader": false}
	v := New(d, "/api")
	for _, op := range d.Operations {
		if got := plain(op); got != want[op.ID] {
			t.Errorf("plain(%s) = %v, want %v", op.ID, got, want[op.ID])
		}
	}
	cases := []struct {
		op, target string
		valid      bool
	}{
		{"free", "/api/free/abc", true},
		{"free", "/api/free/abc?verbose=maybe", false}, // a query string is always checked
		{"typed", "/api/typed/abc", false},
		{"patterned", "/api/patterned/ABC", false},
		{"needsQuery", "/api/needs-query", false},
	}
	for _, c := range cases {
		for range 2 { // the first call warms the operation, the second may take the short cut
			problems := v.Request(httptest.NewRequest("GET", c.target, nil), ops[c.op], nil)
			if (problems == nil) != c.valid {
				t.Errorf("%s: problems %v, want valid=%v", c.target, problems, c.valid)
			}
		}
	}
}

// TestVerdictCache guards the cache of verdicts: a repeated call gets the
// same verdict as the first time, calls that differ in any part the
// validator reads (query, body, content type, a declared header) are never
// confused, and calls too large to key are validated every time.
func TestVerdictCache(t *testing.T) {
	f := newFixture(t, "/api")
	// Every case three times, in an order that puts a call right after
	// another that differs from it only in its body or its query.
	for pass := range 3 {
		for i := range requestCases {
			tc := requestCases[i]
			if pass == 1 {
				tc = requestCases[len(requestCases)-1-i]
			}
			r, body := tc.request()
			if got := f.v.Request(r, f.op(t, tc.op), body); (got == nil) != tc.valid {
				t.Errorf("pass %d, %s: reasons %q, want valid=%v", pass, tc.name, got, tc.valid)
			}
		}
	}
	if n := f.v.verdicts.Len(); n == 0 {
		t.Error("no verdict was cached")
	}

	d, ops := loadOps(t, shapesYAML)
	v := New(d, "/api")
	for range 2 {
		for _, c := range []struct {
			trace string
			valid bool
		}{{"5", true}, {"five", false}, {"", true}} {
			r := httptest.NewRequest("GET", "/api/with-header", nil)
			if c.trace != "" {
				r.Header.Set("X-Trace", c.trace)
			}
			if got := v.Request(r, ops["withHeader"], nil); (got == nil) != c.valid {
				t.Errorf("X-Trace %q: reasons %q, want valid=%v", c.trace, got, c.valid)
			}
		}
	}

	before := f.v.verdicts.Len()
	big := `{"name":"rye","qty":2,"note":"` + strings.Repeat("x", verdictKeyMax) + `"}`
	for range 2 {
		r := httptest.NewRequest("POST", "/api/orders", strings.NewReader(big))
		r.Header.Set("Content-Type", "application/json")
		if got := f.v.Request(r, f.op(t, "placeOrder"), []byte(big)); got != nil {
			t.Errorf("large valid body refused: %q", got)
		}
	}
	if f.v.verdicts.Len() != before {
		t.Error("a call larger than the key limit was cached")
	}
}

// A header declared int64 is held to int64 like a query parameter, and
// the refusal is not lost to the verdict cache: the same call with a value
// in range passes, and the first one is still refused after it.
func TestSizedIntegerHeader(t *testing.T) {
	f := newFixture(t, "/api")
	op := f.op(t, "listOrders")
	check := func(shop string) []string {
		r := httptest.NewRequest("GET", "http://fake/api/orders?limit=1", nil)
		r.Header.Set("X-Shop", shop)
		return f.v.Request(r, op, nil)
	}
	for range 2 {
		if got := check("9223372036854775808"); len(got) == 0 || !strings.Contains(got[0], "X-Shop=9223372036854775808 is out of range for int64") {
			t.Errorf("int64 header past its bound: %q", got)
		}
		if got := check("-9223372036854775808"); got != nil {
			t.Errorf("int64 header at its bound refused: %q", got)
		}
	}
}
