package refs

import (
	"errors"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/mock/store"
)

// Keeping the index current. Every write of the stateful handlers goes
// through the store Watch returns, which tells the index when an item of a
// collection holding targets is inserted or deleted, so a created item
// becomes a target at once and a deleted one is never named again.
//
// Replicas sharing a store (Redis) each keep their own index, and one
// cannot see another's writes. So each change also counts up a generation
// kept in the store itself (Collection); a replica compares it with the
// one its index is at, once per request (Sync), and rebuilds the index
// when another replica has changed the targets in between. The check is
// one read of one small record; the rebuild lists the collections holding
// targets once, only after another replica's create or delete.

// Collection holds the store's reference generation.
const Collection = "wmsmock-refs"

const generationID = "generation"

// Build is one filling of the index: the caller (who knows the
// collections) names, kind by kind, where the held ids are.
type Build struct {
	st      store.Store
	targets map[string]*target
	held    map[string]heldColl
	nested  map[string]bool
	// Nulls says the answers carry the service's nulls: a reference the
	// index cannot point at a held item is then null, else left out.
	Nulls bool
}

// add files t under param (and its plural, paramS) unless a kind took the
// name first, and, when coll is given, as the target of coll's items.
func (b *Build) add(param string, t *target, coll string, ctx Context) {
	if _, taken := b.targets[param]; taken {
		return
	}
	b.targets[param], b.targets[param+"s"] = t, t
	if coll != "" {
		if _, taken := b.held[coll]; !taken {
			b.held[coll] = heldColl{t, ctx}
		}
	}
}

// Collection makes the live items of store collection coll (each in the
// context ctx reads) the targets of property param, and of the aliases
// (a run's launch goes by the run's id: launchId names the runs). The
// first kind to claim a name keeps it.
func (b *Build) Collection(param, coll string, ctx Context, aliases ...string) error {
	recs, err := b.st.List(coll)
	if err != nil {
		return err
	}
	t := newTarget()
	for _, r := range recs {
		if ws, live := ctx(r); live {
			t.add(r.ID, ws)
		}
	}
	b.add(param, t, coll, ctx)
	for _, a := range aliases {
		b.add(a, t, "", nil)
	}
	return nil
}

// Fixed makes ids, in the personal context, the targets of param: a kind
// no collection lists (the one seeded user).
func (b *Build) Fixed(param string, ids ...string) {
	t := newTarget()
	for _, id := range ids {
		t.add(id, 0)
	}
	b.add(param, t, "", nil)
}

// Nested names a property that names items kept under another item (a
// studio's checkpointId): an answer names none of them, unless a kind of
// the same name has targets.
func (b *Build) Nested(param string) { b.nested[param] = true }

// Rebuild fills the index afresh through fill, so a restored store gives
// the same references as the seeded one (the rings depend on the ids
// only, not on the order they came in).
func (x *Index) Rebuild(fill func(*Build) error) error {
	// The store's generation is read before the records, so a change made
	// while they are read is seen as one at the next sync.
	gen, err := x.storeGeneration()
	if err != nil {
		return err
	}
	b := &Build{st: x.store, targets: map[string]*target{}, held: map[string]heldColl{}, nested: map[string]bool{}}
	if err := fill(b); err != nil {
		return err
	}
	for p, t := range b.targets {
		if !t.empty() {
			delete(b.nested, p)
		}
	}
	x.mu.Lock()
	x.targets, x.nested, x.nulls, x.held = b.targets, b.nested, b.Nulls, b.held
	x.built, x.stale, x.seen = true, false, gen
	x.gen.Add(1)
	x.mu.Unlock()
	return nil
}

// Sync brings the index up to date with the store: builds it (through
// fill) on first use (a fake started without a seed), and rebuilds it
// after a restore or another replica's change.
func (x *Index) Sync(fill func(*Build) error) {
	n, err := x.storeGeneration()
	if err != nil {
		x.logger.Warn("references: reading the store's generation failed", "err", err)
		return
	}
	current := func() bool {
		x.mu.RLock()
		defer x.mu.RUnlock()
		return x.built && !x.stale && x.seen == n
	}
	if current() {
		return
	}
	x.rebuild.Lock()
	defer x.rebuild.Unlock()
	if current() { // another call rebuilt it meanwhile
		return
	}
	if err := x.Rebuild(fill); err != nil {
		x.logger.Warn("references: rebuilding the index failed", "err", err)
	}
}

// Writes says how the writes of Watch's store move the index.
type Writes struct {
	// Frequent is the collection whose creates are not counted in the
	// store's generation (the runs): clients repeat them by the thousand,
	// and a count would make each a second write under the index's lock.
	// Adding a target never makes an answer wrong, only less fresh, so an
	// item created through another replica becomes a target here at this
	// replica's next rebuild. Its items are filed under the index's read
	// lock and their target's own lock only, so creates do not queue
	// behind each other or behind answers.
	Frequent string
	// Uncopied reports the collections no answer shows a copy of (runs,
	// tasks, bookkeeping): their changes do not move the generation.
	Uncopied func(coll string) bool
}

// Watch returns st with the index told of the inserts and deletes that
// change what answers may name, and of the changes of records answers
// copy.
func (x *Index) Watch(st store.Store, w Writes) store.Store {
	return watched{Store: st, x: x, w: w}
}

type watched struct {
	store.Store
	x *Index
	w Writes
}

func (ws watched) Insert(coll string, r store.Record) (store.Record, error) {
	out, err := ws.Store.Insert(coll, r)
	if err == nil {
		ws.x.add(coll, out, coll == ws.w.Frequent)
	}
	return out, err
}

func (ws watched) Delete(coll, id string) error {
	err := ws.Store.Delete(coll, id)
	if err == nil {
		ws.x.Drop(coll, id)
		ws.changed(coll)
	}
	return err
}

// Update tells the index that a record others may show a copy of
// changed: every rendering that holds copies is keyed by the generation,
// so none shows the record as it was.
func (ws watched) Update(coll, id string, fn func(*store.Record) error) (store.Record, error) {
	out, err := ws.Store.Update(coll, id, fn)
	if err == nil {
		ws.changed(coll)
	}
	return out, err
}

func (ws watched) Restore(snap store.Snapshot) error {
	err := ws.Store.Restore(snap)
	if err == nil {
		ws.x.mu.Lock()
		ws.x.stale = true
		ws.x.mu.Unlock()
	}
	return err
}

// changed moves the generation on for a change of a record that answers
// may copy: anything but the uncopied collections, the index's own
// generation and the store's index lists.
func (ws watched) changed(coll string) {
	if coll == Collection || strings.HasPrefix(coll, "index:") || ws.w.Uncopied != nil && ws.w.Uncopied(coll) {
		return
	}
	ws.x.mu.Lock()
	defer ws.x.mu.Unlock()
	ws.x.gen.Add(1)
	ws.x.countChange()
}

// add makes a new item of coll a target, when coll holds targets (see
// Writes.Frequent for frequent ones).
func (x *Index) add(coll string, r store.Record, frequent bool) {
	if frequent {
		x.mu.RLock()
		defer x.mu.RUnlock()
	} else {
		x.mu.Lock()
		defer x.mu.Unlock()
	}
	h, ok := x.held[coll]
	if !ok {
		return
	}
	if ws, live := h.ws(r); live && h.t.add(r.ID, ws) && !frequent {
		x.countChange()
	}
}

// Drop stops naming an item of coll: it was deleted, or is being.
func (x *Index) Drop(coll, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	h, ok := x.held[coll]
	if !ok || !h.t.remove(id) {
		return
	}
	x.gen.Add(1)
	x.countChange()
}

// countChange counts a change of the targets in the store's generation.
// When the count is the one after the index's own, no other replica
// changed anything in between and the index stays current; otherwise the
// next sync rebuilds it. The caller holds x.mu.
func (x *Index) countChange() {
	var n uint64
	err := store.Upsert(x.store, Collection, generationID, func(r *store.Record) error {
		cur, _ := strconv.ParseUint(string(r.Data), 10, 64)
		n = cur + 1
		r.Data = []byte(strconv.FormatUint(n, 10))
		return nil
	}, func() (store.Record, error) {
		n = 1
		return store.Record{Data: []byte("1")}, nil
	})
	if err != nil {
		x.logger.Warn("references: counting a change in the store failed; the index is rebuilt at the next call", "err", err)
		x.stale = true
		return
	}
	if n == x.seen+1 && !x.stale {
		x.seen = n
		return
	}
	x.stale = true
}

// storeGeneration reads the store's reference generation (0 before any
// change).
func (x *Index) storeGeneration() (uint64, error) {
	r, err := x.store.Get(Collection, generationID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseUint(string(r.Data), 10, 64)
	return n, nil
}
