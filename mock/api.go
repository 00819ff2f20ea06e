package mock

import (
	"errors"
	"net/http"
	"strings"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
	"github.com/wmsmock/wmsmock/profile"
)

// api is one served version: its document, validator and the handlers
// that answer its operations.
type api struct {
	version   string
	basePath  string
	doc       *spec.Document
	validator *validate.Validator
	synth     *synthesizer
	// handlers answer operations with the service's own behaviour (state);
	// operations without one get a synthesized answer.
	handlers map[*spec.Operation]handler.Func
	// external marks the handlers given with WithHandler.
	external map[*spec.Operation]bool
	// lenient reads request bodies as the service does (stage_leniency.go).
	lenient *leniency.Reader
}

// newAPI builds a served version. answers says whether its answers carry
// the service's nulls: the generator then makes them, and the validator
// (strict mode's answer check, and the resources' check of stored values)
// accepts them, and nothing else beyond the document. requests says how
// request bodies are read before they are checked (lenient.go).
func newAPI(version string, doc *spec.Document, basePath string, seed int64, caches *memo.Set, answers profile.Answers, requests leniency.Policy) *api {
	lenient := leniency.New(doc, requests)
	vopts := []validate.Option{validate.WithRegexpEngine(synth.RegexpEngine), validate.WithCaches(caches), validate.WithRequestRelaxation(lenient.Relax)}
	gopts := []synth.Option{synth.WithSeed(seed), synth.WithDocument(doc)}
	if answers.WithNulls() {
		vopts = append(vopts, validate.WithNulls())
		gopts = append(gopts, synth.WithNulls())
	}
	if answers.ObjectsAsAny {
		vopts = append(vopts, validate.WithAnyObjects())
	}
	a := &api{
		version:   version,
		basePath:  basePath,
		doc:       doc,
		lenient:   lenient,
		validator: validate.New(doc, basePath, vopts...),
		handlers:  map[*spec.Operation]handler.Func{},
		external:  map[*spec.Operation]bool{},
	}
	a.synth = newSynthesizer(a.validator, synth.New(gopts...), caches)
	return a
}

// match finds the operation a call addresses, and its path parameters
// (decoded), with the document's router. It works on the escaped path, so
// "%2F" never acts as a separator: /api/workflow/ID%2Fcancel names a run
// called "ID/cancel", which does not exist, rather than cancelling run ID.
//
// A path with one trailing slash is the path without it, as the service's
// framework matches it: Nextflow calls POST /license/token/ and Seqera's
// Node-RED nodes GET /data-links/, both answered by the service. Two
// slashes, or a path the document itself writes with its slash, are left
// as they are.
func (a *api) match(r *http.Request) (*spec.Operation, map[string]string, bool) {
	path, ok := a.below(r)
	if !ok {
		return nil, nil, false
	}
	op, vars, ok := a.doc.Route(r.Method, path)
	if !ok {
		if trimmed, cut := oneTrailingSlash(path); cut {
			return a.doc.Route(r.Method, trimmed)
		}
	}
	return op, vars, ok
}

// oneTrailingSlash is path without its one trailing slash, or false when
// it does not end with exactly one (or is only "/").
func oneTrailingSlash(path string) (string, bool) {
	if len(path) < 2 || path[len(path)-1] != '/' || path[len(path)-2] == '/' {
		return path, false
	}
	return path[:len(path)-1], true
}

// below is the call's escaped path below the base path, or false when the
// call is not under it.
func (a *api) below(r *http.Request) (string, bool) {
	path := r.URL.EscapedPath()
	if a.basePath != "" {
		if !strings.HasPrefix(path, a.basePath+"/") {
			return "", false
		}
		path = path[len(a.basePath):]
	}
	return path, true
}

// unrouted is the refusal of a call match did not route: the profile's
// unknown_method reply when the path exists with other methods, else its
// unknown_route reply.
func (a *api) unrouted(r *http.Request, p *profile.Profile) error {
	if path, ok := a.below(r); ok && a.hasPath(path) {
		return apierror.Forbiddenf("%s is not a method of %s in API version %s", r.Method, r.URL.Path, a.version).
			WithReply(p.MethodReply())
	}
	return apierror.Forbiddenf("no operation %s %s in API version %s", r.Method, r.URL.Path, a.version).
		WithReply(p.UnknownRoute)
}

// hasPath reports whether the document has path, read as match reads it.
func (a *api) hasPath(path string) bool {
	if a.doc.HasPath(path) {
		return true
	}
	trimmed, cut := oneTrailingSlash(path)
	return cut && a.doc.HasPath(trimmed)
}

// handle runs the operation's handler, the service's own behaviour, where
// one exists, and synthesizes the answer otherwise, or when the handler
// leaves it to synthesis (handler.ErrSynthesize).
func (a *api) handle(req *handler.Request) (*handler.Response, error) {
	if h, ok := a.handlers[req.Op]; ok {
		resp, err := h(req)
		if !errors.Is(err, handler.ErrSynthesize) {
			return resp, err
		}
	}
	return a.synth.synthesize(req)
}
