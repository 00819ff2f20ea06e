package store

import (
	"fmt"
	"maps"
	"sync"
)

// Changes is what changed in a store between two calls of its Changes
// method: enough for a Mirror to bring its copy of the store up to date
// without reading the records that stayed the same.
type Changes struct {
	// All is set when Records holds every record of the store rather than
	// the changed ones (the first call, or a call after Restore replaced
	// the whole store): the receiver drops whatever it held before.
	All bool
	// Records holds, per collection, the records inserted or updated since
	// the last call, as they are now. Their Data is shared with the store,
	// which never changes a stored record's bytes in place (an update
	// stores new ones), so it stays valid; it must not be modified.
	Records map[string][]Record
	// Deleted holds, per collection, the ids deleted since the last call.
	Deleted map[string][]string
	// Counters and Seq are NextSeq's counters and the insertion counter
	// now (a handful of numbers, copied whole).
	Counters map[string]int64
	Seq      uint64
	// Mark names this call; pass it to the next call of Changes.
	Mark uint64
}

// Tracker is a Store that can say what changed since it was last asked,
// so that a save copies only that under the store's lock. Memory is one;
// a store that is not (redisstore) is saved with Snapshot.
type Tracker interface {
	Store
	// Changes returns what changed since the call that returned the
	// Mark since, and starts over. When since is not the last call's Mark
	// (0 on a first call, or another caller asked in between) it returns
	// every record (All), so a caller never misses a change that went to
	// someone else; with one caller, that happens once.
	Changes(since uint64) (Changes, error)
}

// tracking is Memory's bookkeeping for Changes. It costs nothing until
// Changes is first called: a fake that never saves keeps no dirty set.
type tracking struct {
	last  uint64                         // the last Changes' Mark; 0 before the first
	all   bool                           // the next Changes must copy everything
	dirty map[string]map[string]struct{} // collection -> ids written since the last Changes
	// copied counts the records the last Changes copied, so tests can
	// check that unchanged records are not copied under the lock.
	copied int
}

// mark notes a write of one record; the caller holds the write lock.
func (t *tracking) mark(coll, id string) {
	if t.last == 0 || t.all {
		return
	}
	ids := t.dirty[coll]
	if ids == nil {
		ids = map[string]struct{}{}
		t.dirty[coll] = ids
	}
	ids[id] = struct{}{}
}

// replaced notes that the whole store was replaced (Restore).
func (t *tracking) replaced() {
	if t.last != 0 {
		t.all, t.dirty = true, map[string]map[string]struct{}{}
	}
}

var _ Tracker = (*Memory)(nil)

// Changes implements Tracker. It holds the store's lock for as long as it
// takes to copy the changed records' headers (their bytes are shared, see
// Changes.Records), so its cost is in the number of records written since
// the last call, not in the size of the store. The first call, and the
// first after a Restore, hand out every record once.
func (m *Memory) Changes(since uint64) (Changes, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch := Changes{Records: map[string][]Record{}, Deleted: map[string][]string{}, Counters: maps.Clone(m.counters), Seq: m.seq}
	if ch.Counters == nil {
		ch.Counters = map[string]int64{}
	}
	copied := 0
	if since == 0 || since != m.track.last || m.track.all {
		ch.All = true
		for name, c := range m.colls {
			rs := make([]Record, 0, len(c.recs))
			for _, it := range c.recs {
				rs = append(rs, c.pageView(it.rec))
			}
			ch.Records[name] = rs
			copied += len(rs)
		}
	} else {
		for name, ids := range m.track.dirty {
			c := m.colls[name]
			for id := range ids {
				if it := lookup(c, id); it != nil {
					ch.Records[name] = append(ch.Records[name], c.pageView(it.rec))
					copied++
				} else {
					ch.Deleted[name] = append(ch.Deleted[name], id)
				}
			}
		}
	}
	m.track.last++
	m.track.all, m.track.copied = false, copied
	m.track.dirty = map[string]map[string]struct{}{}
	ch.Mark = m.track.last
	return ch, nil
}

func lookup(c *collection, id string) *item {
	if c == nil {
		return nil
	}
	return c.recs[id]
}

// Mirror is the last saved copy of one store, kept by whoever saves it (the
// state file's saver), so that a save holds the store's lock only to copy
// what changed since the previous save: with a Tracker, Snapshot asks for
// the changes and applies them to the copy outside the store's lock; with
// any other store it falls back to the store's whole Snapshot.
//
// The copy shares the records' bytes with the store (see Changes.Records),
// so it costs about a record header per stored record, not a second copy
// of the data.
type Mirror struct {
	st       Store
	mu       sync.Mutex
	colls    map[string]map[string]Record
	counters map[string]int64
	seq      uint64
	mark     uint64 // the Mark of the changes last applied
}

// NewMirror returns a mirror of st. Give a store one mirror: two mirrors
// of one Tracker stay correct but each copies the whole store at every
// save, since each call's changes go to one caller.
func NewMirror(st Store) *Mirror {
	return &Mirror{st: st, colls: map[string]map[string]Record{}}
}

// Snapshot brings the mirror up to date with its store and returns the
// whole store as it was at that moment, records newest first. Every write
// the store finished before the call is in it. The records' Data is shared
// with the store and the mirror: encode it, do not change it.
func (mr *Mirror) Snapshot() (Snapshot, error) {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	tr, ok := mr.st.(Tracker)
	if !ok {
		return mr.st.Snapshot()
	}
	ch, err := tr.Changes(mr.mark)
	if err != nil {
		return Snapshot{}, err
	}
	if err := mr.apply(ch); err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{Collections: make(map[string][]Record, len(mr.colls)), Counters: maps.Clone(mr.counters), Seq: mr.seq}
	for name, recs := range mr.colls {
		rs := make([]Record, 0, len(recs))
		for _, r := range recs {
			rs = append(rs, r)
		}
		SortNewestFirst(rs)
		s.Collections[name] = rs
	}
	return s, nil
}

func (mr *Mirror) apply(ch Changes) error {
	if ch.All {
		mr.colls = map[string]map[string]Record{}
	}
	for name, ids := range ch.Deleted {
		recs := mr.colls[name]
		for _, id := range ids {
			delete(recs, id)
		}
		if len(recs) == 0 {
			delete(mr.colls, name)
		}
	}
	for name, rs := range ch.Records {
		recs := mr.colls[name]
		if recs == nil {
			recs = make(map[string]Record, len(rs))
			mr.colls[name] = recs
		}
		for _, r := range rs {
			if r.ID == "" {
				return fmt.Errorf("%w: a changed record of %q has no id", ErrInvalid, name)
			}
			recs[r.ID] = r
		}
	}
	mr.counters, mr.seq, mr.mark = ch.Counters, ch.Seq, ch.Mark
	return nil
}
