package mock_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Every copy of a record is the record (CONTRACT.md, what the fake may
// invent): the seeded account is walked (every list, the describe of what
// each lists, each run's launch, the user and the user's workspaces) on
// both documents and on the other published versions, and in every answer
// each object that names a held record, embedded ({"computeEnv": {"id":
// ...}}) or flat (workspaceId beside workspaceName, orgId beside orgName),
// equals that record's describe answer on the properties they share.
func TestEveryCopyIsTheRecord(t *testing.T) {
	docs := []docCase{{"embedded", embedded}, {"published", published}}
	if !testenv.RaceEnabled { // each version's first calls compile its schemas: slow under -race
		for _, v := range []string{"seqera-api-1.181.0.yaml", "seqera-api-1.140.0.yaml"} {
			docs = append(docs, docCase{v, func(tb testing.TB) *spec.Document {
				doc, err := spec.LoadFile(testenv.PublishedSpec(tb, v))
				if err != nil {
					tb.Fatal(err)
				}
				return doc
			}})
		}
	}
	for _, dc := range docs {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc)
			cw := &copyWalk{t: t, refs: references(doc), records: map[string]map[string]any{}}
			cw.get = func(target string) any {
				a := call(t, srv.Handler(), "GET", "/api"+target, devToken, nil)
				if a.status != 200 {
					return nil
				}
				var v any
				_ = json.Unmarshal(a.body, &v)
				return v
			}
			var answers []namedAnswer
			for _, lc := range listCalls(doc) {
				q, _ := seededQuery(lc.list)
				target := lc.list.Path
				if len(q) > 0 {
					target += "?" + q.Encode()
				}
				v := cw.get(target)
				if v == nil {
					continue
				}
				answers = append(answers, namedAnswer{target, v})
				entries, _ := v.(map[string]any)[lc.key].([]any)
				for i, e := range entries {
					if lc.describe == nil || i >= 3 {
						break
					}
					id, ok := entryID(e, lc.param)
					if !ok {
						continue
					}
					d := strings.Replace(lc.describe.Path, "{"+lc.param+"}", url.PathEscape(id), 1)
					if qs, _ := seededQuery(lc.describe); len(qs) > 0 {
						d += "?" + qs.Encode()
					}
					if v := cw.get(d); v != nil {
						answers = append(answers, namedAnswer{d, v})
					}
					if lc.list.Path == "/workflow" {
						if v := cw.get("/workflow/" + id + "/launch"); v != nil {
							answers = append(answers, namedAnswer{"/workflow/" + id + "/launch", v})
						}
					}
				}
			}
			for _, target := range []string{"/user-info", "/user/1/workspaces"} {
				if v := cw.get(target); v != nil {
					answers = append(answers, namedAnswer{target, v})
				}
			}
			for _, a := range answers {
				cw.walk(a.target, "", "", a.body, 0)
			}
			if cw.compared < 20 {
				t.Errorf("only %d copies compared: the walk found too few references to prove anything", cw.compared)
			}
			sort.Strings(cw.problems)
			for _, p := range cw.problems {
				t.Error(p)
			}
			t.Logf("%d answers walked, %d copies of held records compared", len(answers), cw.compared)
		})
	}
}

type namedAnswer struct {
	target string
	body   any
}

// copyWalk finds the copies of held records in answers and compares them
// with the records' describe answers.
type copyWalk struct {
	t        *testing.T
	refs     refSet
	get      func(target string) any
	records  map[string]map[string]any // describe target -> the record
	compared int
	problems []string
}

// kinds for members not named after their id parameter.
var copyAliases = map[string]string{"organization": "orgId", "org": "orgId"}

// record describes the record of the kind param names, with this id; ctx
// gives the other ids its describe path needs (a workspace's orgId).
func (cw *copyWalk) record(param string, id any, ctx map[string]any) (map[string]any, string) {
	path, ok := cw.refs.paths[param]
	if !ok || id == nil {
		return nil, ""
	}
	target := strings.Replace(path, "{"+param+"}", url.PathEscape(fmt.Sprint(id)), 1)
	for _, seg := range strings.Split(target, "/") {
		if strings.HasPrefix(seg, "{") {
			name := strings.Trim(seg, "{}")
			v := ctx[name]
			if v == nil {
				v = seededContext[name]
			}
			target = strings.Replace(target, seg, fmt.Sprint(v), 1)
		}
	}
	q := url.Values{}
	for _, name := range cw.refs.query[param] {
		v := ctx[name]
		if v == nil {
			v = seededContext[name]
		}
		q.Set(name, fmt.Sprint(v))
	}
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	if r, seen := cw.records[target]; seen {
		return r, target
	}
	v, _ := cw.get(target).(map[string]any)
	// A describe answer wraps its record ({"computeEnv": {...}}).
	if len(v) == 1 {
		for _, inner := range v {
			if m, ok := inner.(map[string]any); ok {
				v = m
			}
		}
	}
	cw.records[target] = v
	return v, target
}

func (cw *copyWalk) walk(where, path, key string, v any, depth int) {
	if depth > 12 {
		return
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			cw.walk(where, fmt.Sprintf("%s[%d]", path, i), key, e, depth+1)
		}
	case map[string]any:
		if depth > 0 && key != "" {
			cw.embedded(where, path, key, x)
		}
		cw.flat(where, path, x)
		for k, e := range x {
			cw.walk(where, path+"."+k, k, e, depth+1)
		}
	}
}

// embedded compares an object held under a member named for a kind with
// the record its id names.
func (cw *copyWalk) embedded(where, path, key string, obj map[string]any) {
	if key == "launch" {
		return // an action's or a pipeline's launch settings are its own
	}
	param, ok := copyAliases[key]
	if !ok {
		param = strings.TrimSuffix(strings.TrimSuffix(key, "s"), "ie") + "Id"
		if strings.HasSuffix(key, "ies") {
			param = strings.TrimSuffix(key, "ies") + "yId"
		}
	}
	id := obj["id"]
	if id == nil {
		id = obj[param]
	}
	rec, target := cw.record(param, id, obj)
	if rec == nil {
		return
	}
	cw.compare(where, path, target, obj, rec, "")
}

// flat compares the properties an object names after a record it
// references by id (workspaceName beside workspaceId) with the record.
func (cw *copyWalk) flat(where, path string, obj map[string]any) {
	for k, id := range obj {
		stem, ok := strings.CutSuffix(k, "Id")
		if !ok || stem == "" || id == nil {
			continue
		}
		rec, target := cw.record(k, id, obj)
		if rec == nil {
			continue
		}
		for name, v := range obj {
			rest, ok := strings.CutPrefix(name, stem)
			if !ok || rest == "" || rest == "Id" || rest[0] < 'A' || rest[0] > 'Z' {
				continue
			}
			field := strings.ToLower(rest[:1]) + rest[1:]
			rv, has := rec[field]
			if !has {
				continue
			}
			cw.compared++
			if !sameJSON(v, rv) {
				cw.problems = append(cw.problems, fmt.Sprintf("%s: %s.%s = %s, but %s (%s) has %s = %s",
					where, path, name, jsonOf(v), k, target, field, jsonOf(rv)))
			}
		}
	}
}

// compare holds a copy to its record on the properties both have.
func (cw *copyWalk) compare(where, path, target string, copyObj, rec map[string]any, prefix string) {
	for k, v := range copyObj {
		rv, has := rec[k]
		if !has {
			continue
		}
		cw.compared++
		if !sameJSON(v, rv) {
			cw.problems = append(cw.problems, fmt.Sprintf("%s: %s.%s = %s, but the record (%s) has %s",
				where, path, k, jsonOf(v), target, jsonOf(rv)))
		}
	}
}

func sameJSON(a, b any) bool {
	return reflect.DeepEqual(normal(a), normal(b))
}

func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 160 {
		return string(b[:160]) + "..."
	}
	return string(b)
}
