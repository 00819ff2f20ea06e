package mock_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"

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

// references maps each parameter that names an item of a collection
// (computeEnvId, workspaceId, teamId...) to the path template that
// describes one: GET P/{xId} next to a GET P that lists, where x is what
// P's last segment names (compute-envs, workspaces, teams). A parameter
// named otherwise (the sessionId of a studio, which a run's Nextflow
// sessionId is not) is not taken for a reference.
func references(doc *spec.Document) map[string]string {
	gets := map[string]bool{}
	for _, op := range doc.Operations {
		if op.Method == "GET" {
			gets[op.Path] = true
		}
	}
	refs := map[string]string{}
	for path := range gets {
		i := strings.LastIndex(path, "/")
		last := path[i+1:]
		if !strings.HasPrefix(last, "{") || !strings.HasSuffix(last, "Id}") || !gets[path[:i]] {
			continue
		}
		param := strings.Trim(last, "{}")
		if !namedFor(param, path[:i]) || !underContext(path[:i]) {
			continue
		}
		if cur, ok := refs[param]; !ok || len(path) < len(cur) {
			refs[param] = path
		}
	}
	return refs
}

// TestSeededAccountHangsTogether walks every list operation of the
// published schema that needs no path parameter, on a fresh fake: each
// lists something; each listed entry's describe call answers 200 with the
// same id; and every reference field in those answers names an item the
// fake holds.
func TestSeededAccountHangsTogether(t *testing.T) {
	if raceEnabled {
		t.Skip("a whole-schema walk: .ci/run runs it without -race")
	}
	doc := published(t)
	srv, _ := newServer(t, doc, mock.WithStrictResponses())
	h := srv.Handler()
	refs := references(doc)
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
	resolved := map[string]bool{}
	follow := func(from string, v any) {
		t.Helper()
		walkRefs(v, "", nil, refs, func(param, id string, scope map[string]any) {
			target := fillPath(refs[param], param, id, scope)
			if target == "" {
				return
			}
			if ws, ok := scope["workspaceId"]; ok && ws != nil && param != "workspaceId" {
				target += "?workspaceId=" + fmt.Sprint(ws)
			}
			if done, seen := resolved[target]; seen {
				if !done {
					t.Errorf("%s: %s = %s names nothing (GET %s)", from, param, id, target)
				}
				return
			}
			a, _ := get(target)
			resolved[target] = a.status == 200
			if a.status != 200 {
				t.Errorf("%s: %s = %s names nothing: GET %s answers %d", from, param, id, target, a.status)
			}
		})
	}
	calls := listCalls(doc)
	if len(calls) < 20 {
		t.Fatalf("found only %d list operations in the published schema", len(calls))
	}
	described := 0
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
		follow("GET "+target, v)
		if lc.describe == nil {
			continue
		}
		for _, e := range entries {
			id, ok := entryID(e, lc.param)
			if !ok {
				t.Errorf("GET %s: an entry has no id (%s or id): %.200v", target, lc.param, e)
				continue
			}
			dq, fillable := seededQuery(lc.describe)
			if !fillable {
				break // the describe call needs what no entry gives (a region)
			}
			dt := strings.Replace(lc.describe.Path, "{"+lc.param+"}", url.PathEscape(id), 1)
			if len(dq) > 0 {
				dt += "?" + dq.Encode()
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
			follow("GET "+dt, dv)
		}
	}
	t.Logf("%d list operations, %d entries described, %d references followed", len(calls), described, len(resolved))
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

// walkRefs calls found for every non-null value of a property named like
// a reference (or an array of them, under the plural name), with the
// object holding it, which scopes it.
func walkRefs(v any, _ string, _ map[string]any, refs map[string]string, found func(param, id string, scope map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			param := k
			if _, ok := refs[param]; !ok {
				param = strings.TrimSuffix(k, "s")
				if _, ok := refs[param]; !ok || !strings.HasSuffix(k, "Ids") {
					walkRefs(e, k, x, refs, found)
					continue
				}
			}
			switch id := e.(type) {
			case nil:
			case []any:
				for _, one := range id {
					if one != nil {
						found(param, fmt.Sprint(jsonNumber(one)), x)
					}
				}
			case map[string]any:
				walkRefs(e, k, x, refs, found)
			default:
				found(param, fmt.Sprint(jsonNumber(id)), x)
			}
		}
	case []any:
		for _, e := range x {
			walkRefs(e, "", nil, refs, found)
		}
	}
}

// fillPath fills a describe template: the reference's own parameter with
// its id, the others from the object holding it, else the seeded context.
func fillPath(template, param, id string, scope map[string]any) string {
	segs := strings.Split(template, "/")
	for i, seg := range segs {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		name := strings.Trim(seg, "{}")
		switch v, ok := scope[name]; {
		case name == param:
			segs[i] = url.PathEscape(id)
		case ok && v != nil:
			segs[i] = url.PathEscape(fmt.Sprint(jsonNumber(v)))
		case seededContext[name] != "":
			segs[i] = seededContext[name]
		default:
			return ""
		}
	}
	return strings.Join(segs, "/")
}

func namedFor(param, listPath string) bool {
	base, ok := strings.CutSuffix(param, "Id")
	seg := listPath[strings.LastIndex(listPath, "/")+1:]
	lit := strings.ReplaceAll(seg, "-", "")
	return ok && base != "" && (strings.EqualFold(base, lit) || strings.EqualFold(base+"s", lit) ||
		strings.EqualFold(strings.TrimSuffix(base, "y")+"ies", lit))
}

// underContext: the list path's parameters are the seeded organization's
// or workspace's, so a lone id names the item.
func underContext(listPath string) bool {
	for _, seg := range strings.Split(listPath, "/") {
		if strings.HasPrefix(seg, "{") && seededContext[strings.Trim(seg, "{}")] == "" {
			return false
		}
	}
	return true
}
