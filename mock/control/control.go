// Package control serves the fake's own endpoints under /_mock/: readiness,
// the document being served, and why an Error ID was given. They sit
// outside the service's API on purpose: no token, no rate limit, and their
// answers are the fake's, not the service's.
package control

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/control/docs"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Prefix is where the control endpoints live.
const Prefix = "/_mock/"

// Backend is what the control endpoints need from the server.
type Backend interface {
	// Ready reports whether the server answers API calls.
	Ready() bool
	// Versions lists the served API versions, and DefaultVersion the one a
	// call without Accept-Version gets.
	Versions() []string
	DefaultVersion() string
	// Document returns the document served as a version.
	Document(version string) (*spec.Document, bool)
	// ErrorEntry returns what the fake recorded about an Error ID.
	ErrorEntry(id string) (apierror.Entry, bool)
}

// New returns the handler for every path under Prefix.
func New(b Backend) http.Handler {
	h := &handlers{b: b}
	r := mux.NewRouter()
	r.HandleFunc("/_mock/health", h.health).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/_mock/openapi.yaml", h.document("yaml")).Methods(http.MethodGet)
	r.HandleFunc("/_mock/openapi.json", h.document("json")).Methods(http.MethodGet)
	r.HandleFunc("/_mock/errors/{id}", h.errorEntry).Methods(http.MethodGet)
	if ab, ok := b.(AdminBackend); ok {
		registerAdmin(r, ab) // admin.go
	}
	// A Backend that can render reference documents also gets the
	// reference page (docs/).
	if src, ok := b.(docs.Source); ok {
		r.PathPrefix(docs.Prefix).Handler(docs.New(src))
	}
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, message("no control endpoint "+r.Method+" "+r.URL.Path))
	})
	r.MethodNotAllowedHandler = r.NotFoundHandler
	return r
}

type handlers struct{ b Backend }

type healthBody struct {
	Status         string   `json:"status"`
	Error          string   `json:"error,omitempty"`
	Versions       []string `json:"versions"`
	DefaultVersion string   `json:"defaultVersion"`
	// BasePath is where the API is mounted (/api by default), so a client
	// given the wrong path can say where the API is. "" is the root;
	// absent when the backend does not say.
	BasePath *string `json:"basePath,omitempty"`
}

// basePather is a Backend that says where the API is mounted.
type basePather interface{ BasePath() string }

func (h *handlers) health(w http.ResponseWriter, _ *http.Request) {
	if !h.b.Ready() {
		writeJSON(w, http.StatusServiceUnavailable, healthBody{Status: "starting"})
		return
	}
	// A backend whose state lives elsewhere (a shared store) says when it
	// cannot reach it; a load balancer then sends calls to other replicas.
	if u, ok := h.b.(interface{ Unhealthy() error }); ok {
		if err := u.Unhealthy(); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, healthBody{Status: "unhealthy", Error: err.Error()})
			return
		}
	}
	body := healthBody{Status: "ok", Versions: h.b.Versions(), DefaultVersion: h.b.DefaultVersion()}
	if bp, ok := h.b.(basePather); ok {
		p := bp.BasePath()
		body.BasePath = &p
	}
	writeJSON(w, http.StatusOK, body)
}

// document serves the OpenAPI document of ?version= (default: the default
// version), so clients and the conformance suite validate against exactly
// what the fake serves.
func (h *handlers) document(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		version := r.URL.Query().Get("version")
		if version == "" {
			version = h.b.DefaultVersion()
		}
		doc, ok := h.b.Document(version)
		if !ok {
			writeJSON(w, http.StatusNotFound, message("API version "+version+" is not served"))
			return
		}
		var (
			b           []byte
			err         error
			contentType string
		)
		if format == "json" {
			contentType = "application/json"
			b, err = doc.JSON()
		} else {
			contentType = "application/yaml"
			b, err = doc.YAML()
		}
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, message("rendering the document: "+err.Error()))
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

func (h *handlers) errorEntry(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	e, ok := h.b.ErrorEntry(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, message("no error recorded with ID "+id+" (the journal keeps the most recent ones)"))
		return
	}
	writeJSON(w, http.StatusOK, e)
}

type msg struct {
	Message string `json:"message"`
}

func message(s string) msg { return msg{Message: s} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
