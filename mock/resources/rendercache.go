package resources

import (
	"encoding/json"
	"sync"
)

// boundedCache is a map that starts over when it is full. It holds values
// derived from records (decodings, encoded renderings) under keys that
// include the record's content, so a stale entry is simply never asked for
// again; rather than track such entries, the cache is cleared when full.
type boundedCache[V any] struct {
	mu      sync.RWMutex
	entries map[string]V
	max     int
}

func newBoundedCache[V any](max int) *boundedCache[V] {
	return &boundedCache[V]{entries: make(map[string]V), max: max}
}

// get returns the value for key, building it on a miss.
func (c *boundedCache[V]) get(key string, build func() (V, error)) (V, error) {
	c.mu.RLock()
	v, ok := c.entries[key]
	c.mu.RUnlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[key] = v
	c.mu.Unlock()
	return v, nil
}

// renderOnce returns the encoded rendering for key, building and encoding
// it on a miss. Renderings are kept because building an answer from a record
// (a synthesized valid base, the record's fields fitted over it) is far
// costlier than sending it, and a record's rendering changes only at
// discrete moments: when the record is written, or when its derived state
// (a run's status, task counts, timestamps) moves on. Callers key entries by
// everything the rendering depends on, so a hit is always current.
func renderOnce(c *boundedCache[json.RawMessage], key string, build func() any) (json.RawMessage, error) {
	return c.get(key, func() (json.RawMessage, error) { return json.Marshal(build()) })
}
