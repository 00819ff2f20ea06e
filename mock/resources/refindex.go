package resources

import (
	"errors"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/mock/store"
)

// Keeping the reference index current. Every write of the package goes
// through refStore, which tells the index when an item of a referable
// collection is inserted or deleted, so a created item becomes a target at
// once and a deleted one is never named again.
//
// Replicas sharing a store (Redis) each keep their own index, and one
// cannot see another's writes. So each change also counts up a generation
// kept in the store itself (refsCollection); a replica compares it with
// the one its index is at, once per request, and rebuilds the index when
// another replica has changed the targets in between. The check is one
// read of one small record; the rebuild lists the referable collections
// once, only after another replica's create or delete.

// refsCollection holds the store's reference generation.
const refsCollection = "wmsmock-refs"

const refsGenerationID = "generation"

// refStore is the service's store: the backend's, with the index told of
// the inserts and deletes that change what answers may name.
type refStore struct {
	store.Store
	s *Service
}

func (rs refStore) Insert(coll string, r store.Record) (store.Record, error) {
	out, err := rs.Store.Insert(coll, r)
	if err == nil {
		rs.s.addRef(coll, out)
	}
	return out, err
}

func (rs refStore) Delete(coll, id string) error {
	err := rs.Store.Delete(coll, id)
	if err == nil {
		rs.s.dropRef(coll, id)
		rs.s.recordChanged(coll)
	}
	return err
}

// Update tells the index that a record others may show a copy of
// changed (copies.go): every rendering that holds copies is keyed by the
// generation, so none shows the record as it was.
func (rs refStore) Update(coll, id string, fn func(*store.Record) error) (store.Record, error) {
	out, err := rs.Store.Update(coll, id, fn)
	if err == nil {
		rs.s.recordChanged(coll)
	}
	return out, err
}

func (rs refStore) Restore(snap store.Snapshot) error {
	err := rs.Store.Restore(snap)
	if err == nil {
		rs.s.refs.mu.Lock()
		rs.s.refs.stale = true
		rs.s.refs.mu.Unlock()
	}
	return err
}

// addRef makes a new item of coll a target, when coll holds targets. A
// new run is not counted in the store's generation: launches are the one
// write clients repeat by the thousand, and a count would make each of
// them a second write (a second round trip on Redis) under the index's
// lock. Adding a target never makes an answer wrong, only less fresh, so a
// run launched through another replica becomes a target here at this
// replica's next rebuild (after any other create or delete, or a restore).
// A run is filed under the index's read lock and its target's own lock
// only, so launches do not queue behind each other or behind answers.
func (s *Service) addRef(coll string, r store.Record) {
	if coll == WorkflowsCollection {
		s.refs.mu.RLock()
		defer s.refs.mu.RUnlock()
	} else {
		s.refs.mu.Lock()
		defer s.refs.mu.Unlock()
	}
	h, ok := s.refs.held[coll]
	if !ok {
		return
	}
	if ws, live := h.ws(r); live && h.t.add(r.ID, ws) && coll != WorkflowsCollection {
		s.countRefChange()
	}
}

// dropRef stops naming an item of coll: it was deleted, or is being.
func (s *Service) dropRef(coll, id string) {
	s.refs.mu.Lock()
	defer s.refs.mu.Unlock()
	h, ok := s.refs.held[coll]
	if !ok || !h.t.remove(id) {
		return
	}
	s.refs.gen.Add(1)
	s.countRefChange()
}

// recordChanged moves the generation on for a change of a record that
// answers may copy: an item of a collection, or the user. Runs, tasks and
// the fake's own bookkeeping are never copied, and are written far more
// often (a report per second per run), so they do not count.
func (s *Service) recordChanged(coll string) {
	switch {
	case coll == WorkflowsCollection, coll == TasksCollection, coll == TraceDetailsCollection, coll == refsCollection,
		strings.HasPrefix(coll, "index:"):
		return
	}
	s.refs.mu.Lock()
	defer s.refs.mu.Unlock()
	s.refs.gen.Add(1)
	s.countRefChange()
}

// countRefChange counts a change of the targets in the store's
// generation. When the count is the one after the index's own, no other
// replica changed anything in between and the index stays current;
// otherwise the next sync rebuilds it. The caller holds refs.mu.
func (s *Service) countRefChange() {
	var n uint64
	err := upsert(s.refs.store, refsCollection, refsGenerationID, func(r *store.Record) error {
		cur, _ := strconv.ParseUint(string(r.Data), 10, 64)
		n = cur + 1
		r.Data = []byte(strconv.FormatUint(n, 10))
		return nil
	}, func() (store.Record, error) {
		n = 1
		return store.Record{Data: []byte("1")}, nil
	})
	if err != nil {
		s.d.Logger.Warn("references: counting a change in the store failed; the index is rebuilt at the next call", "err", err)
		s.refs.stale = true
		return
	}
	if n == s.refs.seen+1 && !s.refs.stale {
		s.refs.seen = n
		return
	}
	s.refs.stale = true
}

// storeRefGen reads the store's reference generation (0 before any
// change).
func (s *Service) storeRefGen() (uint64, error) {
	r, err := s.refs.store.Get(refsCollection, refsGenerationID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseUint(string(r.Data), 10, 64)
	return n, nil
}

// syncRefs brings the index up to date with the store: builds it on first
// use (a fake started without a seed), and rebuilds it after a restore or
// another replica's change.
func (s *Service) syncRefs() {
	n, err := s.storeRefGen()
	if err != nil {
		s.d.Logger.Warn("references: reading the store's generation failed", "err", err)
		return
	}
	current := func() bool {
		s.refs.mu.RLock()
		defer s.refs.mu.RUnlock()
		return s.refs.built && !s.refs.stale && s.refs.seen == n
	}
	if current() {
		return
	}
	s.refs.rebuild.Lock()
	defer s.refs.rebuild.Unlock()
	if current() { // another call rebuilt it meanwhile
		return
	}
	if err := s.indexRefs(); err != nil {
		s.d.Logger.Warn("references: rebuilding the index failed", "err", err)
	}
}

// RefGeneration brings the index up to date and returns its generation,
// which changes whenever an id stops being a reference target: answers
// cached with references in them are keyed by it.
func (s *Service) RefGeneration() uint64 {
	s.syncRefs()
	return s.refs.gen.Load()
}
