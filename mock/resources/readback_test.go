package resources

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// What a client writes, it reads back (CONTRACT.md, the service's JSON
// habits): for every collection whose items the fake creates, a generated
// create body (and then a generated update body, where the document has an
// update) is written, and the item is read through every view the fake
// answers for it: the create or update answer, its describe, its entry in
// the list, and every GET below the item's path (a pipeline's launch).
// Every value written comes back wherever the view's schema has room for
// it, and every view read twice with no write between answers the same.
// The collections are found from the document and the handler table, so
// the test covers both documents without naming a resource.
func TestReadBack(t *testing.T) {
	docs := []struct {
		name string
		doc  func(testing.TB) *spec.Document
		// limit is how many collections a run under the race detector
		// takes (0: all): the published schema's first calls compile
		// their schemas, ten times slower there, and a sample finds data
		// races as well as the whole.
		limit int
	}{
		{"embedded", embeddedDoc, 0},
		{"published", func(tb testing.TB) *spec.Document {
			doc, err := spec.LoadFile(testenv.PublishedSpec(tb, ""))
			if err != nil {
				tb.Fatal(err)
			}
			return doc
		}, 3},
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			doc := d.doc(t)
			f := newFixture(t, doc, true)
			gen := synth.New(synth.WithSeed(11))
			// Only collections the fake creates items in are tried. Under
			// the race detector the published schema's are tried in a
			// strided order (every stride-th, then the ones after each) and
			// the sweep stops once limit of them took a write, so a
			// collection added to the document or the table moves the
			// sample but cannot shrink it below limit.
			var colls []*Collection
			for _, c := range f.svc.colls {
				if c.create != nil && !c.opaqueCreate {
					colls = append(colls, c)
				}
			}
			want := len(colls)
			if testenv.RaceEnabled && d.limit > 0 && len(colls) > d.limit {
				stride := (len(colls) + d.limit - 1) / d.limit
				var order []*Collection
				for off := 0; off < stride; off++ {
					for i := off; i < len(colls); i += stride {
						order = append(order, colls[i])
					}
				}
				t.Logf("under -race: %d of %d collections that take a create (every %dth first)", d.limit, len(colls), stride)
				colls, want = order, d.limit
			}
			written, checked := 0, 0
			for _, c := range colls {
				if written == want {
					break
				}
				rb := &readBack{t: t, f: f, c: c, gen: gen}
				n, ok := rb.run()
				if ok {
					written++
					checked += n
				}
			}
			// A sweep that wrote nothing would prove nothing.
			if written < min(3, want) {
				t.Errorf("only %d collections took a create", written)
			}
			t.Logf("%d collections written and read back; %d values compared", written, checked)
		})
	}
}

type readBack struct {
	t   *testing.T
	f   *fixture
	c   *Collection
	gen *synth.Generator
}

// run creates an item, reads it back, updates it and reads it back again.
// It reports the number of values compared, and false when the fake could
// not place an item (a parent the seed does not hold).
func (rb *readBack) run() (int, bool) {
	t, c := rb.t, rb.c
	vars, ok := rb.parents()
	if !ok {
		t.Logf("%s: no parent to create under; skipped", c.listPath)
		return 0, false
	}
	coll := Concrete(c.listPath, vars)
	before := rb.ids(coll)
	create := rb.build(c.create, vars)
	resp, err := rb.do(c.create, vars, create.Query, create.Body)
	if err != nil {
		// A generated body the fake refuses (a duplicate name, a
		// reference to nothing) is not this test's concern.
		t.Logf("%s: create refused: %v", c.create.ID, err)
		return 0, false
	}
	var id string
	for _, r := range rb.ids(coll) {
		if !slices.Contains(before, r) {
			id = r
		}
	}
	if id == "" {
		t.Errorf("%s: answered %d but stored no item", c.create.ID, resp.Status)
		return 0, false
	}
	vars = cloneVars(vars)
	vars[c.param] = id
	wrote := rb.itemValues(c.create, create.Body)
	n := rb.views(c.create, vars, create.Query, wrote, resp)
	if c.update == nil {
		return n, true
	}
	upd := rb.build(c.update, vars)
	q := mergeQuery(create.Query, upd.Query)
	resp, err = rb.do(c.update, vars, q, upd.Body)
	if err != nil {
		t.Logf("%s: update refused: %v", c.update.ID, err)
		return n, true
	}
	for k, v := range rb.itemValues(c.update, upd.Body) {
		if k == "name" && c.nameKey {
			continue // the name is the item's address, which an update keeps
		}
		wrote[k] = v
	}
	return n + rb.views(c.update, vars, q, wrote, resp), true
}

// build makes a call for op with a body that sets as much as it can: the
// members of a few generated bodies together (a generated body leaves out
// some optional members, and a value left out is a value not checked).
func (rb *readBack) build(op *spec.Operation, vars map[string]string) *callgen.Call {
	var call *callgen.Call
	union := map[string]any{}
	for i := range 3 {
		c, err := callgen.Build(op, rb.gen, fmt.Sprintf("readback %s %d", op.ID, i), callgen.WithPathValues(vars))
		if err != nil {
			rb.t.Fatalf("%s: building a call: %v", op.ID, err)
		}
		if call == nil {
			call = c
		}
		m, err := DecodeObject(c.Body)
		if err != nil || len(c.Body) == 0 {
			return call
		}
		for k, v := range m {
			if _, have := union[k]; !have {
				union[k] = v
			}
		}
	}
	b, err := json.Marshal(union)
	if err != nil {
		rb.t.Fatal(err)
	}
	call.Body = rb.nameHeld(b, call.Query)
	return call
}

// parents finds, for a nested collection, an item the seed holds for each
// id in the list path (the org of /orgs/{orgId}/workspaces).
func (rb *readBack) parents() (map[string]string, bool) {
	vars := map[string]string{}
	segs := strings.Split(rb.c.listPath, "/")
	for i, seg := range segs {
		if !IsParamSeg(seg) {
			continue
		}
		prefix := strings.Join(segs[:i+1], "/")
		var owner *Collection
		for _, o := range rb.f.svc.colls {
			if _, same := sameShape(o.itemPath, prefix); same {
				owner = o
			}
		}
		if owner == nil {
			return nil, false
		}
		ids := rb.ids(Concrete(owner.listPath, renamed(vars, owner, prefix)))
		if len(ids) == 0 {
			return nil, false
		}
		vars[strings.Trim(seg, "{}")] = ids[0]
	}
	return vars, true
}

// renamed gives the values found so far under the names the owner's own
// path uses for them.
func renamed(vars map[string]string, owner *Collection, prefix string) map[string]string {
	names, _ := sameShape(prefix, owner.itemPath)
	out := map[string]string{}
	for mine, theirs := range names {
		out[theirs] = vars[mine]
	}
	return out
}

func (rb *readBack) ids(coll string) []string {
	recs, err := rb.f.store.List(coll)
	if err != nil {
		rb.t.Fatal(err)
	}
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.ID)
	}
	sort.Strings(out)
	return out
}

func (rb *readBack) do(op *spec.Operation, vars map[string]string, q url.Values, body []byte) (*handler.Response, error) {
	h := rb.f.Handler(op)
	if h == nil {
		rb.t.Fatalf("%s has no handler", op.ID)
	}
	req := &handler.Request{HTTP: httptest.NewRequest(op.Method, "/x", nil), Version: "1", Op: op,
		PathParams: vars, Query: q, Body: body, TokenID: 1, Now: rb.f.clk.Now(),
		Key: fmt.Sprintf("%s %v %v #%s", op.ID, vars, q, body)}
	return h(req)
}

// itemValues is what a body sets on the item: the member named like the
// item when the body wraps it, else the body; without nulls (a null sets
// nothing) and without what the request schema marks writeOnly (secrets
// are never read back).
func (rb *readBack) itemValues(op *spec.Operation, body []byte) map[string]any {
	m, err := DecodeObject(body)
	if err != nil {
		rb.t.Fatal(err)
	}
	req := RequestSchema(op)
	if rb.c.itemKey != "" {
		if inner, ok := m[rb.c.itemKey].(map[string]any); ok {
			m, req = inner, req.Prop(rb.c.itemKey)
		}
	}
	m = jsonvalue.DropNulls(normalJSON(rb.t, m)).(map[string]any)
	fit.HideWriteOnly(req, m, 0)
	delete(m, rb.c.idProp)
	return m
}

// views reads the item through every view, twice each, and checks that
// each shows what was written. first is the answer of the write itself.
func (rb *readBack) views(wop *spec.Operation, vars map[string]string, q url.Values, wrote map[string]any, first *handler.Response) int {
	t, c := rb.t, rb.c
	after, n := wop.ID, 0
	var items []shown
	if first != nil && first.Body != nil {
		body := rb.body(first)
		n += rb.compare(after+" answer", SuccessSchema(wop), body, wrote)
		items = append(items, rb.itemOf(after+" answer", SuccessSchema(wop), body))
	}
	defer func() { rb.agree("after "+after, items) }()
	reads := rb.readOps()
	for _, op := range reads {
		label := op.ID + " after " + after
		var bodies []any
		for range 2 {
			resp, err := rb.do(op, vars, readQuery(op, q), nil)
			if err != nil {
				t.Errorf("%s: %v", label, err)
				return n
			}
			bodies = append(bodies, rb.body(resp))
		}
		if !reflect.DeepEqual(bodies[0], bodies[1]) {
			t.Errorf("%s: two reads with no write between differ: %s", label, diffJSON(bodies[0], bodies[1]))
		}
		sch, item := SuccessSchema(op), bodies[0]
		if op == c.list {
			sch, item = rb.entry(bodies[0], vars[c.param])
			if item == nil {
				t.Errorf("%s: the list does not hold item %s", label, vars[c.param])
				continue
			}
		}
		n += rb.compare(label, sch, item, wrote)
		if op == c.describe || op == c.list {
			items = append(items, rb.itemOf(op.ID, sch, item))
		}
	}
	return n
}

// readOps are the GETs that show the item: its describe, its list, and
// every GET the fake answers below the item's path with no further id.
func (rb *readBack) readOps() []*spec.Operation {
	c := rb.c
	var out []*spec.Operation
	for _, op := range []*spec.Operation{c.describe, c.list} {
		if op != nil {
			out = append(out, op)
		}
	}
	for _, op := range rb.f.doc.Operations {
		rest, below := strings.CutPrefix(op.Path, c.itemPath+"/")
		if op.Method != "GET" || !below || strings.Contains(rest, "{") || rb.f.svc.Handlers()[op] == nil {
			continue
		}
		if s := SuccessSchema(op); !s.IsObject() {
			continue
		}
		out = append(out, op)
	}
	return out
}

// readQuery is the query a read of the item takes: the workspace it was
// written in, where the operation takes one, and a page holding all items.
func readQuery(op *spec.Operation, written url.Values) url.Values {
	q := url.Values{}
	if hasQueryParam(op, "workspaceId") && written.Get("workspaceId") != "" {
		q.Set("workspaceId", written.Get("workspaceId"))
	}
	if hasQueryParam(op, "max") {
		q.Set("max", "100")
	}
	return q
}

// entry finds the item's entry in a list answer, and its schema.
func (rb *readBack) entry(answer any, id string) (*spec.Schema, any) {
	c := rb.c
	for _, e := range list(answer, c.listKey) {
		item := e
		if c.itemKey != "" {
			if inner, ok := get(e, c.itemKey).(map[string]any); ok {
				item = inner
			}
		}
		idProp := c.idProp
		if c.nameKey {
			idProp = "name"
		}
		if fmt.Sprint(get(item, idProp)) == id {
			return c.entry, e
		}
	}
	return nil, nil
}

// compare checks that every written value is in the view where the view
// could hold it: its schema has the property and the view with the value
// laid in would still be valid (a discriminator the view's schema maps to
// no branch could never be shown). It returns how many values it compared.
// A view that wraps the item ({"pipeline": {...}}) is looked into. What
// the fake keeps itself (serverFields) is not the client's to set.
func (rb *readBack) compare(label string, sch *spec.Schema, view any, wrote map[string]any) int {
	if inner, ok := get(view, rb.c.itemKey).(map[string]any); ok && rb.c.itemKey != "" {
		view, sch = inner, sch.Prop(rb.c.itemKey)
	}
	ft := rb.f.svc.fit
	n := 0
	var walk func(path string, s *spec.Schema, w, got any)
	walk = func(path string, s *spec.Schema, w, got any) {
		wm, isMap := w.(map[string]any)
		gm, _ := got.(map[string]any)
		if !isMap || gm == nil {
			n++
			// An answer writes null for what was not written (inside a
			// written list's objects too): null and absent are the same.
			if !reflect.DeepEqual(w, jsonvalue.DropNulls(jsonvalue.Clone(got))) {
				rb.t.Errorf("%s: %s = %s, wrote %s", label, strings.TrimPrefix(path, "."), compact(got), compact(w))
			}
			return
		}
		for k, v := range wm {
			p := s.Prop(k)
			if p == nil || p.ReadOnly() || p.WriteOnly() || path == "" && slices.Contains(serverFields, k) {
				continue
			}
			trial := jsonvalue.Clone(gm).(map[string]any)
			trial[k] = laid(trial[k], v)
			if !ft.Fits(s, trial) {
				continue
			}
			walk(path+"."+k, p, v, gm[k])
		}
	}
	walk("", sch, wrote, view)
	// A written reference (credentialsId) names what the view shows for
	// it (the data link's credentials), where the view has an object for it.
	vm, _ := view.(map[string]any)
	for k, v := range wrote {
		stem, isRef := strings.CutSuffix(k, "Id")
		if !isRef || stem == "" {
			continue
		}
		for _, name := range []string{stem, stem + "s"} {
			shown := vm[name]
			if l, ok := shown.([]any); ok {
				if len(l) != 1 {
					rb.t.Errorf("%s: %s holds %d entries for the one %s written", label, name, len(l), k)
					continue
				}
				shown = l[0]
			}
			if got, ok := shown.(map[string]any); ok && got["id"] != nil {
				n++
				if !reflect.DeepEqual(got["id"], v) {
					rb.t.Errorf("%s: %s.id = %s, wrote %s %s", label, name, compact(got["id"]), k, compact(v))
				}
			}
		}
	}
	// What the service derives from what was written (a pipeline's
	// repository from its launch).
	for name, v := range derive(wrote) {
		if _, has := vm[name]; has && sch.Prop(name) != nil {
			n++
			if !reflect.DeepEqual(vm[name], v) {
				rb.t.Errorf("%s: %s = %s, derived from what was written: %s", label, name, compact(vm[name]), compact(v))
			}
		}
	}
	return n
}

// agree checks that the views of one item (the write's answer, the
// describe, the list entry) show the same values for the properties they
// share, where a view's value could stand in the other: what the fake made
// up for the item is fixed, not drawn again for each shape.
func (rb *readBack) agree(label string, items []shown) {
	ft := rb.f.svc.fit
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			a, b := items[i], items[j]
			for k, av := range a.item {
				bv, ok := b.item[k]
				if !ok || reflect.DeepEqual(av, bv) {
					continue
				}
				if !ft.Fits(b.schema.Prop(k), av) || !ft.Fits(a.schema.Prop(k), bv) {
					continue // shapes that cannot show each other's value
				}
				rb.t.Errorf("%s: %s says %s = %s, %s says %s", label, a.view, k, compact(av), b.view, compact(bv))
			}
		}
	}
}

// shown is one view of an item: the item's object in it and its schema.
type shown struct {
	view   string
	schema *spec.Schema
	item   map[string]any
}

// itemOf finds the item's object in a view (inside its wrapper, if any).
func (rb *readBack) itemOf(view string, sch *spec.Schema, body any) shown {
	if inner, ok := get(body, rb.c.itemKey).(map[string]any); ok && rb.c.itemKey != "" {
		return shown{view, sch.Prop(rb.c.itemKey), inner}
	}
	m, _ := body.(map[string]any)
	return shown{view, sch, m}
}

// laid is have with the written value laid over it, member by member.
func laid(have, w any) any {
	wm, ok := w.(map[string]any)
	hm, _ := have.(map[string]any)
	if !ok || hm == nil {
		return jsonvalue.Clone(w)
	}
	out := jsonvalue.Clone(hm).(map[string]any)
	for k, v := range wm {
		out[k] = laid(out[k], v)
	}
	return out
}

func (rb *readBack) body(resp *handler.Response) any {
	return normalJSON(rb.t, json.RawMessage(resourcestest.Encode(rb.t, resp)))
}

// normalJSON decodes v's JSON form into plain values (float64 numbers), so
// a written value and a read one compare equal when they say the same.
func normalJSON(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// diffJSON names the first top-level members that differ.
func diffJSON(a, b any) string {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	var out []string
	for k := range am {
		if !reflect.DeepEqual(am[k], bm[k]) {
			out = append(out, fmt.Sprintf("%s: %s then %s", k, compact(am[k]), compact(bm[k])))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func cloneVars(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func mergeQuery(a, b url.Values) url.Values {
	out := url.Values{}
	for _, q := range []url.Values{a, b} {
		for k, v := range q {
			out[k] = v
		}
	}
	return out
}

// nameHeld makes a generated body's references name records the fake
// holds in the context the query gives (fixture.heldRefs).
func (rb *readBack) nameHeld(body []byte, q url.Values) []byte {
	m, err := DecodeObject(body)
	if err != nil || len(body) == 0 {
		return body
	}
	var ws *int64
	if v, err := strconv.ParseInt(q.Get("workspaceId"), 10, 64); err == nil {
		ws = &v
	}
	rb.f.heldRefs(rb.c, m, ws)
	b, err := json.Marshal(m)
	if err != nil {
		rb.t.Fatal(err)
	}
	return b
}
