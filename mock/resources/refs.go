package resources

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Identifiers inside answers name things the fake holds. A property named
// for the resource a collection holds (computeEnvId for /compute-envs,
// workspaceId for .../workspaces, teamIds for .../teams, workflowId for
// the runs) gets, in a synthesized part of an answer, the id of a held
// item of that kind, preferring one in the answer's own workspace, so a
// client that follows a reference finds it. Values a client or the seed
// gave are kept as they are.
//
// The held ids are read once, when the seeding is done; an item deleted
// later may still be named by other answers, as on a service where
// references are not cascaded.

// refTarget is one kind of referenced resource: the ids the fake held
// once seeded, per context (0: personal).
type refTarget struct {
	byWS map[int64][]string
	all  []string
}

type refIndex struct {
	mu      sync.RWMutex
	targets map[string]*refTarget // by property name: computeEnvId, computeEnvIds
	// nested are the parameters naming items kept under another item (a
	// studio's checkpoints: checkpointId), which a lone id cannot name.
	nested map[string]bool
	// nulls: the profile sends the service's nulls (answers.nulls).
	nulls bool
}

// refersTo reports whether a property named param (xId) refers to the
// items of a collection listed at listPath: x is what the path's last
// literal segment names, in the singular or the plural.
func refersTo(param, listPath string) bool {
	base, ok := strings.CutSuffix(param, "Id")
	if !ok || base == "" {
		return false
	}
	lit := lastLiteral(listPath)
	return strings.EqualFold(base, lit) || strings.EqualFold(base, singular(lit))
}

// IndexRefs records the held ids answers refer to, for a store restored
// from a state file rather than seeded.
func (s *Service) IndexRefs() error { return s.indexRefs() }

// indexRefs records the held ids of every referable collection, in id
// order, so a restored store gives the same references as the seeded one.
func (s *Service) indexRefs() error {
	targets := map[string]*refTarget{}
	add := func(param string, t *refTarget) {
		if _, taken := targets[param]; taken || len(t.all) == 0 {
			return
		}
		slices.Sort(t.all)
		for _, ids := range t.byWS {
			slices.Sort(ids)
		}
		targets[param], targets[param+"s"] = t, t
	}
	colls := slices.Clone(s.colls)
	slices.SortStableFunc(colls, func(a, b *collection) int { return len(a.itemPath) - len(b.itemPath) })
	nested := map[string]bool{}
	for _, c := range colls {
		if !refersTo(c.param, c.listPath) {
			continue
		}
		if !contextParentsOnly(c.listPath) {
			nested[c.param] = true
			continue
		}
		coll, ok := s.heldPath(c.listPath)
		if !ok {
			continue
		}
		recs, err := s.d.Store.List(coll)
		if err != nil {
			return err
		}
		t := &refTarget{byWS: map[int64][]string{}}
		for _, r := range recs {
			d, err := decodeItem(r)
			if err != nil {
				return err
			}
			var ws int64
			if d.Workspace != nil {
				ws = *d.Workspace
			}
			t.byWS[ws] = append(t.byWS[ws], r.ID)
			t.all = append(t.all, r.ID)
		}
		add(c.param, t)
	}
	if s.wf != nil {
		recs, err := s.d.Store.List(WorkflowsCollection)
		if err != nil {
			return err
		}
		t := &refTarget{byWS: map[int64][]string{}}
		for _, r := range recs {
			var ws struct {
				WorkspaceID int64 `json:"workspaceId"`
			}
			_ = json.Unmarshal(r.Data, &ws)
			t.byWS[ws.WorkspaceID] = append(t.byWS[ws.WorkspaceID], r.ID)
			t.all = append(t.all, r.ID)
		}
		add("workflowId", t)
		// A run's launch goes by the run's id (guard.go), so a launchId
		// names one of the runs' launches.
		if s.op("GET", "/launch/{launchId}") != nil {
			add("launchId", t)
		}
	}
	// Users are described by id (/users/{userId}) but never listed: the
	// one the fake holds is the seeded user, whom every userId names.
	if id, ok := s.userID(); ok && s.op("GET", "/users/{userId}") != nil {
		add("userId", &refTarget{byWS: map[int64][]string{}, all: []string{fmt.Sprint(id)}})
	}
	for p := range targets {
		delete(nested, p)
	}
	s.refs.mu.Lock()
	s.refs.targets, s.refs.nested, s.refs.nulls = targets, nested, s.fit.nulls
	s.refs.mu.Unlock()
	return nil
}

// pick chooses a held id for a generated value, the same for the same
// value: one of the context's own, else any.
func (t *refTarget) pick(v any, ws int64) (any, bool) {
	ids := t.byWS[ws]
	if len(ids) == 0 {
		ids = t.all
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(jsonString(v)))
	id := ids[int(h.Sum32()%uint32(len(ids)))]
	switch v.(type) {
	case string:
		return id, true
	case int64, float64, json.Number, int:
		n, err := strconv.ParseInt(id, 10, 64)
		return n, err == nil
	}
	return nil, false
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fixRefs rewrites, in place, the reference values of a synthesized
// answer part to held ids, below obj; keep names top-level keys whose
// values were given (and stay as given).
func (s *Service) fixRefs(obj map[string]any, ws *int64, keep map[string]any) {
	rv := s.refView()
	if len(rv.targets) == 0 {
		return
	}
	var w int64
	if ws != nil {
		w = *ws
		// The record's own workspace is known: the item shows it, and its
		// references are picked in it, in every view alike (a view whose
		// schema has no workspaceId must pick the same ids as one that has).
		if _, given := keep["workspaceId"]; !given && w != 0 {
			if _, shown := obj["workspaceId"]; shown {
				obj["workspaceId"] = w
			}
		}
	}
	fixRefsIn(obj, rv, w, keep, 0, true)
}

// namesNested reports an object that names an item kept under another
// item by its own id property.
func (rv refView) namesNested(e any) bool {
	m, ok := e.(map[string]any)
	if !ok {
		return false
	}
	for p := range rv.nested {
		if m[p] != nil {
			return true
		}
	}
	return false
}

// refView is the index as one answer reads it.
type refView struct {
	targets map[string]*refTarget
	nested  map[string]bool
	nulls   bool
}

func (s *Service) refView() refView {
	s.refs.mu.RLock()
	defer s.refs.mu.RUnlock()
	return refView{s.refs.targets, s.refs.nested, s.refs.nulls}
}

// fixRefsIn does fixRefs' work on v at depth. own says the context ws is
// v's own (a record's), which an object at depth 0 naming a workspace does
// not change.
func fixRefsIn(v any, rv refView, ws int64, keep map[string]any, depth int, own bool) {
	targets := rv.targets
	if depth > maxSchemaDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		// An object that names its workspace scopes its other references.
		if t := targets["workspaceId"]; t != nil && x["workspaceId"] != nil {
			// At depth 0 of a record in a workspace, fixRefs has shown
			// the record's own.
			pinned := own && depth == 0 && ws != 0
			if _, given := keep["workspaceId"]; depth > 0 || !given && !pinned {
				if id, ok := t.pick(x["workspaceId"], ws); ok {
					x["workspaceId"] = id
				}
			}
			if n, ok := x["workspaceId"].(int64); ok && !(own && depth == 0) {
				ws = n
			}
		}
		for k, e := range x {
			if k == "workspaceId" {
				continue
			}
			if _, given := keep[k]; given && depth == 0 {
				continue
			}
			t := targets[k]
			if t == nil && rv.namesNested(e) {
				// A reference to an item under another item (the checkpoint
				// a studio started from) that the fake cannot point at a
				// held one: the answer names none.
				if rv.nulls {
					x[k] = nil
				} else {
					delete(x, k)
				}
				continue
			}
			if t == nil {
				fixEmbedded(k, e, targets, ws)
				fixRefsIn(e, rv, ws, nil, depth+1, false)
				continue
			}
			switch ev := e.(type) {
			case nil:
			case []any:
				for i, one := range ev {
					if id, ok := t.pick(one, ws); ok {
						ev[i] = id
					}
				}
			case map[string]any:
				fixRefsIn(ev, rv, ws, nil, depth+1, false)
			default:
				if id, ok := t.pick(ev, ws); ok {
					x[k] = id
				}
			}
		}
	case []any:
		for _, e := range x {
			fixRefsIn(e, rv, ws, nil, depth+1, false)
		}
	}
}

// fixEmbedded points the id of an object held under the name of the item
// it shows (computeEnv: {id}, labels: [{id}], launch: {id}) at a held
// item of that kind, unless the object names its own xId, which is the
// reference then (a task's taskId).
func fixEmbedded(k string, e any, targets map[string]*refTarget, ws int64) {
	param := singular(k) + "Id"
	t := targets[param]
	if t == nil {
		return
	}
	one := func(v any) {
		m, ok := v.(map[string]any)
		if !ok || m["id"] == nil || m[param] != nil {
			return
		}
		if id, ok := t.pick(m["id"], ws); ok {
			m["id"] = id
		}
	}
	switch x := e.(type) {
	case map[string]any:
		one(x)
	case []any:
		for _, v := range x {
			one(v)
		}
	}
}

// contextParentsOnly reports a list path whose parameters, if any, name
// the organization or workspace: items kept under another item (the
// checkpoints of a studio) are named together with their parent, which a
// lone id property does not say.
func contextParentsOnly(listPath string) bool {
	for _, seg := range strings.Split(listPath, "/") {
		if isParamSeg(seg) && seg != "{orgId}" && seg != "{workspaceId}" {
			return false
		}
	}
	return true
}

// FixRefs does the same for a whole synthesized answer (an operation no
// behaviour of the package answers), in the context of workspace ws (0:
// the personal one).
func (s *Service) FixRefs(v any, ws int64) {
	if rv := s.refView(); len(rv.targets) > 0 {
		fixRefsIn(v, rv, ws, nil, 0, false)
	}
}
