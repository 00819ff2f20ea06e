// Package memo holds bounded caches for values that are a pure function of
// their key: validation verdicts, synthesized answers, encoded renderings.
//
// Because a stale entry can never be asked for again (its key names
// everything the value depends on), a cache needs no invalidation. It does
// need a bound, and a way to stay bounded without forgetting everything at
// once: each cache keeps two generations. New entries go into the young
// one; when it is full it becomes the old one and the previous old one is
// dropped; a hit in the old generation moves the entry back to the young
// one. So what is in use survives, a hit is still one read-locked lookup
// (two at most), and a cache never holds more than its limit.
//
// A server owns all its caches through one Set, which shares an entry
// budget among them and reports their hits and misses.
package memo

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Map is a bounded, concurrency-safe cache. The zero value is not usable;
// call New or NewIn.
type Map[K comparable, V any] struct {
	mu           sync.RWMutex
	young, old   map[K]V
	limit        int // entries over both generations
	hits, misses atomic.Int64
	name         string
}

// New returns a cache of its own, outside any Set, holding at most size
// entries (at least two).
func New[K comparable, V any](size int) *Map[K, V] {
	return &Map[K, V]{young: map[K]V{}, limit: max(size, 2)}
}

// NewIn returns a cache owned by set, named for its report, with share of
// the set's budget (a positive weight; the budget is split among a set's
// caches in proportion to their weights as each is added).
func NewIn[K comparable, V any](set *Set, name string, share int) *Map[K, V] {
	m := &Map[K, V]{young: map[K]V{}, name: name}
	set.add(m, max(share, 1))
	return m
}

// Get returns the value cached for k.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.RLock()
	v, ok := c.young[k]
	if !ok {
		v, ok = c.old[k]
		c.mu.RUnlock()
		if ok {
			c.Put(k, v) // in use: back to the young generation
		}
	} else {
		c.mu.RUnlock()
	}
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return v, ok
}

// Put caches v for k. When the young generation is full it becomes the
// old one, and the old one is dropped.
func (c *Map[K, V]) Put(k K, v V) {
	c.mu.Lock()
	if _, ok := c.young[k]; !ok && len(c.young) >= c.limit/2 {
		c.old, c.young = c.young, make(map[K]V, len(c.young))
	}
	c.young[k] = v
	delete(c.old, k)
	c.mu.Unlock()
}

// Do returns the value cached for k, building and caching it on a miss.
// An error from build is returned and nothing is cached. Two callers that
// miss at once may both build; values are pure, so either result is right.
func (c *Map[K, V]) Do(k K, build func() (V, error)) (V, error) {
	if v, ok := c.Get(k); ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	c.Put(k, v)
	return v, nil
}

// Len reports how many entries the cache holds.
func (c *Map[K, V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.young) + len(c.old)
}

// Stat is one cache's figures.
type Stat struct {
	Name    string `json:"name"`
	Entries int    `json:"entries"`
	Limit   int    `json:"limit"`
	Hits    int64  `json:"hits"`
	Misses  int64  `json:"misses"`
}

func (c *Map[K, V]) stat() Stat {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Stat{Name: c.name, Entries: len(c.young) + len(c.old), Limit: c.limit, Hits: c.hits.Load(), Misses: c.misses.Load()}
}

func (c *Map[K, V]) setLimit(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = max(n, 2)
	if len(c.young)+len(c.old) > c.limit {
		c.old = nil
	}
	if len(c.young) > c.limit {
		c.young = map[K]V{}
	}
}

// cache is what a Set needs of a Map, whatever its types.
type cache interface {
	stat() Stat
	setLimit(int)
}

// Set owns a server's caches: it gives each its share of one budget of
// entries and reports them all. A budget spent on one server's caches is
// never touched by another's.
type Set struct {
	mu     sync.Mutex
	budget int
	caches []cache
	shares []int
}

// DefaultBudget is the entries a server's caches hold together unless told
// otherwise: enough for the working set of a busy client (a few thousand
// distinct calls) on the published schema.
const DefaultBudget = 32_768

// NewSet returns a Set whose caches hold at most budget entries together
// (DefaultBudget when budget is 0 or less).
func NewSet(budget int) *Set {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Set{budget: budget}
}

func (s *Set) add(c cache, share int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caches, s.shares = append(s.caches, c), append(s.shares, share)
	total := 0
	for _, w := range s.shares {
		total += w
	}
	for i, c := range s.caches {
		c.setLimit(s.budget * s.shares[i] / total)
	}
}

// Stats reports every cache of the set, by name.
func (s *Set) Stats() []Stat {
	s.mu.Lock()
	caches := slices.Clone(s.caches)
	s.mu.Unlock()
	out := make([]Stat, 0, len(caches))
	for _, c := range caches {
		out = append(out, c.stat())
	}
	slices.SortStableFunc(out, func(a, b Stat) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}
