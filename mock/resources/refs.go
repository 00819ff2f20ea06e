package resources

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/hashring"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Identifiers inside answers name things the fake holds. A property named
// for the resource a collection holds (computeEnvId for /compute-envs,
// workspaceId for .../workspaces, teamIds for .../teams, workflowId for
// the runs) gets, in a synthesized part of an answer, the id of a held
// item of that kind, preferring one in the answer's own workspace, so a
// client that follows a reference finds it. Values a client or the seed
// gave are kept as they are.
//
// The index of held ids is built when the seeding is done (or a state is
// restored) and kept current by the write paths (refindex.go): an item
// created later becomes a target, a deleted one stops being named. Picks
// go through consistent-hash rings (internal/hashring), so a new item takes over
// only the references it wins, and the others stay as shown.

// refTarget is one kind of referenced resource: the ids the fake holds,
// per context (0: personal) and all together. Its own lock is held for one
// pick, add or remove at a time, so a launch filing its run never waits
// for an answer being rendered, only for one pick.
type refTarget struct {
	mu   sync.RWMutex
	byWS map[int64]*hashring.Ring
	all  *hashring.Ring
	// where is the context of each id, to find its ring on removal.
	where map[string]int64
}

func newRefTarget() *refTarget {
	return &refTarget{byWS: map[int64]*hashring.Ring{}, all: hashring.New(), where: map[string]int64{}}
}

// add holds id, of context ws; it reports whether the id is new.
func (t *refTarget) add(id string, ws int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.all.Has(id) {
		return false
	}
	r := t.byWS[ws]
	if r == nil {
		r = hashring.New()
		t.byWS[ws] = r
	}
	r.Add(id)
	t.all.Add(id)
	t.where[id] = ws
	return true
}

// remove drops id; it reports whether it was held.
func (t *refTarget) remove(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.all.Has(id) {
		return false
	}
	ws := t.where[id]
	delete(t.where, id)
	t.all.Remove(id)
	if r := t.byWS[ws]; r != nil {
		r.Remove(id)
		if r.Len() == 0 {
			delete(t.byWS, ws)
		}
	}
	return true
}

// has reports whether id is held.
func (t *refTarget) has(id string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.all.Has(id)
}

// empty reports whether no id is held.
func (t *refTarget) empty() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.all.Len() == 0
}

type refIndex struct {
	mu      sync.RWMutex
	targets map[string]*refTarget // by property name: computeEnvId, computeEnvIds
	// nested are the parameters naming items kept under another item (a
	// studio's checkpoints: checkpointId), which a lone id cannot name.
	nested map[string]bool
	// nulls: the profile sends the service's nulls (answers.nulls).
	nulls bool
	// held maps a store collection whose items are targets to them.
	held map[string]heldColl
	// built is set once the index has been built; seen is the store's
	// reference generation it was built or last kept at, stale set when a
	// change elsewhere (another replica) may have passed it by.
	built, stale bool
	seen         uint64
	// gen counts the times an id left the index (a delete, a rebuild):
	// renderings cached with references are keyed by it, so none names
	// a deleted item.
	gen atomic.Uint64
	// rebuild lets one call at a time rebuild the index.
	rebuild sync.Mutex
	// store is the backend's store, where the generation is kept (its
	// writes do not go through refStore).
	store store.Store
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

// heldColl is a store collection whose items are reference targets, and
// how to read an item's context.
type heldColl struct {
	t  *refTarget
	ws func(store.Record) (ws int64, live bool)
}

// itemContext reads a collection item's workspace; an item being deleted
// (a compute environment in DELETING) is no longer a target.
func itemContext(r store.Record) (int64, bool) {
	d, err := decodeItem(r)
	if err != nil {
		return 0, false
	}
	var ws int64
	if d.Workspace != nil {
		ws = *d.Workspace
	}
	return ws, d.DeletingAt == nil
}

// runContext reads a run's workspace, from the decoded runs when the run
// is there (a run just launched is: see launch).
func (w *runs) runContext(r store.Record) (int64, bool) {
	if wf, ok := w.decoded.Get(decodedKey{r.ID, w.s.hash.bytes(r.Data)}); ok {
		return wf.WorkspaceID, true
	}
	var ws struct {
		WorkspaceID int64 `json:"workspaceId"`
	}
	err := json.Unmarshal(r.Data, &ws)
	return ws.WorkspaceID, err == nil
}

// indexRefs records the held ids of every referable collection, so a
// restored store gives the same references as the seeded one (the rings
// depend on the ids only, not on the order they came in).
func (s *Service) indexRefs() error {
	// The store's generation is read before the records, so a change made
	// while they are read is seen as one at the next sync.
	gen, err := s.storeRefGen()
	if err != nil {
		return err
	}
	targets := map[string]*refTarget{}
	held := map[string]heldColl{}
	add := func(param string, t *refTarget, coll string, ctx func(store.Record) (int64, bool)) {
		if _, taken := targets[param]; taken {
			return
		}
		targets[param], targets[param+"s"] = t, t
		if coll != "" {
			if _, taken := held[coll]; !taken {
				held[coll] = heldColl{t, ctx}
			}
		}
	}
	fill := func(coll string, ctx func(store.Record) (int64, bool)) (*refTarget, error) {
		recs, err := s.d.Store.List(coll)
		if err != nil {
			return nil, err
		}
		t := newRefTarget()
		for _, r := range recs {
			if ws, live := ctx(r); live {
				t.add(r.ID, ws)
			}
		}
		return t, nil
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
		t, err := fill(coll, itemContext)
		if err != nil {
			return err
		}
		add(c.param, t, coll, itemContext)
	}
	if s.runs != nil {
		t, err := fill(WorkflowsCollection, s.runs.runContext)
		if err != nil {
			return err
		}
		add("workflowId", t, WorkflowsCollection, s.runs.runContext)
		// A run's launch goes by the run's id (held.go), so a launchId
		// names one of the runs' launches.
		if s.op("GET", "/launch/{launchId}") != nil {
			add("launchId", t, "", nil)
		}
	}
	// Users are described by id (/users/{userId}) but never listed: the
	// one the fake holds is the seeded user, whom every userId names.
	if id, ok := s.userID(); ok && s.op("GET", "/users/{userId}") != nil {
		t := newRefTarget()
		t.add(fmt.Sprint(id), 0)
		add("userId", t, "", nil)
	}
	for p, t := range targets {
		if !t.empty() {
			delete(nested, p)
		}
	}
	s.refs.mu.Lock()
	s.refs.targets, s.refs.nested, s.refs.nulls, s.refs.held = targets, nested, s.fit.nulls, held
	s.refs.built, s.refs.stale, s.refs.seen = true, false, gen
	s.refs.gen.Add(1)
	s.refs.mu.Unlock()
	return nil
}

// pick chooses a held id for a generated value, the same for the same
// value while the ids stay: one of the context's own, else any.
func (t *refTarget) pick(v any, ws int64) (any, bool) {
	t.mu.RLock()
	r := t.byWS[ws]
	if r == nil || r.Len() == 0 {
		r = t.all
	}
	id, ok := r.Pick(hashring.ValueHash(v))
	t.mu.RUnlock()
	if !ok {
		return nil, false
	}
	switch v.(type) {
	case string:
		return id, true
	case int64, float64, json.Number, int:
		n, err := strconv.ParseInt(id, 10, 64)
		return n, err == nil
	}
	return nil, false
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

// refView reads the index's maps, which a rebuild replaces and nothing
// changes in place; the targets in them lock for themselves.
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
				fixEmbedded(k, e, targets, ws, rv.nulls)
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
func fixEmbedded(k string, e any, targets map[string]*refTarget, ws int64, nulls bool) {
	if owned[k] {
		// The fake holds no launch of an action's or a pipeline's own: the
		// id such a launch was given names nothing a client can read.
		if m, ok := e.(map[string]any); ok && m["id"] != nil {
			if nulls {
				m["id"] = nil
			} else {
				delete(m, "id")
			}
		}
		return
	}
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

// owned names the members that hold an object of their parent's own, not
// a reference to a record held elsewhere, though their kind has an id
// parameter: an action's or a pipeline's launch settings are its own
// (GET /launch/{launchId} describes the launch of a run).
var owned = map[string]bool{"launch": true}

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
// behaviour of the package answers) of schema sch, in the context of
// workspace ws (0: the personal one), and then makes every copy of a held
// record in it show the record (copies.go). The caller has brought the
// index up to date for the call through RefGeneration, which keys its
// cache.
func (s *Service) FixRefs(sch *base.Schema, v any, ws int64, now time.Time) {
	if rv := s.refView(); len(rv.targets) > 0 {
		fixRefsIn(v, rv, ws, nil, 0, false)
	}
	s.CopyRecords(sch, v, now)
}
