package resources

import (
	"encoding/json"

	"github.com/wmsmock/wmsmock/internal/memo"
)

// renderOnce returns the encoded rendering for key, building and encoding
// it on a miss. Renderings are kept because building an answer from a record
// (a synthesized valid base, the record's fields fitted over it) is far
// costlier than sending it, and a record's rendering changes only at
// discrete moments: when the record is written, or when its derived state
// (a run's status, task counts, timestamps) moves on. Callers key entries by
// everything the rendering depends on, so a hit is always current.
func renderOnce[K comparable](c *memo.Map[K, json.RawMessage], key K, build func() (any, error)) (json.RawMessage, error) {
	return c.Do(key, func() (json.RawMessage, error) {
		v, err := build()
		if err != nil {
			return nil, err
		}
		return json.Marshal(v)
	})
}
