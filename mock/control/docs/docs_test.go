package docs_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock/control/docs"
)

// source is a docs.Source with two versions; version "broken" fails to
// render.
type source struct{ asked []string }

func (s *source) Versions() []string     { return []string{"1", "2", "broken"} }
func (s *source) DefaultVersion() string { return "2" }
func (s *source) DevToken() string       { return `tok"<en>` }
func (s *source) Reference(v string) ([]byte, error) {
	s.asked = append(s.asked, v)
	if v == "broken" {
		return nil, errors.New("no document")
	}
	return []byte(`{"openapi":"3.0.1","info":{"version":"` + v + `"}}`), nil
}

func get(t *testing.T, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// message reads the control API's error body, {"message": ...}, and fails
// when the answer is not one.
func message(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("error answer Content-Type %q, want application/json", ct)
	}
	var m struct{ Message string }
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || m.Message == "" {
		t.Fatalf("error answer is not {\"message\":...}: %q (%v)", w.Body.String(), err)
	}
	return m.Message
}

// The page is read only: anything but GET and HEAD is refused with 405,
// an Allow header that says what works, and a message.
func TestOnlyGetAndHead(t *testing.T) {
	h := docs.New(&source{})
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		w := get(t, h, m, docs.Prefix)
		if w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", m, w.Code)
		}
		if a := w.Header().Get("Allow"); a != "GET, HEAD" {
			t.Errorf("%s: Allow %q", m, a)
		}
		if msg := message(t, w); !strings.Contains(msg, "GET") {
			t.Errorf("%s: message %q does not say what works", m, msg)
		}
	}
	if w := get(t, h, "HEAD", docs.Prefix); w.Code != 200 {
		t.Errorf("HEAD: status %d", w.Code)
	}
}

// A path under the prefix that names nothing is a 404 naming the path.
func TestUnknownPath(t *testing.T) {
	w := get(t, docs.New(&source{}), "GET", docs.Prefix+"/nothing-here")
	if w.Code != 404 {
		t.Fatalf("status %d, want 404", w.Code)
	}
	if msg := message(t, w); !strings.Contains(msg, docs.Prefix+"/nothing-here") {
		t.Errorf("message %q does not name the path", msg)
	}
}

var configAttr = regexp.MustCompile(`data-config="([^"]*)"`)

// The page tells its script the served versions, the default one, the
// token "try it" sends and where the document is, as JSON in an
// attribute that survives a token with quotes and angle brackets; the
// version picker has the default selected.
func TestPageConfig(t *testing.T) {
	for _, p := range []string{docs.Prefix, docs.Prefix + "/"} {
		w := get(t, docs.New(&source{}), "GET", p)
		if w.Code != 200 {
			t.Fatalf("%s: status %d", p, w.Code)
		}
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: Content-Type %q", p, ct)
		}
		body := w.Body.String()
		m := configAttr.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no data-config attribute", p)
		}
		var cfg struct {
			Versions       []string
			DefaultVersion string
			Token          string
			Reference      string
		}
		if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &cfg); err != nil {
			t.Fatalf("%s: data-config is not JSON: %v", p, err)
		}
		if strings.Join(cfg.Versions, ",") != "1,2,broken" || cfg.DefaultVersion != "2" ||
			cfg.Token != `tok"<en>` || cfg.Reference != docs.ReferencePath {
			t.Errorf("%s: config %+v", p, cfg)
		}
		if strings.Contains(body, `tok"<en>`) {
			t.Errorf("%s: the token is written into the page unescaped", p)
		}
		if !strings.Contains(body, `<option value="2" selected>`) || strings.Contains(body, `<option value="1" selected>`) {
			t.Errorf("%s: the version picker does not select the default version only", p)
		}
	}
}

// The document comes in the version asked for, the default one without
// ?version=; a version not served is a 404 and a failed rendering a 500,
// neither of them asking for or showing a document.
func TestReference(t *testing.T) {
	src := &source{}
	h := docs.New(src)
	cases := []struct {
		query  string
		status int
		want   string // in the body
	}{
		{"", 200, `"version":"2"`},
		{"?version=1", 200, `"version":"1"`},
		{"?version=9", 404, "9 is not served"},
		{"?version=broken", 500, "no document"},
	}
	for _, c := range cases {
		w := get(t, h, "GET", docs.ReferencePath+c.query)
		if w.Code != c.status || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("%q: %d %s, want %d with %q", c.query, w.Code, w.Body, c.status, c.want)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%q: Content-Type %q", c.query, ct)
		}
	}
	if strings.Join(src.asked, ",") != "2,1,broken" {
		t.Errorf("documents rendered: %v, want 2,1,broken (none for an unserved version)", src.asked)
	}
}

// The viewer's large files are stored gzipped: a client that accepts gzip
// gets them as stored, one that does not (or refuses gzip with q=0) gets
// the same bytes unpacked; both are told the type and that the answer
// varies with Accept-Encoding.
func TestAssetEncoding(t *testing.T) {
	h := docs.New(&source{})
	asset := docs.Prefix + "/assets/swagger-ui.css"
	packed := get(t, h, "GET", asset, "Accept-Encoding", "br, gzip;q=0.8")
	if packed.Code != 200 || packed.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("with gzip accepted: %d, Content-Encoding %q", packed.Code, packed.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(packed.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	unpacked, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []string{"", "identity", "gzip;q=0", "gzip; q=0"} {
		plain := get(t, h, "GET", asset, "Accept-Encoding", enc)
		if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q", enc, plain.Code, plain.Header().Get("Content-Encoding"))
		}
		if !bytes.Equal(plain.Body.Bytes(), unpacked) || len(unpacked) == 0 {
			t.Errorf("Accept-Encoding %q: %d bytes, want the %d unpacked", enc, plain.Body.Len(), len(unpacked))
		}
	}
	for _, w := range []*httptest.ResponseRecorder{packed} {
		if ct := w.Header().Get("Content-Type"); ct != "text/css; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if w.Header().Get("Vary") != "Accept-Encoding" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("headers %v", w.Header())
		}
	}
}

// The page's own script and the plain files are served by type (a file
// without a known ending as text); a name that would leave the folder or
// reach a hidden file, or that names nothing, is a 404.
func TestAssetNames(t *testing.T) {
	h := docs.New(&source{})
	for name, ct := range map[string]string{
		"page.js": "text/javascript; charset=utf-8",
		"VERSION": "text/plain; charset=utf-8",
	} {
		w := get(t, h, "GET", docs.Prefix+"/assets/"+name)
		if w.Code != 200 || w.Body.Len() == 0 || w.Header().Get("Content-Type") != ct {
			t.Errorf("%s: %d, %d bytes, Content-Type %q, want 200 %s", name, w.Code, w.Body.Len(), w.Header().Get("Content-Type"), ct)
		}
	}
	for _, name := range []string{"", "../docs.go", "sub/page.js", ".hidden", "missing.js", "page.html"} {
		w := get(t, h, "GET", docs.Prefix+"/assets/"+name)
		if w.Code != 404 {
			t.Errorf("%q: status %d, want 404", name, w.Code)
			continue
		}
		message(t, w)
	}
}
