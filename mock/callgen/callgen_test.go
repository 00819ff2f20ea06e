package callgen

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// gardenYAML is a small document whose operations cover each kind of
// parameter and body Build fills in.
const gardenYAML = `openapi: 3.0.3
info: {title: Garden, version: "1"}
paths:
  /beds/{bedId}/plants/{kind}:
    parameters:
      - {name: bedId, in: path, required: true, schema: {type: string}}
      - {name: season, in: query, required: true, schema: {type: string, enum: [spring]}}
    get:
      operationId: listPlants
      parameters:
        - {name: kind, in: path, required: true, schema: {type: string, enum: ["herb & spice/mix?"]}}
        - {name: max, in: query, required: true, schema: {type: integer, minimum: 1, maximum: 5}}
        - {name: sort, in: query, schema: {type: string}}
        - name: tags
          in: query
          required: true
          schema: {type: array, minItems: 2, maxItems: 2, items: {type: string, enum: [red]}}
        - {name: X-Gardener, in: header, required: true, schema: {type: string, enum: [ann]}}
        - {name: X-Spade, in: header, schema: {type: string}}
        - {name: Accept-Version, in: header, required: true, schema: {type: string, enum: ["1"]}}
        - {name: season, in: query, required: false, schema: {type: string}}
      responses:
        "200": {description: ok}
  /beds/{bedId}:
    put:
      operationId: replaceBed
      parameters:
        - {name: bedId, in: path, required: true, schema: {type: integer, minimum: 10, maximum: 10}}
      requestBody:
        required: true
        content:
          text/plain:
            schema: {type: string}
          application/json:
            schema:
              type: object
              required: [id, name, size]
              properties:
                id: {type: string, readOnly: true}
                name: {type: string, minLength: 1}
                size: {type: integer, minimum: 1}
      responses:
        "204": {description: replaced}
  /beds/{bedId}/photo:
    post:
      operationId: addPhoto
      parameters:
        - {name: bedId, in: path, required: true, schema: {type: string, pattern: "^[a-z]{3} [a-z]{3}$"}}
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              required: [caption, rating, labels]
              properties:
                caption: {type: string, enum: ["sunny day"]}
                rating: {type: integer, minimum: 4, maximum: 4}
                labels:
                  type: array
                  minItems: 2
                  maxItems: 2
                  items: {type: string, enum: [rose]}
      responses:
        "201": {description: added}
  /beds/{bedId}/note:
    post:
      operationId: addNote
      parameters:
        - {name: bedId, in: path, required: true, schema: {type: boolean}}
      requestBody:
        content:
          text/plain:
            schema: {type: string, enum: [water daily]}
      responses:
        "201": {description: added}
  /notes/{title}:
    get:
      operationId: readNote
      parameters:
        - {name: title, in: path, required: true, schema: {type: string, example: "to do/later #2"}}
      responses:
        "200": {description: the note}
  /ghosts/{ghostId}:
    get:
      operationId: findGhost
      responses:
        "200": {description: boo}
`

func garden(t *testing.T) *spec.Document {
	t.Helper()
	d, err := spec.Load([]byte(gardenYAML))
	if err != nil {
		t.Fatalf("loading the garden document: %v", err)
	}
	return d
}

func op(t *testing.T, d *spec.Document, id string) *spec.Operation {
	t.Helper()
	for _, o := range d.Operations {
		if o.ID == id {
			return o
		}
	}
	t.Fatalf("no operation %q", id)
	return nil
}

func build(t *testing.T, o *spec.Operation, gen *synth.Generator, key string) *Call {
	t.Helper()
	c, err := Build(o, gen, key)
	if err != nil {
		t.Fatalf("Build(%s, %q): %v", o.ID, key, err)
	}
	return c
}

// TestBuildParameters guards how parameters are filled: path parameters
// escaped, required query and header parameters present (arrays as one
// value per element), optional ones absent, an operation's declaration
// overriding its path's, and Accept-Version never set.
func TestBuildParameters(t *testing.T) {
	d := garden(t)
	gen := synth.New(synth.WithSeed(3))
	for i := range 20 {
		key := fmt.Sprintf("k%d", i)
		c := build(t, op(t, d, "listPlants"), gen, key)
		if c.Method != "GET" {
			t.Errorf("method %q", c.Method)
		}
		segs := strings.Split(c.Path, "/")
		if len(segs) != 5 || segs[1] != "beds" || segs[3] != "plants" {
			t.Fatalf("path %q does not follow /beds/{bedId}/plants/{kind}", c.Path)
		}
		if want := url.PathEscape("herb & spice/mix?"); segs[4] != want {
			t.Errorf("kind segment %q, want %q", segs[4], want)
		}
		if got, err := url.PathUnescape(segs[4]); err != nil || got != "herb & spice/mix?" {
			t.Errorf("kind segment %q unescapes to %q, %v", segs[4], got, err)
		}
		cases := []struct {
			name string
			want []string // nil: absent
		}{
			{"tags", []string{"red", "red"}},
			{"sort", nil},
			{"season", nil}, // optional on the operation, required on the path
		}
		for _, q := range cases {
			if got := c.Query[q.name]; !slices.Equal(got, q.want) {
				t.Errorf("query %s = %q, want %q", q.name, got, q.want)
			}
		}
		if m := c.Query["max"]; len(m) != 1 || m[0] < "1" || m[0] > "5" || len(m[0]) != 1 {
			t.Errorf("query max = %q, want one value in 1..5", m)
		}
		if got := c.Header.Values("X-Gardener"); !slices.Equal(got, []string{"ann"}) {
			t.Errorf("X-Gardener = %q, want ann", got)
		}
		for _, h := range []string{"X-Spade", "Accept-Version"} {
			if _, ok := c.Header[http.CanonicalHeaderKey(h)]; ok {
				t.Errorf("%s set to %q", h, c.Header.Get(h))
			}
		}
		if c.Body != nil || c.ContentType != "" {
			t.Errorf("a GET without request body got body %q (%s)", c.Body, c.ContentType)
		}
	}
}

// TestBuildPathValues guards that path values route unambiguously: a plain
// string parameter is never empty and never holds a character that would
// split or end the path, while constrained ones keep their value, escaped.
func TestBuildPathValues(t *testing.T) {
	d := garden(t)
	cases := []struct {
		id    string
		check func(seg string) error
	}{
		{"readNote", func(seg string) error { // plain string, example with a slash
			if seg == "" || strings.ContainsAny(seg, "/ ?#%") {
				return fmt.Errorf("%q is empty or needs escaping", seg)
			}
			return nil
		}},
		{"replaceBed", func(seg string) error { // integer 10..10
			if seg != "10" {
				return fmt.Errorf("%q, want 10", seg)
			}
			return nil
		}},
		{"addPhoto", func(seg string) error { // pattern with a space
			v, err := url.PathUnescape(seg)
			if err != nil || len(v) != 7 || v[3] != ' ' || !strings.Contains(seg, "%20") {
				return fmt.Errorf("%q does not carry an escaped 'abc def' value", seg)
			}
			return nil
		}},
		{"addNote", func(seg string) error { // boolean
			if seg != "true" && seg != "false" {
				return fmt.Errorf("%q, want a boolean", seg)
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			for seed := range int64(5) {
				gen := synth.New(synth.WithSeed(seed))
				for i := range 40 {
					c := build(t, op(t, d, tc.id), gen, fmt.Sprintf("%s-%d", tc.id, i))
					seg := strings.Split(c.Path, "/")[2]
					if err := tc.check(seg); err != nil {
						t.Fatalf("seed %d key %d: bedId %v (path %q)", seed, i, err, c.Path)
					}
				}
			}
		})
	}
}

// TestPathValueFallback guards the fallback for generated strings that
// would not route (here the document's own example, which holds a slash, a
// space and a '#'): they are replaced with a plain id.
func TestPathValueFallback(t *testing.T) {
	gen := synth.New(synth.WithSeed(1))
	d := garden(t)
	s := op(t, d, "readNote").Op.Parameters[0].Schema.Schema()
	replaced := 0
	for i := range 100 {
		key := fmt.Sprint(i)
		raw, _ := gen.Value(s, key, synth.Request).(string)
		v := pathValue(s, gen, key)
		if v == "" || strings.ContainsAny(v, "/ ?#%") {
			t.Fatalf("pathValue gave %q", v)
		}
		if raw != v {
			replaced++
		}
	}
	if replaced == 0 {
		t.Error("no generated value needed replacing: the test no longer exercises the fallback")
	}
	if v := pathValue(nil, gen, "x"); v == "" || strings.ContainsAny(v, "/ ?#%") {
		t.Errorf("pathValue without schema gave %q", v)
	}
}

// TestScalarValues guards how generated values become parameter strings.
func TestScalarValues(t *testing.T) {
	cases := []struct {
		in   any
		want []string
	}{
		{nil, nil},
		{"a b", []string{"a b"}},
		{true, []string{"true"}},
		{int64(-3), []string{"-3"}},
		{7, []string{"7"}},
		{1.5, []string{"1.5"}},
		{json.Number("12"), []string{"12"}},
		{[]any{"x", int64(2), []any{"y"}}, []string{"x", "2", "y"}},
		{map[string]any{"k": 1}, []string{`{"k":1}`}},
	}
	for _, tc := range cases {
		if got := scalarValues(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("scalarValues(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestBuildJSONBody guards the request body: JSON preferred among the
// declared media types, valid for the schema in the request direction
// (required properties there, readOnly ones left out).
func TestBuildJSONBody(t *testing.T) {
	d := garden(t)
	gen := synth.New(synth.WithSeed(11))
	for i := range 30 {
		c := build(t, op(t, d, "replaceBed"), gen, fmt.Sprint(i))
		if c.ContentType != "application/json" {
			t.Fatalf("content type %q, want application/json", c.ContentType)
		}
		var body map[string]any
		if err := json.Unmarshal(c.Body, &body); err != nil {
			t.Fatalf("body %q is not a JSON object: %v", c.Body, err)
		}
		if _, ok := body["id"]; ok {
			t.Errorf("readOnly id sent in a request: %s", c.Body)
		}
		name, _ := body["name"].(string)
		size, _ := body["size"].(float64)
		if name == "" || size < 1 {
			t.Errorf("required properties missing or invalid: %s", c.Body)
		}
	}
}

// TestBuildMultipartBody guards multipart bodies: a well-formed form with
// one field per property and one part per array element.
func TestBuildMultipartBody(t *testing.T) {
	d := garden(t)
	c := build(t, op(t, d, "addPhoto"), synth.New(synth.WithSeed(5)), "photo")
	mt, params, err := mime.ParseMediaType(c.ContentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		t.Fatalf("content type %q: %v", c.ContentType, err)
	}
	form, err := multipart.NewReader(strings.NewReader(string(c.Body)), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatalf("body is not multipart: %v", err)
	}
	want := map[string][]string{"caption": {"sunny day"}, "rating": {"4"}, "labels": {"rose", "rose"}}
	for k, v := range want {
		if got := form.Value[k]; !slices.Equal(got, v) {
			t.Errorf("field %s = %q, want %q", k, got, v)
		}
	}
	for k := range form.Value {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected field %s", k)
		}
	}
}

// TestBuildTextBody guards bodies of other media types: the value as text.
func TestBuildTextBody(t *testing.T) {
	d := garden(t)
	c := build(t, op(t, d, "addNote"), synth.New(), "note")
	if c.ContentType != "text/plain" || string(c.Body) != "water daily" {
		t.Errorf("body %q (%s), want \"water daily\" (text/plain)", c.Body, c.ContentType)
	}
}

// TestBuildDeterministic guards that a seed and key always give the same
// call, and that another key gives another one.
func TestBuildDeterministic(t *testing.T) {
	d := garden(t)
	for _, id := range []string{"listPlants", "replaceBed", "addNote"} {
		a := build(t, op(t, d, id), synth.New(synth.WithSeed(9)), "same")
		b := build(t, op(t, d, id), synth.New(synth.WithSeed(9)), "same")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two builds with one key differ:\n%+v\n%+v", id, a, b)
		}
	}
	o := op(t, d, "listPlants")
	gen := synth.New(synth.WithSeed(9))
	paths := map[string]bool{}
	for i := range 10 {
		paths[build(t, o, gen, fmt.Sprint(i)).Path] = true
	}
	if len(paths) < 2 {
		t.Errorf("10 keys gave %d distinct paths", len(paths))
	}
}

// TestBuildUndeclaredPathParameter guards that a template parameter the
// document never declares is an error, not a call with braces in its path.
func TestBuildUndeclaredPathParameter(t *testing.T) {
	d := garden(t)
	c, err := Build(op(t, d, "findGhost"), synth.New(), "k")
	if err == nil {
		t.Fatalf("Build succeeded with path %q", c.Path)
	}
	if !strings.Contains(err.Error(), "/ghosts/{ghostId}") {
		t.Errorf("error %q does not name the path", err)
	}
}

// TestCallURL guards how a call's URL is formed from a base.
func TestCallURL(t *testing.T) {
	cases := []struct {
		base  string
		path  string
		query url.Values
		want  string
	}{
		{"http://h/api", "/a/b", nil, "http://h/api/a/b"},
		{"http://h/api/", "/a/b", url.Values{}, "http://h/api/a/b"},
		{"http://h:8080", "/a%20b", url.Values{"q": {"x y", "z"}, "a": {"1"}}, "http://h:8080/a%20b?a=1&q=x+y&q=z"},
	}
	for _, tc := range cases {
		c := &Call{Path: tc.path, Query: tc.query}
		if got := c.URL(tc.base); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.base, got, tc.want)
		}
	}
}

// TestCallRequest guards the request a call becomes: method, URL, its
// headers and content type, the body, and a bearer token only when given.
func TestCallRequest(t *testing.T) {
	c := &Call{
		Method:      "POST",
		Path:        "/beds/a%20b",
		Query:       url.Values{"max": {"3"}},
		Header:      http.Header{"X-Gardener": {"ann"}},
		Body:        []byte(`{"name":"x"}`),
		ContentType: "application/json",
	}
	cases := []struct {
		token, auth string
	}{
		{"tok123", "Bearer tok123"},
		{"", ""},
	}
	for _, tc := range cases {
		req, err := c.Request("http://fake/api", tc.token)
		if err != nil {
			t.Fatal(err)
		}
		if req.Method != "POST" || req.URL.String() != "http://fake/api/beds/a%20b?max=3" {
			t.Errorf("request %s %s", req.Method, req.URL)
		}
		if req.URL.Path != "/api/beds/a b" {
			t.Errorf("path %q does not unescape to the parameter value", req.URL.Path)
		}
		if got := req.Header.Get("Authorization"); got != tc.auth {
			t.Errorf("Authorization %q, want %q", got, tc.auth)
		}
		if req.Header.Get("X-Gardener") != "ann" || req.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers %v", req.Header)
		}
		body, _ := io.ReadAll(req.Body)
		if string(body) != string(c.Body) || req.ContentLength != int64(len(c.Body)) {
			t.Errorf("body %q (length %d), want %q", body, req.ContentLength, c.Body)
		}
	}
	get := &Call{Method: "GET", Path: "/x"}
	req, err := get.Request("http://fake", "")
	if err != nil {
		t.Fatal(err)
	}
	if req.Body != nil && req.Body != http.NoBody || req.Header.Get("Content-Type") != "" {
		t.Errorf("a call without body gave body %v, content type %q", req.Body, req.Header.Get("Content-Type"))
	}
	if _, err := (&Call{Method: "bad method", Path: "/x"}).Request("http://fake", ""); err == nil {
		t.Error("an invalid method was accepted")
	}
}

// refsYAML has a create whose body names records by id, one level deep
// and in a list of numbers, as the service's pipeline create does.
const refsYAML = `openapi: 3.0.3
info: {title: Refs, version: "1"}
paths:
  /pipelines:
    post:
      operationId: create
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name, labelIds, launch, tagIds]
              properties:
                name: {type: string}
                labelIds: {type: array, minItems: 1, items: {type: integer}}
                tagIds: {type: array, maxItems: 0, items: {type: integer}}
                launch:
                  type: object
                  required: [computeEnvId, pipeline]
                  properties:
                    computeEnvId: {type: string}
                    pipeline: {type: string}
      responses:
        "200": {description: ok}
`

// WithReferences gives every field that names records the id the caller
// holds, keeping numbers numbers, and leaves other fields and empty lists
// alone; NamesRecords sees such a body.
func TestWithReferences(t *testing.T) {
	d, err := spec.Load([]byte(refsYAML))
	if err != nil {
		t.Fatal(err)
	}
	op := d.Operations[0]
	held := map[string]string{"computeEnvId": "ce-1", "labelIds": "42", "tagIds": "7"}
	c, err := Build(op, synth.New(synth.WithSeed(1)), "refs", WithReferences(func(f string) (string, bool) {
		id, ok := held[f]
		return id, ok
	}))
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Name     string
		LabelIDs []any `json:"labelIds"`
		TagIDs   []any `json:"tagIds"`
		Launch   struct{ ComputeEnvID, Pipeline string }
	}
	if err := json.Unmarshal(c.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Launch.ComputeEnvID != "ce-1" || !reflect.DeepEqual(body.LabelIDs, []any{42.0}) || len(body.TagIDs) != 0 {
		t.Errorf("references not named as held: %s", c.Body)
	}
	if body.Name == "" || body.Launch.Pipeline == "" || body.Name == "ce-1" {
		t.Errorf("other fields changed: %s", c.Body)
	}
	if !c.NamesRecords() {
		t.Errorf("NamesRecords misses %s", c.Body)
	}
	if (&Call{Body: []byte(`{"name":"x","launch":{"computeEnvId":null}}`)}).NamesRecords() {
		t.Error("NamesRecords counts a null reference")
	}
}
