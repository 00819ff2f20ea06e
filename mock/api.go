package mock

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
	"github.com/wmsmock/wmsmock/profile"
)

// api is one served version: its document, router, validator and the
// handlers that answer its operations.
type api struct {
	version  string
	basePath string
	doc      *spec.Document
	// routers holds one router per method and path length (see routeKey).
	routers   map[routeKey]*mux.Router
	validator *validate.Validator
	synth     *synthesizer
	// handlers answer operations with the service's own behaviour (state);
	// operations without one get a synthesized answer.
	handlers map[*spec.Operation]handler.Func
	// external marks the handlers given with WithHandler.
	external map[*spec.Operation]bool
	// literal finds the operations whose paths hold no parameter by
	// method and escaped path, without a router: literal templates win
	// over parameterized ones anyway, and they include the busiest calls
	// (list, launch).
	literal map[string]*spec.Operation
}

func newAPI(version string, doc *spec.Document, basePath string, seed int64, p *profile.Profile) (*api, error) {
	a := &api{
		version:   version,
		basePath:  basePath,
		doc:       doc,
		routers:   map[routeKey]*mux.Router{},
		validator: validate.New(doc, basePath, validate.WithRegexpEngine(synth.RegexpEngine)),
		handlers:  map[*spec.Operation]handler.Func{},
		external:  map[*spec.Operation]bool{},
		literal:   map[string]*spec.Operation{},
	}
	a.synth = newSynthesizer(a, synth.New(synth.WithSeed(seed)))
	// Operations come in route order (literal segments before parameters),
	// and mux tries routes in the order they were added.
	for _, op := range doc.Operations {
		k := routeKeyOf(op.Method, op.Path, true)
		r := a.routers[k]
		if r == nil {
			// Routes match the escaped path: an encoded "/" inside a
			// segment belongs to that segment, as it does on the wire.
			r = mux.NewRouter().UseEncodedPath()
			a.routers[k] = r
		}
		r.NewRoute().Path(basePath + op.Path).Methods(op.Method).Handler(opRoute{op})
		if !strings.Contains(op.Path, "{") {
			a.literal[op.Method+" "+basePath+op.Path] = op
		}
	}
	return a, nil
}

// routeKey groups routes that could match the same call. mux tries a
// router's routes one by one, each with a regular expression, which cost a
// tenth of a call on the published schema's 252 operations. A path
// parameter never spans a slash, so a call can only match a template of its
// own method and number of segments, and whose first segment is the call's
// or a parameter. Grouping by all three leaves one or two routes to try.
type routeKey struct {
	method   string
	segments int
	// head is the first segment below the base path; "" for templates
	// whose first segment holds a parameter.
	head string
}

// routeKeyOf gives the key of a path below the base path. For a template,
// a first segment that holds a parameter ("{id}", "v{n}") gives an empty
// head.
func routeKeyOf(method, path string, template bool) routeKey {
	head, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if template && strings.Contains(head, "{") {
		head = ""
	}
	return routeKey{strings.ToUpper(method), strings.Count(path, "/"), head}
}

// opRoute lets a mux route carry its operation; it is never served.
type opRoute struct{ op *spec.Operation }

func (opRoute) ServeHTTP(http.ResponseWriter, *http.Request) {}

// match finds the operation a call addresses, and its path parameters
// (unescaped). It works on the escaped path, so "%2F" never acts as a
// separator: /api/workflow/ID%2Fcancel names a run called "ID/cancel",
// which does not exist, rather than cancelling run ID.
func (a *api) match(r *http.Request) (*spec.Operation, map[string]string, bool) {
	path := r.URL.EscapedPath()
	if op, ok := a.literal[r.Method+" "+path]; ok {
		return op, map[string]string{}, true
	}
	if a.basePath != "" && !strings.HasPrefix(path, a.basePath+"/") {
		return nil, nil, false
	}
	// Routes whose first segment is literal come before those that start
	// with a parameter (the document's route order), so the call's own
	// group is tried first.
	k := routeKeyOf(r.Method, path[len(a.basePath):], false)
	for _, head := range [2]string{k.head, ""} {
		k.head = head
		router := a.routers[k]
		if router == nil {
			continue
		}
		var m mux.RouteMatch
		if !router.Match(r, &m) || m.MatchErr != nil {
			continue
		}
		if route, ok := m.Handler.(opRoute); ok {
			vars, ok := unescapeVars(m.Vars)
			return route.op, vars, ok
		}
	}
	return nil, nil, false
}

// unescapeVars decodes path parameters matched on the escaped path. A
// parameter that does not decode cannot name anything, so the call is
// treated as matching no route.
func unescapeVars(vars map[string]string) (map[string]string, bool) {
	for k, v := range vars {
		if !strings.Contains(v, "%") {
			continue
		}
		u, err := url.PathUnescape(v)
		if err != nil {
			return nil, false
		}
		vars[k] = u
	}
	return vars, true
}

// answer gives the service's behaviour where a handler exists, and a
// synthesized answer otherwise.
func (a *api) answer(req *handler.Request) (*handler.Response, error) {
	if h, ok := a.handlers[req.Op]; ok {
		return h(req)
	}
	return a.synth.answer(req)
}
