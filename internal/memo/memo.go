// Package memo holds bounded caches for values that are a pure function of
// their key: validation verdicts, synthesized answers, encoded renderings.
//
// Because a stale entry can never be asked for again (its key names
// everything the value depends on), the cache needs no invalidation and no
// recency order: when it is full it starts over. That keeps a hit to one
// read-locked map lookup, which matters on the request path, and keeps the
// memory a cache can hold bounded by its size.
package memo

import "sync"

// Map is a bounded, concurrency-safe cache. The zero value is not usable;
// call New.
type Map[K comparable, V any] struct {
	mu      sync.RWMutex
	entries map[K]V
	max     int
}

// New returns a cache that holds at most size entries (at least one).
func New[K comparable, V any](size int) *Map[K, V] {
	return &Map[K, V]{entries: make(map[K]V), max: max(size, 1)}
}

// Get returns the value cached for k.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.RLock()
	v, ok := c.entries[k]
	c.mu.RUnlock()
	return v, ok
}

// Put caches v for k, emptying the cache first when it is full.
func (c *Map[K, V]) Put(k K, v V) {
	c.mu.Lock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[k] = v
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
	return len(c.entries)
}
