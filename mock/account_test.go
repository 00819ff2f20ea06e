package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// The seeded account, walked as a person would: list, describe what is
// listed, follow what the answers refer to. Everything here is found from
// the document: the list operations, their describe calls, and which
// fields refer to another resource.

// seededContext fills the query parameters a list requires that name the
// seeded organization and workspace.
var seededContext = map[string]string{"orgId": "1001", "workspaceId": "2001"}

// listCall is a list operation and the describe operation next to it.
type listCall struct {
	list     *spec.Operation
	key      string          // the answer's array of entries
	describe *spec.Operation // GET list/{param}, nil when the document has none
	param    string
}

// listCalls finds every GET without path parameters whose answer holds an
// array of objects, and whose required query parameters the seeded
// context can fill.
func listCalls(doc *spec.Document) []listCall {
	byPath := map[string]*spec.Operation{}
	for _, op := range doc.Operations {
		if op.Method == "GET" {
			byPath[op.Path] = op
		}
	}
	var out []listCall
	for _, op := range doc.Operations {
		if op.Method != "GET" || strings.Contains(op.Path, "{") || !spec.IsJSON(op.Success.MediaType) || op.Success.Schema == nil {
			continue
		}
		if _, ok := seededQuery(op); !ok {
			continue
		}
		key := arrayOfObjects(op.Success.Schema.Schema())
		if key == "" {
			continue
		}
		lc := listCall{list: op, key: key}
		for path, d := range byPath {
			rest, ok := strings.CutPrefix(path, op.Path+"/{")
			if ok && strings.HasSuffix(rest, "}") && !strings.Contains(rest, "/") {
				lc.describe, lc.param = d, strings.TrimSuffix(rest, "}")
			}
		}
		out = append(out, lc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].list.Path < out[j].list.Path })
	return out
}

// seededQuery gives the required query parameters' values, or false
// when one is not part of the seeded context.
func seededQuery(op *spec.Operation) (url.Values, bool) {
	q := url.Values{}
	all := op.Op.Parameters
	if op.PathItem != nil {
		all = append(append(all[:0:0], op.PathItem.Parameters...), op.Op.Parameters...)
	}
	for _, p := range all {
		if p == nil || p.In != "query" || p.Required == nil || !*p.Required {
			continue
		}
		v, ok := seededContext[p.Name]
		if !ok {
			return nil, false
		}
		q.Set(p.Name, v)
	}
	return q, true
}

// arrayOfObjects names the answer's property holding an array of objects.
func arrayOfObjects(s *base.Schema) string {
	if s == nil || s.Properties == nil {
		return ""
	}
	for name, p := range s.Properties.FromOldest() {
		ps := p.Schema()
		if ps == nil || ps.Items == nil || !ps.Items.IsA() {
			continue
		}
		if it := ps.Items.A.Schema(); it != nil && it.Properties != nil && it.Properties.Len() > 0 {
			return name
		}
	}
	return ""
}

// refSet is what the document says answers refer to: the parameters
// that name an item (computeEnvId, userId, roleName, versionId) with the
// path template that describes one, and which of them are required query
// parameters of that describe call.
type refSet struct {
	paths map[string]string // param -> GET template
	query map[string][]string
	// strings are the parameters typed as strings in their path, which a
	// bare property named for the item (platform: "aws-batch") may hold.
	strings map[string]bool
}

// references finds every GET P/{xId} (or {xName}) where P's last literal
// segment names x (compute-envs, launch, users, versions, roles): the
// shortest such path per parameter. A parameter named otherwise (the
// sessionId of a studio, which a run's Nextflow sessionId is not) is not
// taken for a reference.
func references(doc *spec.Document) refSet {
	rs := refSet{paths: map[string]string{}, query: map[string][]string{}, strings: map[string]bool{}}
	for _, op := range doc.Operations {
		if op.Method != "GET" || !spec.IsJSON(op.Success.MediaType) {
			continue
		}
		path := op.Path
		i := strings.LastIndex(path, "/")
		last := path[i+1:]
		if i <= 0 || !strings.HasPrefix(last, "{") || strings.HasPrefix(path[strings.LastIndex(path[:i], "/")+1:], "{") {
			continue
		}
		param := strings.Trim(last, "{}")
		if !namedFor(param, path[:i]) {
			continue
		}
		if cur, ok := rs.paths[param]; ok && len(cur) <= len(path) {
			continue
		}
		rs.paths[param] = path
		rs.query[param] = nil
		for _, p := range params(op) {
			if p.In == "query" && p.Required != nil && *p.Required {
				rs.query[param] = append(rs.query[param], p.Name)
			}
			if p.In == "path" && p.Name == param && p.Schema != nil {
				if s := p.Schema.Schema(); s != nil && slices.Contains(s.Type, "string") {
					rs.strings[param] = true
				}
			}
		}
	}
	return rs
}

func params(op *spec.Operation) []*v3.Parameter {
	all := op.Op.Parameters
	if op.PathItem != nil {
		all = append(append(all[:0:0], op.PathItem.Parameters...), op.Op.Parameters...)
	}
	return slices.DeleteFunc(all, func(p *v3.Parameter) bool { return p == nil })
}

// hangsTogether walks every list operation of doc that needs no path
// parameter, on a fresh fake: each lists something; each listed entry's
// describe call answers 200 with the same id, and so do the lists kept
// under it (a pipeline's versions); every reference in those answers
// names an item the fake holds; and every run in them agrees with itself.
func hangsTogether(t *testing.T, doc *spec.Document) {
	srv, _ := newServer(t, doc, mock.WithStrictResponses())
	walkAccount(t, doc, srv.Handler(), nil)
}

// walkAccount lists, describes and follows the references of the account
// h serves; named, when set, hears of every reference followed, with the
// call that describes what it names.
func walkAccount(t *testing.T, doc *spec.Document, h http.Handler, named func(param, id, target string)) {
	get := func(target string) (answer, any) {
		t.Helper()
		a := call(t, h, "GET", "/api"+target, devToken, nil)
		var v any
		if a.status == 200 {
			if err := json.Unmarshal(a.body, &v); err != nil {
				t.Errorf("GET %s: %v", target, err)
			}
		}
		return a, v
	}
	w := &refWalk{t: t, refs: references(doc), get: get, resolved: map[string]bool{}, seen: map[string]string{}, named: named}
	calls := listCalls(doc)
	if len(calls) < 5 {
		t.Fatalf("found only %d list operations", len(calls))
	}
	gets := map[string]*spec.Operation{}
	for _, op := range doc.Operations {
		if op.Method == "GET" && spec.IsJSON(op.Success.MediaType) && op.Success.Schema != nil {
			gets[op.Path] = op
		}
	}
	type listed struct {
		lc      listCall
		target  string
		entries []any
	}
	var all []listed
	for _, lc := range calls {
		q, _ := seededQuery(lc.list)
		target := lc.list.Path
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		a, v := get(target)
		if a.status != 200 {
			t.Errorf("GET %s: %d %.200s", target, a.status, a.body)
			continue
		}
		entries, _ := v.(map[string]any)[lc.key].([]any)
		if len(entries) == 0 {
			t.Errorf("GET %s lists no %s on a fresh fake", target, lc.key)
			continue
		}
		all = append(all, listed{lc, target, entries})
		// What a list names is known before anything is described: an
		// entry's id fills a required query parameter named for it.
		for _, e := range entries {
			if id, ok := entryID(e, lc.param); ok && lc.param != "" {
				if _, dup := w.seen[lc.param]; !dup {
					w.seen[lc.param] = id
				}
			}
		}
		w.follow("GET "+target, v, nil)
	}
	described := 0
	for _, l := range all {
		lc := l.lc
		if lc.describe == nil {
			continue
		}
		for _, e := range l.entries {
			id, ok := entryID(e, lc.param)
			if !ok {
				t.Errorf("GET %s: an entry has no id (%s or id): %.200v", l.target, lc.param, e)
				continue
			}
			scope, _ := e.(map[string]any)
			item := strings.Replace(lc.describe.Path, "{"+lc.param+"}", url.PathEscape(id), 1)
			base := map[string]any{lc.param: id}
			// The lists kept under the item first (GET {item}/things): what
			// they list may be what the describe call needs (a region).
			under := map[string][]any{}
			for _, path := range sortedKeys(gets) {
				op := gets[path]
				rest, ok := strings.CutPrefix(path, lc.describe.Path+"/")
				if !ok || strings.ContainsAny(rest, "/{") {
					continue
				}
				key := arrayOfObjects(op.Success.Schema.Schema())
				if key == "" {
					continue
				}
				st, ok := w.withQuery(item+"/"+rest, op, []map[string]any{base, scope})
				if !ok {
					continue
				}
				sa, sv := get(st)
				if sa.status != 200 {
					t.Errorf("GET %s (under an item %s lists): %d %.200s", st, lc.list.Path, sa.status, sa.body)
					continue
				}
				sub, _ := sv.(map[string]any)[key].([]any)
				under[singularParam(rest)] = sub
				for _, se := range sub {
					if sid, ok := entryID(se, singularParam(rest)); ok {
						if _, dup := w.seen[singularParam(rest)]; !dup {
							w.seen[singularParam(rest)] = sid
						}
					}
				}
				w.follow("GET "+st, sv, base)
			}
			dt, ok := w.withQuery(item, lc.describe, []map[string]any{base, scope})
			if !ok {
				t.Errorf("GET %s: cannot fill the required query of %s", l.target, lc.describe.Path)
				continue
			}
			da, dv := get(dt)
			if da.status != 200 {
				t.Errorf("GET %s (listed by %s): %d %.200s", dt, lc.list.Path, da.status, da.body)
				continue
			}
			described++
			if got, ok := entryID(dv, lc.param); ok && got != id {
				t.Errorf("GET %s describes %s", dt, got)
			}
			w.follow("GET "+dt, dv, base)
			// What the item shows of a list kept under it is listed there
			// (the version a pipeline shows is one of its versions).
			for param, sub := range under {
				walkRefs(dv, nil, w.refs, func(p, ref string, _ []map[string]any) {
					if p != param {
						return
					}
					for _, se := range sub {
						if sid, ok := entryID(se, param); ok && sid == ref {
							return
						}
					}
					t.Errorf("GET %s shows %s %s, which GET %s/... does not list", dt, param, ref, item)
				}, nil)
			}
		}
	}
	w.flush()
	t.Logf("%d list operations, %d entries described, %d references followed, %d runs checked", len(calls), described, len(w.resolved), w.runs)
}

// singularParam is the parameter naming one of a list's things
// (versions: versionId).
func singularParam(lit string) string {
	return strings.TrimSuffix(strings.ReplaceAll(lit, "-", ""), "s") + "Id"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSeededAccountHangsTogether checks hangsTogether on both documents.
func TestSeededAccountHangsTogether(t *testing.T) {
	onDocuments(t, "a whole-schema walk: .ci/run runs it without -race", hangsTogether)
}

// onDocuments runs f on each document, leaving the published schema to
// the plain run under -race (why says what the embedded one covers).
func onDocuments(t *testing.T, why string, f func(*testing.T, *spec.Document)) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			if testenv.RaceEnabled && dc.name == "published" {
				t.Skip(why)
			}
			f(t, dc.doc(t))
		})
	}
}

// refWalk follows the references of answers and checks the runs in them.
type refWalk struct {
	t        *testing.T
	refs     refSet
	get      func(string) (answer, any)
	resolved map[string]bool
	// seen is one value of each parameter the answers so far hold, to
	// fill a describe call's required query (the credentialsId and
	// regionId a platform is described with).
	seen    map[string]string
	runs    int
	pending []func()
	named   func(param, id, target string)
}

// follow checks the references below v, an answer to from; base holds
// the parameters of the call's own path, which scope the answer.
func (w *refWalk) follow(from string, v any, base map[string]any) {
	w.pending = append(w.pending, func() { w.check(from, v, base) })
}

// flush checks what follow put off: after the walk, every parameter a
// describe call requires has been seen (a platform's regionId in the
// regions listed under it).
func (w *refWalk) flush() {
	for _, f := range w.pending {
		f()
	}
	w.pending = nil
}

func (w *refWalk) check(from string, v any, base map[string]any) {
	t := w.t
	t.Helper()
	walkRefs(v, []map[string]any{base}, w.refs, func(param, id string, scopes []map[string]any) {
		if _, dup := w.seen[param]; !dup {
			w.seen[param] = id
		}
		item := fillPath(w.refs.paths[param], param, id, scopes)
		if item == "" {
			t.Errorf("%s: %s = %s: cannot fill %s from where it stands", from, param, id, w.refs.paths[param])
			return
		}
		target, _ := w.withQuery(item, nil, scopes)
		for _, q := range w.refs.query[param] {
			if v := fromScopes(q, scopes); v != "" {
				target += sep(target) + q + "=" + url.QueryEscape(v)
			} else if v := w.seen[q]; v != "" {
				target += sep(target) + q + "=" + url.QueryEscape(v)
			}
		}
		if w.named != nil {
			w.named(param, id, target)
		}
		if done, seen := w.resolved[target]; seen {
			if !done {
				t.Errorf("%s: %s = %s names nothing (GET %s)", from, param, id, target)
			}
			return
		}
		a, _ := w.get(target)
		w.resolved[target] = a.status == 200
		if a.status != 200 {
			t.Errorf("%s: %s = %s names nothing: GET %s answers %d %.150s", from, param, id, target, a.status, a.body)
		}
	}, func(run map[string]any, scopes []map[string]any) {
		w.runs++
		for _, p := range runContradictions(run, scopes) {
			t.Errorf("%s: run %v contradicts itself: %s", from, run["id"], p)
		}
	})
}

// withQuery adds to an item path the query its describe call (op, when
// known) requires, and the workspace of the nearest object naming one.
func (w *refWalk) withQuery(item string, op *spec.Operation, scopes []map[string]any) (string, bool) {
	target := item
	if ws := fromScopes("workspaceId", scopes); ws != "" && !strings.Contains(item, "/workspaces/") {
		target += sep(target) + "workspaceId=" + ws
	}
	if op == nil {
		return target, true
	}
	for _, p := range params(op) {
		if p.In != "query" || p.Required == nil || !*p.Required || strings.Contains(target, p.Name+"=") {
			continue
		}
		v := fromScopes(p.Name, scopes)
		if v == "" {
			v = seededContext[p.Name]
		}
		if v == "" {
			v = w.seen[p.Name]
		}
		if v == "" {
			return "", false
		}
		target += sep(target) + p.Name + "=" + url.QueryEscape(v)
	}
	return target, true
}

func sep(target string) string {
	if strings.Contains(target, "?") {
		return "&"
	}
	return "?"
}

// fromScopes is the value of name in the nearest object holding it.
func fromScopes(name string, scopes []map[string]any) string {
	for i := len(scopes) - 1; i >= 0; i-- {
		if v, ok := scopes[i][name]; ok && v != nil {
			return fmt.Sprint(jsonNumber(v))
		}
	}
	return ""
}

// entryID finds an entry's id: the describe parameter's name or id (or
// name, for items named by it), at the top or in the object named for
// the item ({"workflow": {"id": ...}}), else in any object one down.
func entryID(v any, param string) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	keys := []string{param, "id"}
	if strings.HasSuffix(param, "Name") {
		keys = append(keys, "name")
	}
	find := func(m map[string]any) (string, bool) {
		for _, k := range keys {
			if id, ok := m[k]; ok && id != nil {
				return fmt.Sprint(jsonNumber(id)), true
			}
		}
		return "", false
	}
	if id, ok := find(m); ok {
		return id, true
	}
	if inner, ok := m[strings.TrimSuffix(param, "Id")].(map[string]any); ok {
		if id, ok := find(inner); ok {
			return id, true
		}
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if im, ok := m[k].(map[string]any); ok {
			if id, ok := find(im); ok {
				return id, true
			}
		}
	}
	return "", false
}

func jsonNumber(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}

// walkRefs calls found for every non-null reference below v, with the
// chain of objects holding it (nearest last), which scopes it:
//   - a property named for a reference parameter (computeEnvId), or an
//     array of them under the plural (computeEnvIds);
//   - the id of an object held under the name of the item it is
//     (computeEnv: {id}, labels: [{id}], version: {id});
//   - a string held under the name of an item a string names
//     (platform: "aws-batch").
//
// run is called for every object that is a run: one with a name, a
// status and a submission date.
func walkRefs(v any, scopes []map[string]any, refs refSet, found func(param, id string, scopes []map[string]any), run func(map[string]any, []map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		scopes = append(scopes[:len(scopes):len(scopes)], x)
		if _, ok := x["submit"]; ok && x["status"] != nil && x["runName"] != nil && run != nil {
			run(x, scopes)
		}
		for _, k := range sortedKeys(x) {
			e := x[k]
			if e == nil {
				continue
			}
			param, list := k, false
			if _, ok := refs.paths[param]; !ok && strings.HasSuffix(k, "Ids") {
				param, list = strings.TrimSuffix(k, "s"), true
			}
			if _, ok := refs.paths[param]; ok {
				switch id := e.(type) {
				case []any:
					for _, one := range id {
						if one != nil {
							found(param, fmt.Sprint(jsonNumber(one)), scopes)
						}
					}
				case map[string]any:
					walkRefs(e, scopes, refs, found, run)
				default:
					if !list {
						found(param, fmt.Sprint(jsonNumber(id)), scopes)
					}
				}
				continue
			}
			param = strings.TrimSuffix(k, "s") + "Id"
			if _, ok := refs.paths[param]; ok {
				var items []any
				switch y := e.(type) {
				case map[string]any:
					items = []any{y}
				case []any:
					items = y
				case string:
					if refs.strings[param] && k == strings.TrimSuffix(k, "s") {
						found(param, y, scopes)
					}
				}
				for _, it := range items {
					if m, ok := it.(map[string]any); ok && m["id"] != nil && m[param] == nil {
						found(param, fmt.Sprint(jsonNumber(m["id"])), scopes)
					}
				}
			}
			walkRefs(e, scopes, refs, found, run)
		}
	case []any:
		for _, e := range x {
			walkRefs(e, scopes, refs, found, run)
		}
	}
}

// fillPath fills a describe template: the reference's own parameter with
// its id, the others from the nearest object holding them, else the
// seeded context.
func fillPath(template, param, id string, scopes []map[string]any) string {
	segs := strings.Split(template, "/")
	for i, seg := range segs {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		name := strings.Trim(seg, "{}")
		v := fromScopes(name, scopes)
		switch {
		case name == param:
			segs[i] = url.PathEscape(id)
		case v != "":
			segs[i] = url.PathEscape(v)
		case seededContext[name] != "":
			segs[i] = seededContext[name]
		default:
			return ""
		}
	}
	return strings.Join(segs, "/")
}

// namedFor reports whether param (xId, xName) names the things of a path
// whose last segment is lit: x in the singular or the plural.
func namedFor(param, listPath string) bool {
	base, ok := strings.CutSuffix(param, "Id")
	if !ok {
		base, ok = strings.CutSuffix(param, "Name")
	}
	seg := listPath[strings.LastIndex(listPath, "/")+1:]
	lit := strings.ReplaceAll(seg, "-", "")
	return ok && base != "" && (strings.EqualFold(base, lit) || strings.EqualFold(base+"s", lit) ||
		strings.EqualFold(strings.TrimSuffix(base, "y")+"ies", lit))
}
