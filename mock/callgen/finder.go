package callgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// IDParam matches a path parameter that names a resource by its id:
// workflowId, orgId, run_id, id.
var IDParam = regexp.MustCompile(`\{(id|[A-Za-z0-9_]*(Id|_id|ID))\}`)

// Finder finds ids a server holds, for calls that must name what exists:
// a path's id parameters, a body's reference fields, a workspace a call
// must be given. It asks the server as a client would: it lists the
// collection an id lives in and takes the first entry's, each parameter
// before it found the same way.
//
// By default it only reads, so what it finds on one server is held by any
// other started the same way (the same document, seed and fixtures): a
// benchmark finds ids on one fake and sends them as the first call to new
// ones. With Creating it also makes an item where a collection lists
// none, and the one a deletion will remove, as a test on one server may.
type Finder struct {
	doc     *spec.Document
	gen     *synth.Generator
	send    func(*Call) (status int, body []byte)
	creates bool
	// make, when set, makes the item a deletion removes, before the
	// finder tries a POST to the collection.
	make func(listTemplate, name string, values map[string]string) (string, bool)

	known   map[string]string // concrete list path → an id in it
	byName  map[string]string // parameter name → an id found for it
	created int               // items made so far, to give each a new name
	// resolving holds the reference names being found (Ref), so that a
	// create naming its own kind does not recurse.
	resolving map[string]bool
}

// FinderOption changes what a Finder may do.
type FinderOption func(*Finder)

// Creating lets the finder make items: where a collection lists none, and
// for a deletion, the item it removes (make, when not nil, is asked
// first; it returns the new item's id).
func Creating(make func(listTemplate, name string, values map[string]string) (string, bool)) FinderOption {
	return func(f *Finder) { f.creates, f.make = true, make }
}

// NewFinder returns a finder over doc's operations that sends its calls
// with send (built with gen) and reads the status and body answered.
func NewFinder(doc *spec.Document, gen *synth.Generator, send func(*Call) (int, []byte), opts ...FinderOption) *Finder {
	f := &Finder{doc: doc, gen: gen, send: send, known: map[string]string{}, byName: map[string]string{}}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Set gives the parameter name an id the caller knows, found before any
// list is asked.
func (f *Finder) Set(name, id string) { f.byName[name] = id }

// PlaceQuery makes a call work in the personal context unless it must name
// a workspace, and then names the one the finder knows; any other id the
// call must give in its query (an organization's orgId) names one held.
func (f *Finder) PlaceQuery(op *spec.Operation, c *Call) {
	for name := range c.Query {
		if name == "workspaceId" || !IDParam.MatchString("{"+name+"}") || !requiredQuery(op, name) {
			continue
		}
		if id, ok := f.Ref(name); ok {
			c.Query.Set(name, id)
		}
	}
	if !c.Query.Has("workspaceId") {
		return
	}
	if ws, ok := f.byName["workspaceId"]; ok && requiredQuery(op, "workspaceId") {
		c.Query.Set("workspaceId", ws)
		return
	}
	c.Query.Del("workspaceId")
}

// requiredQuery reports whether op must be given the query parameter.
func requiredQuery(op *spec.Operation, name string) bool {
	for _, ps := range [][]*v3.Parameter{op.Op.Parameters, op.PathItem.Parameters} {
		for _, p := range ps {
			if p != nil && p.Name == name && p.In == "query" && p.Required != nil && *p.Required {
				return true
			}
		}
	}
	return false
}

// PathValues finds a held id for every id parameter of op's path, left to
// right, each inside the one before it. A creating finder makes the item
// a deletion removes, so that nothing another call needs (the caller's own
// token, the workspace everything else lives in) is gone before that call
// runs. ok is false when some parameter has no id to be found.
func (f *Finder) PathValues(op *spec.Operation) (values map[string]string, ok bool) {
	values = map[string]string{}
	segs := strings.Split(op.Path, "/")
	last := IDParam.FindAllString(op.Path, -1)
	for i, seg := range segs {
		if !strings.HasPrefix(seg, "{") || !IDParam.MatchString(seg) {
			continue
		}
		name := strings.Trim(seg, "{}")
		var id string
		var ok bool
		if f.creates && op.Method == http.MethodDelete && seg == last[len(last)-1] {
			id, ok = f.create(strings.Join(segs[:i], "/"), name, values)
		}
		if !ok {
			id, ok = f.find(strings.Join(segs[:i], "/"), name, values)
		}
		if !ok {
			return nil, false
		}
		values[name] = id
	}
	return values, true
}

// find returns an id held in the collection at listTemplate (its
// parameters filled from values): one listed there, else, for a creating
// finder, one created there.
func (f *Finder) find(listTemplate, name string, values map[string]string) (string, bool) {
	list := fill(listTemplate, values)
	if id, ok := f.known[list]; ok {
		return id, true
	}
	methods := []string{http.MethodGet}
	if f.creates {
		methods = append(methods, http.MethodPost)
	}
	for _, method := range methods {
		if id, ok := f.ask(method, listTemplate, name, values, "find"); ok {
			f.known[list], f.byName[name] = id, id
			return id, true
		}
	}
	if name == "userId" {
		status, body := f.send(&Call{Method: http.MethodGet, Path: "/user-info", Header: http.Header{}})
		var out struct{ User struct{ ID any } }
		if status == http.StatusOK && json.Unmarshal(body, &out) == nil && out.User.ID != nil {
			return fmt.Sprint(out.User.ID), true
		}
	}
	if operation(f.doc, http.MethodGet, listTemplate) != nil {
		return "", false // listed there, and nothing is
	}
	id, ok := f.byName[name]
	return id, ok
}

// create makes a new item in the collection at listTemplate and returns
// its id, for a call that will delete it.
func (f *Finder) create(listTemplate, name string, values map[string]string) (string, bool) {
	if f.make != nil {
		if id, ok := f.make(listTemplate, name, values); ok {
			return id, true
		}
	}
	f.created++
	return f.ask(http.MethodPost, listTemplate, name, values, fmt.Sprint(f.created))
}

// ask calls the operation at template and finds an id in its answer.
func (f *Finder) ask(method, template, name string, values map[string]string, key string) (string, bool) {
	op := operation(f.doc, method, template)
	if op == nil {
		return "", false
	}
	c, err := Build(op, f.gen, key+" "+method+" "+fill(template, values), WithPathValues(values), WithReferences(f.Ref))
	if err != nil {
		return "", false
	}
	f.PlaceQuery(op, c)
	status, body := f.send(c)
	if status/100 != 2 {
		return "", false
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return "", false
	}
	id := idIn(v, name, maxDepth)
	return id, id != ""
}

func fill(template string, values map[string]string) string {
	for k, v := range values {
		template = strings.ReplaceAll(template, "{"+k+"}", v)
	}
	return template
}

// maxDepth bounds how far idIn looks into an answer.
const maxDepth = 4

// idIn finds an id in an answer: the "id" field, or the one named like
// the parameter, of the answer itself, of the first entry of its list,
// or of an object one of those wraps ({"workflow": {"id": ...}}). Lists
// inside an entry (a run's labels) are not followed: their ids name
// something else.
func idIn(v any, name string, depth int) string {
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return ""
		}
		v = list[0]
	}
	m, ok := v.(map[string]any)
	if !ok || depth == 0 {
		return ""
	}
	for _, k := range []string{"id", name} {
		switch id := m[k].(type) {
		case string:
			if id != "" {
				return id
			}
		case float64:
			return strconv.FormatFloat(id, 'f', -1, 64)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// The object named for the parameter first: {"workflow": ...} for
	// workflowId, before {"pipelineInfo": ...}.
	own := strings.TrimSuffix(name, "Id")
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == own) != (keys[j] == own) {
			return keys[i] == own
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		if _, list := m[k].([]any); list && depth == maxDepth {
			return idIn(m[k], name, depth-1)
		}
	}
	for _, k := range keys {
		if _, obj := m[k].(map[string]any); obj {
			if id := idIn(m[k], name, depth-1); id != "" {
				return id
			}
		}
	}
	return ""
}

func operation(doc *spec.Document, method, template string) *spec.Operation {
	for _, op := range doc.Operations {
		if op.Method == method && op.Path == template {
			return op
		}
	}
	return nil
}

// Ref finds a held id for a body field that names records (computeEnvId,
// labelIds), in the collection a path parameter of that name addresses:
// the shortest such path whose list takes no other parameter. It suits
// WithReferences.
func (f *Finder) Ref(field string) (string, bool) {
	name := field
	if stem, many := strings.CutSuffix(field, "Ids"); many {
		name = stem + "Id"
	}
	if id, ok := f.byName[name]; ok {
		return id, true
	}
	if f.resolving[name] {
		return "", false // a kind whose create names its own kind
	}
	if f.resolving == nil {
		f.resolving = map[string]bool{}
	}
	f.resolving[name] = true
	defer delete(f.resolving, name)
	list := ""
	stem := strings.ToLower(strings.TrimSuffix(name, "Id"))
	for _, op := range f.doc.Operations {
		prefix, ok := strings.CutSuffix(op.Path, "/{"+name+"}")
		// The kind the field names (a launch's sessionId is not a studio).
		kind := strings.ToLower(strings.ReplaceAll(prefix[strings.LastIndex(prefix, "/")+1:], "-", ""))
		if ok && strings.HasPrefix(kind, stem) && !strings.Contains(prefix, "{") && (list == "" || len(prefix) < len(list)) {
			list = prefix
		}
	}
	if list == "" {
		return "", false
	}
	return f.find(list, name, map[string]string{})
}
