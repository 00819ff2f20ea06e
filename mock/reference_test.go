package mock_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// TestReferenceDocument: the document behind /_mock/docs has every
// operation of the served one, an example on every JSON success answer
// (the fake's own where the document has none), and its servers point at
// the fake, so "try it" calls the fake.
func TestReferenceDocument(t *testing.T) {
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			if d.name == "published" && testenv.RaceEnabled {
				t.Skip("the published schema's reference is checked without -race (it synthesizes every answer)")
			}
			doc := d.doc(t)
			srv, _ := newServer(t, doc)
			a := call(t, srv.Handler(), "GET", "/_mock/docs/openapi.json", "", nil)
			if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
				t.Fatalf("reference document: %d %s", a.status, a.header.Get("Content-Type"))
			}
			var root struct {
				Servers []struct{ URL string } `json:"servers"`
				Paths   map[string]map[string]json.RawMessage
			}
			if err := json.Unmarshal(a.body, &root); err != nil {
				t.Fatal(err)
			}
			if len(root.Servers) != 1 || root.Servers[0].URL != mock.DefaultBasePath {
				t.Errorf("servers %+v, want the fake's base path only", root.Servers)
			}
			missing := 0
			for _, op := range doc.Operations {
				raw, ok := root.Paths[op.Path][strings.ToLower(op.Method)]
				if !ok {
					t.Errorf("%s %s is not in the reference document", op.Method, op.Path)
					continue
				}
				if !spec.IsJSON(op.Success.MediaType) || op.Success.Schema == nil {
					continue
				}
				var o struct {
					Responses map[string]struct {
						Content map[string]struct {
							Example  json.RawMessage `json:"example"`
							Examples json.RawMessage `json:"examples"`
						}
					}
				}
				if err := json.Unmarshal(raw, &o); err != nil {
					t.Fatal(err)
				}
				m := o.Responses[strconv.Itoa(op.Success.Status)].Content[op.Success.MediaType]
				if m.Example == nil && m.Examples == nil {
					missing++
					if missing < 5 {
						t.Errorf("%s: no example on its %d answer", op.ID, op.Success.Status)
					}
				}
			}
			if missing > 0 {
				t.Errorf("%d operations have no example", missing)
			}
		})
	}
}

// TestReferenceFilledExampleIsTheFakes: where the document gives no
// example, the one shown is the fake's own answer.
func TestReferenceFilledExampleIsTheFakes(t *testing.T) {
	doc := embedded(t)
	srv, _ := newServer(t, doc, mock.WithStrictResponses())
	a := call(t, srv.Handler(), "GET", "/_mock/docs/openapi.json", "", nil)
	var root map[string]any
	if err := json.Unmarshal(a.body, &root); err != nil {
		t.Fatal(err)
	}
	// GET /service-info takes no input and is answered by synthesis: the
	// example shown must be what a strict fake serves for it.
	ex := root["paths"].(map[string]any)["/service-info"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["example"]
	if ex == nil {
		t.Fatal("no example on GET /service-info")
	}
	got := call(t, srv.Handler(), "GET", "/api/service-info", mock.DevToken, nil)
	if got.status != 200 {
		t.Fatalf("GET /api/service-info: %d %s", got.status, got.body)
	}
	var served any
	if err := json.Unmarshal(got.body, &served); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(served)
	shown, _ := json.Marshal(ex)
	if !bytes.Equal(want, shown) {
		t.Errorf("the example shown differs from the fake's answer:\nshown  %s\nserved %s", shown, want)
	}
}

// TestReferencePage: the page names every served version, links the
// served schema and the Error ID lookup, loads only embedded files, and
// fills in the development token; unknown versions and files are 404s.
func TestReferencePage(t *testing.T) {
	doc := embedded(t)
	srv, _ := newServer(t, doc, mock.WithDocument("2", doc))
	h := srv.Handler()
	page := call(t, h, "GET", "/_mock/docs", "", nil)
	if page.status != 200 || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", page.status, page.header.Get("Content-Type"))
	}
	html := string(page.body)
	for _, want := range []string{`<option value="1" selected>1</option>`, `<option value="2">2</option>`,
		`href="/_mock/openapi.yaml"`, `/_mock/errors/`, mock.DevToken,
		`src="/_mock/docs/assets/swagger-ui-bundle.js"`, `href="/_mock/docs/assets/swagger-ui.css"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(html, "http://") || strings.Contains(html, "https://") {
		t.Error("the page refers to another site; it must work without network")
	}
	if a := call(t, h, "GET", "/_mock/docs/openapi.json?version=2", "", nil); a.status != 200 {
		t.Errorf("version 2: %d", a.status)
	}
	if a := call(t, h, "GET", "/_mock/docs/openapi.json?version=9", "", nil); a.status != 404 || !strings.Contains(a.message(t), "9") {
		t.Errorf("an unserved version: %d %s", a.status, a.body)
	}
	if a := call(t, h, "GET", "/_mock/docs/assets/nothing.js", "", nil); a.status != 404 {
		t.Errorf("an unknown file: %d", a.status)
	}
	if a := call(t, h, "POST", "/_mock/docs", "", []byte("{}")); a.status != 405 {
		t.Errorf("POST: %d", a.status)
	}
	// The viewer goes out gzipped to a client that takes it, and unpacked
	// to one that does not: the same bytes either way.
	zipped := call(t, h, "GET", "/_mock/docs/assets/swagger-ui-bundle.js", "", nil, "Accept-Encoding", "gzip")
	plain := call(t, h, "GET", "/_mock/docs/assets/swagger-ui-bundle.js", "", nil)
	if zipped.header.Get("Content-Encoding") != "gzip" || plain.header.Get("Content-Encoding") != "" {
		t.Fatalf("encodings %q and %q", zipped.header.Get("Content-Encoding"), plain.header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(unzipped, plain.body) || !bytes.Contains(plain.body, []byte("SwaggerUIBundle")) {
		t.Errorf("the gzipped and plain viewer differ (%d and %d bytes)", len(unzipped), len(plain.body))
	}
	for _, f := range []string{"page.js", "swagger-ui.css"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/_mock/docs/assets/"+f, nil))
		if rec.Code != 200 || rec.Body.Len() == 0 {
			t.Errorf("%s: %d, %d bytes", f, rec.Code, rec.Body.Len())
		}
	}
}
