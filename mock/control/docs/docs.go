// Package docs serves the fake's reference page, /_mock/docs: every
// operation of each served document, grouped by tag, with its parameters,
// schemas and examples, and a "try it" that calls the fake with the
// development token filled in.
//
// The viewer is swagger-ui (swagger-ui-dist on npm), chosen for being the
// most widely used open-source OpenAPI viewer with a built-in "try it"
// that sends real requests and shows the real answers. Its files are
// embedded gzipped (update.sh refreshes them at a pinned version), so the
// page works without any network.
package docs

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
)

// Prefix is where the page and its files live.
const Prefix = "/_mock/docs"

// ReferencePath serves the document the page shows (?version=).
const ReferencePath = Prefix + "/openapi.json"

//go:embed assets page.html page.js
var files embed.FS

// page is parsed on first use: parsing at package initialisation would
// add to every start of the binary, and most runs never open the page.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(files, "page.html"))
})

// Source is what the page needs from the server.
type Source interface {
	// Versions lists the served API versions, and DefaultVersion the one a
	// call without Accept-Version gets.
	Versions() []string
	DefaultVersion() string
	// DevToken is the token "try it" sends unless the reader enters another.
	DevToken() string
	// Reference is the document served as version, as JSON, in the form the
	// page shows: examples filled in and servers pointing at the fake.
	Reference(version string) ([]byte, error)
}

// New returns the handler for every path under Prefix.
func New(src Source) http.Handler {
	return &handler{src: src}
}

type handler struct{ src Source }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeMessage(w, http.StatusMethodNotAllowed, "the reference page is read with GET")
		return
	}
	p := r.URL.Path
	switch {
	case p == Prefix || p == Prefix+"/":
		h.page(w, r)
	case p == ReferencePath:
		h.reference(w, r)
	case strings.HasPrefix(p, Prefix+"/assets/"):
		serveAsset(w, r, strings.TrimPrefix(p, Prefix+"/assets/"))
	default:
		writeMessage(w, http.StatusNotFound, "no control endpoint "+r.Method+" "+p)
	}
}

// pageConfig is what page.js is told, as JSON in a data attribute.
type pageConfig struct {
	Versions       []string `json:"versions"`
	DefaultVersion string   `json:"defaultVersion"`
	Token          string   `json:"token"`
	Reference      string   `json:"reference"`
}

func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	cfg := pageConfig{Versions: h.src.Versions(), DefaultVersion: h.src.DefaultVersion(),
		Token: h.src.DevToken(), Reference: ReferencePath}
	b, err := json.Marshal(cfg)
	if err != nil {
		writeMessage(w, http.StatusInternalServerError, err.Error())
		return
	}
	var out bytes.Buffer
	if err := page().Execute(&out, map[string]any{"Config": string(b), "Versions": cfg.Versions,
		"Default": cfg.DefaultVersion, "Token": cfg.Token}); err != nil {
		writeMessage(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(out.Bytes())
}

func (h *handler) reference(w http.ResponseWriter, r *http.Request) {
	version := r.URL.Query().Get("version")
	if version == "" {
		version = h.src.DefaultVersion()
	}
	served := false
	for _, v := range h.src.Versions() {
		served = served || v == version
	}
	if !served {
		writeMessage(w, http.StatusNotFound, "API version "+version+" is not served")
		return
	}
	b, err := h.src.Reference(version)
	if err != nil {
		writeMessage(w, http.StatusInternalServerError, "rendering the reference document: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// contentTypes are the types of the files the page loads.
var contentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".txt": "text/plain; charset=utf-8",
}

// serveAsset serves an embedded file. The viewer's large files are stored
// gzipped: they go out as they are to a browser that accepts gzip (every
// one does), and are unpacked for a client that does not.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" || strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
		writeMessage(w, http.StatusNotFound, "no asset "+name)
		return
	}
	ct := contentTypes[path.Ext(name)]
	if ct == "" {
		ct = "text/plain; charset=utf-8"
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	if b, err := files.ReadFile("assets/" + name + ".gz"); err == nil {
		h.Set("Content-Type", ct)
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			_, _ = w.Write(b)
			return
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			writeMessage(w, http.StatusInternalServerError, err.Error())
			return
		}
		_, _ = io.Copy(w, zr)
		return
	}
	var b []byte
	var err error
	if name == "page.js" {
		b, err = files.ReadFile(name)
	} else {
		b, err = files.ReadFile("assets/" + name)
	}
	if err != nil {
		writeMessage(w, http.StatusNotFound, "no asset "+name)
		return
	}
	h.Set("Content-Type", ct)
	_, _ = w.Write(b)
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
				return true
			}
		}
	}
	return false
}

func writeMessage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
