package runs

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"time"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/spec"
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

// renderKey names everything a run's rendering depends on: the answer
// schema and purpose, the stored record, and the parts of its view at the
// moment of the call (the view moves on with the clock, but only at these
// discrete points).
type renderKey struct {
	schema                       *spec.Schema
	purpose, id                  string
	seq, hash                    uint64
	status                       string
	start, complete, lastUpdated int64
	counts                       workflow.Counts
	// refs is the reference generation: references picked for the
	// run never name an item deleted since (refindex.go).
	refs uint64
}

// cachedRender is render, encoded, from the cache when the run has not
// moved on since it was last rendered. The key holds everything render
// depends on: the schema, the record as stored, and the run's view at now
// reduced to what the answer shows (status, timestamps, task counts).
func (w *runs) cachedRender(x *run, sch *spec.Schema, purpose string, now time.Time) (json.RawMessage, error) {
	key := w.renderKeyOf(x, sch, purpose, now)
	return renderOnce(w.renders, key, func() (any, error) { return w.render(x, sch, purpose, now) })
}

// render is the run's kind's rendering, with the copies of held records in
// it made to show those records (copies.go) and every object completed
// (complete.go): what every answer gets on its way out, done here once per
// cached rendering.
func (w *runs) render(x *run, sch *spec.Schema, purpose string, now time.Time) (map[string]any, error) {
	m, err := x.kind.render(x, sch, purpose, now)
	if err != nil {
		return nil, err
	}
	// The scheduler's run id is what UpdateWorkflow last wrote, else null,
	// whatever kind the run is.
	var sched any
	if x.wf.SchedRunID != nil {
		sched = *x.wf.SchedRunID
	}
	w.k.Fit.Set(sch, m, "schedRunId", sched)
	w.k.Finish(sch, m, now)
	return m, nil
}

func (w *runs) renderKeyOf(x *run, sch *spec.Schema, purpose string, now time.Time) renderKey {
	v := x.wf.At(now)
	return renderKey{schema: sch, purpose: purpose, id: x.id, seq: x.rec.Seq, hash: x.hash,
		status: v.Status, start: unixOrZero(v.Start), complete: unixOrZero(v.Complete),
		lastUpdated: v.LastUpdated.Unix(), counts: workflow.CountsAt(v, workflow.PlanFor(x.id).Total),
		refs: w.k.Refs.Generation()} // the call's handler has synced the index
}

// pageKey finds a cached list answer; listPage holds it with the render
// keys of its entries, which a hit must match.
type pageKey struct {
	schema  *spec.Schema
	total   int
	hasMore bool
	entries uint64 // fingerprint of the entries' render keys
}

type listPage struct {
	keys []renderKey
	body []byte
}

// withArray encodes obj with one more member, key, holding the already
// encoded items. Splicing them in as bytes spares encoding/json from
// scanning every item again (BenchmarkHandlerListWorkflows measures the list path).
func withArray(obj map[string]any, key string, items []json.RawMessage) ([]byte, error) {
	delete(obj, key)
	head, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	name, _ := json.Marshal(key)
	size := len(head) + len(name) + 4
	for _, it := range items {
		size += len(it) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, head[:len(head)-1]...)
	if len(head) > 2 {
		out = append(out, ',')
	}
	out = append(out, name...)
	out = append(out, ':', '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']', '}'), nil
}

// unixOrZero is t in Unix seconds, or 0 for no time. Answers carry times
// to the second, so that is all a rendering can depend on.
func unixOrZero(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}

// hasher fingerprints values for cache keys. Each service has its own
// seed: the hashes are never stored, nor compared across services or runs.
type hasher struct{ seed maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed()} }

// bytes fingerprints a record's content.
func (h hasher) bytes(b []byte) uint64 { return maphash.Bytes(h.seed, b) }

// keys fingerprints a list of render keys.
func (h hasher) keys(keys []renderKey) uint64 {
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	var b [8]byte
	for _, k := range keys {
		binary.LittleEndian.PutUint64(b[:], maphash.Comparable(h.seed, k))
		mh.Write(b[:])
	}
	return mh.Sum64()
}

// taskRenderKey names a task's rendering: the entry schema and the
// stored record as it is.
type taskRenderKey struct {
	schema *spec.Schema
	id     string
	seq    uint64
	hash   uint64
}
