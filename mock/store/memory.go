package store

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Memory is the in-process Store. The zero value is not usable; call
// NewMemory.
type Memory struct {
	mu       sync.RWMutex
	colls    map[string]map[string]*Record
	counters map[string]int64
	seq      uint64
	versions map[string]uint64 // see Version
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{colls: map[string]map[string]*Record{}, counters: map[string]int64{}, versions: map[string]uint64{}}
}

// Insert implements Store.
func (m *Memory) Insert(coll string, r Record) (Record, error) {
	if coll == "" || r.ID == "" {
		return Record{}, fmt.Errorf("%w: empty collection name or id", ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.colls[coll]
	if c == nil {
		c = map[string]*Record{}
		m.colls[coll] = c
	}
	if _, dup := c[r.ID]; dup {
		return Record{}, ErrExists
	}
	m.seq++
	r.Seq = m.seq
	// The store keeps its own copy; the caller keeps r, whose bytes the
	// store never sees again, so r is returned as it is.
	stored := clone(r)
	c[r.ID] = &stored
	m.versions[coll]++
	return r, nil
}

// Get implements Store.
func (m *Memory) Get(coll, id string) (Record, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.colls[coll][id]
	if !ok {
		return Record{}, ErrNotFound
	}
	return clone(*r), nil
}

// Update implements Store. fn runs under the store's lock, so it must not
// call back into the store.
func (m *Memory) Update(coll, id string, fn func(*Record) error) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.colls[coll][id]
	if !ok {
		return Record{}, ErrNotFound
	}
	work := clone(*r)
	if err := fn(&work); err != nil {
		return Record{}, err
	}
	work.ID, work.Seq = r.ID, r.Seq
	*r = clone(work)
	m.versions[coll]++
	return work, nil
}

// Delete implements Store.
func (m *Memory) Delete(coll, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.colls[coll]
	if _, ok := c[id]; !ok {
		return ErrNotFound
	}
	delete(c, id)
	if len(c) == 0 {
		delete(m.colls, coll)
	}
	m.versions[coll]++
	return nil
}

// Version implements Store.
func (m *Memory) Version(coll string) (uint64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.versions[coll], nil
}

// List implements Store.
func (m *Memory) List(coll string) ([]Record, error) {
	m.mu.RLock()
	out := make([]Record, 0, len(m.colls[coll]))
	for _, r := range m.colls[coll] {
		out = append(out, clone(*r))
	}
	m.mu.RUnlock()
	sortNewestFirst(out)
	return out, nil
}

// NextSeq implements Store.
func (m *Memory) NextSeq(coll string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counters[coll]++
	return m.counters[coll], nil
}

// Snapshot implements Store.
func (m *Memory) Snapshot() (Snapshot, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s := Snapshot{Collections: make(map[string][]Record, len(m.colls)), Counters: make(map[string]int64, len(m.counters)), Seq: m.seq}
	for name, c := range m.colls {
		rs := make([]Record, 0, len(c))
		for _, r := range c {
			rs = append(rs, clone(*r))
		}
		sortNewestFirst(rs)
		s.Collections[name] = rs
	}
	for k, v := range m.counters {
		s.Counters[k] = v
	}
	return s, nil
}

// Restore implements Store. It refuses a snapshot with an empty collection
// name, an empty or repeated id, a repeated Seq or content that is not JSON,
// since any of those means the snapshot was damaged.
func (m *Memory) Restore(s Snapshot) error {
	colls := make(map[string]map[string]*Record, len(s.Collections))
	seqs := map[uint64]bool{}
	maxSeq := s.Seq
	for name, rs := range s.Collections {
		if name == "" {
			return fmt.Errorf("%w: a collection has no name", ErrInvalid)
		}
		c := make(map[string]*Record, len(rs))
		for i, r := range rs {
			switch {
			case r.ID == "":
				return fmt.Errorf("%w: collection %q, record %d has no id", ErrInvalid, name, i)
			case c[r.ID] != nil:
				return fmt.Errorf("%w: collection %q holds id %q twice", ErrInvalid, name, r.ID)
			case r.Seq == 0 || seqs[r.Seq]:
				return fmt.Errorf("%w: collection %q, record %q has a missing or repeated seq %d", ErrInvalid, name, r.ID, r.Seq)
			case len(r.Data) > 0 && !jsonValid(r.Data):
				return fmt.Errorf("%w: collection %q, record %q holds invalid JSON", ErrInvalid, name, r.ID)
			}
			seqs[r.Seq] = true
			maxSeq = max(maxSeq, r.Seq)
			stored := clone(r)
			c[r.ID] = &stored
		}
		if len(c) > 0 {
			colls[name] = c
		}
	}
	counters := make(map[string]int64, len(s.Counters))
	for k, v := range s.Counters {
		if v < 0 {
			return fmt.Errorf("%w: counter %q is negative", ErrInvalid, k)
		}
		counters[k] = v
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Every collection before or after the restore may have changed.
	for name := range m.colls {
		m.versions[name]++
	}
	for name := range colls {
		if m.colls[name] == nil {
			m.versions[name]++
		}
	}
	m.colls, m.counters, m.seq = colls, counters, maxSeq
	return nil
}

func sortNewestFirst(rs []Record) {
	slices.SortFunc(rs, func(a, b Record) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
}

// clone copies r so that callers never share the store's bytes.
func clone(r Record) Record {
	r.Data = bytes.Clone(r.Data)
	return r
}
