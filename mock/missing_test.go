package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// idParam matches a path parameter that names a resource by its id:
// workflowId, orgId, run_id, id.
var idParam = regexp.MustCompile(`\{(id|[A-Za-z0-9_]*(Id|_id|ID))\}`)

// idOperations lists the operations of doc whose path names a resource by
// id, found from the document itself.
func idOperations(doc *spec.Document) []*spec.Operation {
	var out []*spec.Operation
	for _, op := range doc.Operations {
		if idParam.MatchString(op.Path) {
			out = append(out, op)
		}
	}
	return out
}

// Every operation whose path names a resource by id answers the missing-
// resource reply (403 and no body by default) for an id the fake does not
// hold, whatever the operation would otherwise do. The ids are random and
// the rest of each call is valid, so nothing but the id can be refused.
func TestUnknownIDsAreMissing(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc)
			gen := synth.New(synth.WithSeed(11))
			ops := idOperations(doc)
			if len(ops) == 0 {
				t.Fatal("the document names no resource by id; the test would prove nothing")
			}
			ops = sample(t, ops, 30)
			found := 0
			for _, op := range ops {
				c, err := callgen.Build(op, gen, "missing "+op.ID)
				if err != nil {
					t.Errorf("%s: building a call: %v", op.ID, err)
					continue
				}
				req := httptest.NewRequest(c.Method, c.URL(mock.DefaultBasePath), bytes.NewReader(c.Body))
				for k, vs := range mustHeader(c, devToken) {
					req.Header[k] = vs
				}
				rec := httptest.NewRecorder()
				srv.Handler().ServeHTTP(rec, req)
				if rec.Code != 403 || rec.Body.Len() != 0 {
					found++
					t.Errorf("%s %s (%s): %d %.200s, want the missing-resource reply", c.Method, c.Path, op.ID, rec.Code, strings.TrimSpace(rec.Body.String()))
				}
			}
			t.Logf("%d operations name a resource by id; %d answered something else", len(ops), found)
		})
	}
}

// The converse of TestUnknownIDsAreMissing: with ids the fake does hold,
// found the way a client finds them (list the parent collection, else
// create an item in it, and launch a run for a run's id), every id-named
// operation answers something other than the missing-resource reply. A
// guard that refused everything would pass the test above; not this one.
func TestKnownIDsAreFound(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc)
			f := &finder{t: t, doc: doc, h: srv.Handler(), gen: synth.New(synth.WithSeed(5)),
				known: map[string]string{}, byName: map[string]string{}}
			f.byName["workflowId"] = launchRun(t, f.h, "known-ids")
			f.byName["launchId"] = f.byName["workflowId"]

			ops := sample(t, idOperations(doc), 30)
			// Deletions last, deepest first, so nothing a later call needs
			// is gone before it runs.
			sort.SliceStable(ops, func(i, j int) bool {
				di, dj := ops[i].Method == "DELETE", ops[j].Method == "DELETE"
				if di != dj {
					return dj
				}
				return di && strings.Count(ops[i].Path, "/") > strings.Count(ops[j].Path, "/")
			})
			checked, skipped := 0, []string{}
			for _, op := range ops {
				values, ok := f.pathValues(op)
				if strings.Contains(op.Path, "{version}") {
					// A dataset's version is named by its number, which a
					// generated value does not hold.
					ok = false
				}
				if !ok {
					skipped = append(skipped, op.ID)
					continue
				}
				c, err := callgen.Build(op, f.gen, "known "+op.ID, callgen.WithPathValues(values), callgen.WithReferences(f.ref))
				if err != nil {
					t.Errorf("%s: building a call: %v", op.ID, err)
					continue
				}
				f.placeQuery(op, c)
				a := f.send(c)
				checked++
				if a.status == 403 {
					t.Errorf("%s %s (%s): 403 %.200s for ids the fake holds", c.Method, c.Path, op.ID, a.body)
				}
			}
			t.Logf("%d operations checked with known ids; no id found for %d: %v", checked, len(skipped), skipped)
			if checked < len(ops)/2 {
				t.Errorf("only %d of %d operations could be given known ids", checked, len(ops))
			}
		})
	}
}

// finder discovers ids the fake holds, as a client would.
type finder struct {
	t       *testing.T
	doc     *spec.Document
	h       http.Handler
	gen     *synth.Generator
	known   map[string]string // concrete list path → an id in it
	byName  map[string]string // parameter name → an id found for it
	created int               // items made so far, to give each a new name
	// resolving holds the reference names being found (ref), so that a
	// create naming its own kind does not recurse.
	resolving map[string]bool
}

func (f *finder) send(c *callgen.Call) answer {
	req := httptest.NewRequest(c.Method, c.URL(mock.DefaultBasePath), bytes.NewReader(c.Body))
	for k, vs := range mustHeader(c, devToken) {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return answer{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// placeQuery makes a call work in the personal context unless it must name
// a workspace, and then names the one the finder knows.
func (f *finder) placeQuery(op *spec.Operation, c *callgen.Call) {
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

// pathValues finds a held id for every id parameter of op's path, left to
// right, each inside the one before it. What a deletion removes is created
// for it, so that nothing another call needs (the caller's own token, the
// workspace everything else lives in) is gone before that call runs.
func (f *finder) pathValues(op *spec.Operation) (map[string]string, bool) {
	values := map[string]string{}
	segs := strings.Split(op.Path, "/")
	last := idParam.FindAllString(op.Path, -1)
	for i, seg := range segs {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		name := strings.Trim(seg, "{}")
		if !idParam.MatchString(seg) {
			continue
		}
		var id string
		var ok bool
		if op.Method == "DELETE" && seg == last[len(last)-1] {
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
// parameters filled from values): one listed there, else one created there.
func (f *finder) find(listTemplate, name string, values map[string]string) (string, bool) {
	list := fill(listTemplate, values)
	if id, ok := f.known[list]; ok {
		return id, true
	}
	for _, method := range []string{"GET", "POST"} {
		if id, ok := f.ask(method, listTemplate, name, values, "find"); ok {
			f.known[list], f.byName[name] = id, id
			return id, true
		}
	}
	if name == "userId" {
		a := call(f.t, f.h, "GET", "/api/user-info", devToken, nil)
		var out struct{ User struct{ ID any } }
		if a.status == 200 && json.Unmarshal(a.body, &out) == nil && out.User.ID != nil {
			return fmt.Sprint(out.User.ID), true
		}
	}
	if operation(f.doc, "GET", listTemplate) != nil {
		return "", false // listed there, and nothing is
	}
	id, ok := f.byName[name]
	return id, ok
}

// create makes a new item in the collection at listTemplate and returns its
// id, for a call that will delete it.
func (f *finder) create(listTemplate, name string, values map[string]string) (string, bool) {
	if name == "workflowId" && listTemplate == "/workflow" {
		return launchRun(f.t, f.h, "to-delete"), true
	}
	f.created++
	return f.ask("POST", listTemplate, name, values, fmt.Sprint(f.created))
}

// ask calls the operation at template and finds an id in its answer.
func (f *finder) ask(method, template, name string, values map[string]string, key string) (string, bool) {
	op := operation(f.doc, method, template)
	if op == nil {
		return "", false
	}
	c, err := callgen.Build(op, f.gen, key+" "+method+" "+fill(template, values), callgen.WithPathValues(values), callgen.WithReferences(f.ref))
	if err != nil {
		return "", false
	}
	f.placeQuery(op, c)
	a := f.send(c)
	if a.status/100 != 2 {
		return "", false
	}
	var body any
	if json.Unmarshal(a.body, &body) != nil {
		return "", false
	}
	id := idIn(body, name, maxDepth)
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

// ref finds a held id for a body field that names records (computeEnvId,
// labelIds), in the collection a path parameter of that name addresses:
// the shortest such path whose list takes no other parameter.
func (f *finder) ref(field string) (string, bool) {
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
