package faults

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/wmsmock/wmsmock/profile"
)

// Stored is a rule as a Store keeps it: opaque to the store but for what
// it counts.
type Stored struct {
	ID     string `json:"-"`
	Kind   Kind   `json:"kind"`
	Source string `json:"source"`
	// Seq orders the rules: added ones by when they were added, pinned
	// ones by their place in the profile or options.
	Seq    int64 `json:"seq"`
	Pinned bool  `json:"pinned,omitempty"`
	// Limit is the rule's Times: it is removed once used this often.
	Limit int64 `json:"limit,omitempty"`
	// Rule is the Fault or Override, JSON.
	Rule []byte `json:"rule"`
}

// Store keeps the rules and counts their uses. Memory keeps them in this
// process; Redis shares them between replicas, so that a rule added
// through one is applied by all and "the next 3 calls" counts the calls
// of all. Every method is safe for concurrent use; the errors are those
// of reaching a shared store.
type Store interface {
	// Version changes whenever the rules change (added, removed, spent,
	// reset): rules read at one version hold while it does.
	Version() (int64, error)
	// Rules returns every rule and the version they are of.
	Rules() ([]Stored, int64, error)
	// Add keeps a rule under a fresh id (its kind and a number shared by
	// both kinds), and fails with ErrFull when profile.MaxFaultRules are
	// kept already.
	Add(r Stored) (Stored, error)
	// Pin makes rules the fake always starts with (the profile's and the
	// Go options'), under their own ids: kept now, and put back by every
	// Reset. Pinning the same rules again changes nothing, so replicas
	// sharing a store each pin them safely, and a spent pinned rule stays
	// spent until a reset.
	Pin(rules []Stored) error
	// Remove removes one rule and its counts, and reports whether it was
	// there; RemoveKind removes every rule of a kind and says how many.
	Remove(id string) (bool, error)
	RemoveKind(k Kind) (int, error)
	// Hit counts one use of a rule and returns its number, from 1; 0 when
	// the rule is gone (removed, or spent by other calls). The use that
	// reaches limit (when limit > 0) removes the rule.
	Hit(id string, limit int64) (int64, error)
	// Seen counts one call a rule selected, for its share, and returns
	// its number, from 1; 0 when the rule is gone.
	Seen(id string) (int64, error)
	// Hits returns the uses of every rule that has some.
	Hits() (map[string]int64, error)
	// Reset removes every rule and count and puts the pinned rules back.
	Reset() error
}

// Memory is a Store in this process's memory.
type Memory struct {
	mu sync.Mutex
	// version is read on every call, without the lock; it is written
	// under it.
	version atomic.Int64
	next    int64
	rules   map[string]Stored
	pinned  map[string]Stored
	hits    map[string]int64
	seen    map[string]int64
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{rules: map[string]Stored{}, pinned: map[string]Stored{}, hits: map[string]int64{}, seen: map[string]int64{}}
}

// Version implements Store.
func (m *Memory) Version() (int64, error) { return m.version.Load(), nil }

// Rules implements Store.
func (m *Memory) Rules() ([]Stored, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Stored, 0, len(m.rules))
	for _, r := range m.rules {
		out = append(out, r)
	}
	return out, m.version.Load(), nil
}

// Add implements Store.
func (m *Memory) Add(r Stored) (Stored, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.rules) >= profile.MaxFaultRules {
		return Stored{}, ErrFull
	}
	m.next++
	r.ID, r.Seq, r.Pinned = string(r.Kind)+"-"+strconv.FormatInt(m.next, 10), m.next, false
	m.rules[r.ID] = r
	m.version.Add(1)
	return r, nil
}

// Pin implements Store.
func (m *Memory) Pin(rules []Stored) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	keep := map[string]bool{}
	for _, r := range rules {
		r.Pinned = true
		keep[r.ID] = true
		if old, ok := m.pinned[r.ID]; ok && sameStored(old, r) {
			continue
		}
		m.pinned[r.ID], m.rules[r.ID] = r, r
		delete(m.hits, r.ID)
		delete(m.seen, r.ID)
	}
	for id := range m.pinned {
		if !keep[id] {
			delete(m.pinned, id)
			m.drop(id)
		}
	}
	m.version.Add(1)
	return nil
}

func sameStored(a, b Stored) bool {
	return a.Kind == b.Kind && a.Source == b.Source && a.Seq == b.Seq && a.Limit == b.Limit && string(a.Rule) == string(b.Rule)
}

// drop removes a rule and its counts; m.mu is held.
func (m *Memory) drop(id string) bool {
	_, ok := m.rules[id]
	delete(m.rules, id)
	delete(m.hits, id)
	delete(m.seen, id)
	return ok
}

// Remove implements Store.
func (m *Memory) Remove(id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ok := m.drop(id)
	if ok {
		m.version.Add(1)
	}
	return ok, nil
}

// RemoveKind implements Store.
func (m *Memory) RemoveKind(k Kind) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, r := range m.rules {
		if r.Kind == k {
			m.drop(id)
			n++
		}
	}
	if n > 0 {
		m.version.Add(1)
	}
	return n, nil
}

// Hit implements Store.
func (m *Memory) Hit(id string, limit int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.rules[id]; !ok {
		return 0, nil
	}
	m.hits[id]++
	n := m.hits[id]
	if limit > 0 && n >= limit {
		m.drop(id)
		m.version.Add(1)
	}
	return n, nil
}

// Seen implements Store.
func (m *Memory) Seen(id string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.rules[id]; !ok {
		return 0, nil
	}
	m.seen[id]++
	return m.seen[id], nil
}

// Hits implements Store.
func (m *Memory) Hits() (map[string]int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int64, len(m.hits))
	for id, n := range m.hits {
		out[id] = n
	}
	return out, nil
}

// Reset implements Store.
func (m *Memory) Reset() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rules, m.hits, m.seen = map[string]Stored{}, map[string]int64{}, map[string]int64{}
	for id, r := range m.pinned {
		m.rules[id] = r
	}
	m.version.Add(1)
	return nil
}

// order sorts rules in the order they are tried: those added while the
// fake runs, newest first (a test's latest word wins), then the pinned
// ones in their own order.
func order(rules []Stored) {
	slices.SortFunc(rules, func(a, b Stored) int {
		switch {
		case a.Pinned != b.Pinned:
			if a.Pinned {
				return 1
			}
			return -1
		case a.Pinned:
			return cmpInt(a.Seq, b.Seq)
		}
		return cmpInt(b.Seq, a.Seq)
	})
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// PinnedID is the id of the i-th (from 0) pinned rule of a kind from
// source: profile-fault-1, option-override-2.
func PinnedID(source string, k Kind, i int) string {
	return fmt.Sprintf("%s-%s-%d", source, k, i+1)
}
