// Package refs keeps identifiers in the fake's answers pointed at things
// the fake holds. A property named for a kind of held item (computeEnvId,
// workspaceId, teamIds, workflowId) gets, in a generated part of an
// answer, the id of a held item of that kind, preferring one in the
// answer's own workspace, so a client that follows a reference finds it.
// Values a client or the seed gave are kept as they are.
//
// The Index is built where the server sets up its state and is handed
// both to the stateful handlers (mock/resources), which fill it and tell
// it of every write, and to the synthesizer, which points the ids of the
// answers it generates through it. It knows nothing of the records beyond
// their ids and contexts: which collections hold which kind is told it at
// each build (Build), as data.
//
// Picks go through consistent-hash rings (internal/hashring), so a new
// item takes over only the references it wins, and the others stay as
// shown.
package refs

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wmsmock/wmsmock/internal/hashring"
	"github.com/wmsmock/wmsmock/mock/store"
)

// maxDepth bounds the walk through an answer.
const maxDepth = 12

// target is one kind of referenced item: the ids the fake holds, per
// context (0: personal) and all together. Its own lock is held for one
// pick, add or remove at a time, so a launch filing its run never waits
// for an answer being fixed, only for one pick.
type target struct {
	mu sync.RWMutex
	// ids numbers the held ids once for all the rings below; ws is each
	// slot's context, to find the id's ring on removal.
	ids  *hashring.IDs
	ws   []int64
	byWS map[int64]*hashring.Ring
	all  *hashring.Ring
}

func newTarget() *target {
	ids := hashring.NewIDs()
	return &target{ids: ids, byWS: map[int64]*hashring.Ring{}, all: ids.Ring()}
}

// add holds id, of context ws; it reports whether the id is new.
func (t *target) add(id string, ws int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	slot, added := t.ids.Put(id)
	if !added {
		return false
	}
	if int(slot) == len(t.ws) {
		t.ws = append(t.ws, ws)
	} else {
		t.ws[slot] = ws
	}
	r := t.byWS[ws]
	if r == nil {
		r = t.ids.Ring()
		t.byWS[ws] = r
	}
	r.Add(id)
	t.all.Add(id)
	return true
}

// remove drops id; it reports whether it was held.
func (t *target) remove(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	slot, ok := t.ids.Slot(id)
	if !ok {
		return false
	}
	ws := t.ws[slot]
	t.all.Remove(id)
	if r := t.byWS[ws]; r != nil {
		r.Remove(id)
		if r.Len() == 0 {
			delete(t.byWS, ws)
		}
	}
	t.ids.Drop(id)
	return true
}

// has reports whether id is held.
func (t *target) has(id string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	_, ok := t.ids.Slot(id)
	return ok
}

// empty reports whether no id is held.
func (t *target) empty() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.all.Len() == 0
}

// pick chooses a held id for a generated value, the same for the same
// value while the ids stay: one of the context's own, else any.
func (t *target) pick(v any, ws int64) (any, bool) {
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

// Context reads where a held record lives (its workspace, 0 for the
// personal context) and whether it is a target at all (an item being
// deleted is not).
type Context func(store.Record) (ws int64, live bool)

// heldColl is a store collection whose items are targets, and how to read
// an item's context.
type heldColl struct {
	t  *target
	ws Context
}

// Index is the held ids answers may name, by the property that names
// them. The zero value is not usable; see New.
type Index struct {
	mu      sync.RWMutex
	targets map[string]*target // by property name: computeEnvId, computeEnvIds
	// nested are the parameters naming items kept under another item (a
	// studio's checkpoints: checkpointId), which a lone id cannot name.
	nested map[string]bool
	// nulls: the answers carry the service's nulls (answers.nulls).
	nulls bool
	// held maps a store collection whose items are targets to them.
	held map[string]heldColl
	// built is set once the index has been built; seen is the store's
	// reference generation it was built or last kept at, stale set when a
	// change elsewhere (another replica) may have passed it by.
	built, stale bool
	seen         uint64
	// gen counts the times an id left the index or a record others copy
	// changed: renderings cached with references are keyed by it, so none
	// names a deleted item or shows a changed one as it was.
	gen atomic.Uint64
	// rebuild lets one call at a time rebuild the index.
	rebuild sync.Mutex
	// store is the backend's store, where the generation is kept (its
	// writes do not go through Watch's store).
	store  store.Store
	logger *slog.Logger
}

// Option configures an Index.
type Option func(*Index)

// WithLogger has the index log what it could not do (a failed count of a
// change, a failed rebuild); it then rebuilds at the next call.
func WithLogger(l *slog.Logger) Option { return func(x *Index) { x.logger = l } }

// New returns an empty index over st, the store the held records and the
// index's generation are kept in. It names nothing until its first Build.
func New(st store.Store, opts ...Option) *Index {
	x := &Index{store: st, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(x)
	}
	return x
}

// Holds reports whether id is a target of the property param.
func (x *Index) Holds(param, id string) bool {
	t := x.view().targets[param]
	return t != nil && t.has(id)
}

// Generation is the index's generation, which moves whenever an id stops
// being a target or a record answers copy changes: answers cached with
// references in them are keyed by it. The caller brings the index up to
// date first (Sync) where a change through another replica matters.
func (x *Index) Generation() uint64 { return x.gen.Load() }

// view is the index as one answer reads it.
type view struct {
	targets map[string]*target
	nested  map[string]bool
	nulls   bool
}

// view reads the index's maps, which a rebuild replaces and nothing
// changes in place; the targets in them lock for themselves.
func (x *Index) view() view {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return view{x.targets, x.nested, x.nulls}
}

// Fix rewrites, in place, the references of a generated answer v to held
// ids, in the context of workspace ws (0: the personal one).
func (x *Index) Fix(v any, ws int64) {
	if rv := x.view(); len(rv.targets) > 0 {
		rv.walk(v, ws, nil, 0, false)
	}
}

// FixRecord rewrites, in place, the references of a synthesized part of a
// held record's view obj, whose own workspace is ws (nil: none); keep
// names top-level keys whose values were given (and stay as given).
func (x *Index) FixRecord(obj map[string]any, ws *int64, keep map[string]any) {
	rv := x.view()
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
	rv.walk(obj, w, keep, 0, true)
}

// namesNested reports an object that names an item kept under another
// item by its own id property.
func (rv view) namesNested(e any) bool {
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

// walk does Fix's work on v at depth. own says the context ws is v's own
// (a record's), which an object at depth 0 naming a workspace does not
// change.
func (rv view) walk(v any, ws int64, keep map[string]any, depth int, own bool) {
	targets := rv.targets
	if depth > maxDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		// An object that names its workspace scopes its other references.
		if t := targets["workspaceId"]; t != nil && x["workspaceId"] != nil {
			// At depth 0 of a record in a workspace, FixRecord has shown
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
				rv.fixEmbedded(k, e, ws)
				rv.walk(e, ws, nil, depth+1, false)
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
				rv.walk(ev, ws, nil, depth+1, false)
			default:
				if id, ok := t.pick(ev, ws); ok {
					x[k] = id
				}
			}
		}
	case []any:
		for _, e := range x {
			rv.walk(e, ws, nil, depth+1, false)
		}
	}
}

// fixEmbedded points the id of an object held under the name of the item
// it shows (computeEnv: {id}, labels: [{id}], launch: {id}) at a held
// item of that kind, unless the object names its own xId, which is the
// reference then (a task's taskId).
func (rv view) fixEmbedded(k string, e any, ws int64) {
	if Owned(k) {
		// The fake holds no launch of an action's or a pipeline's own: the
		// id such a launch was given names nothing a client can read.
		if m, ok := e.(map[string]any); ok && m["id"] != nil {
			if rv.nulls {
				m["id"] = nil
			} else {
				delete(m, "id")
			}
		}
		return
	}
	param := Singular(k) + "Id"
	t := rv.targets[param]
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

// Owned reports whether member k of an object holds an object of the
// parent's own rather than a copy of a held record (see owned).
func Owned(k string) bool { return owned[k] }

// Singular is the singular of a collection's name as the service's
// properties spell it: computeEnvs is computeEnv, studies is study.
func Singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies"):
		return strings.TrimSuffix(s, "ies") + "y"
	case strings.HasSuffix(s, "s"):
		return strings.TrimSuffix(s, "s")
	}
	return s
}
