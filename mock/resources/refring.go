package resources

import (
	"hash/fnv"
	"slices"
)

// ring is a consistent-hash ring over a set of ids: a value is given the
// id whose point on the ring follows the value's hash. Adding an id moves
// only the values its points win (about 1/n of them), removing one moves
// only the values it held, so references already shown stay where they
// are as items come and go, and a restored or rebuilt ring over the same
// ids gives the same picks.
//
// Points are kept in sorted chunks of at most ringChunk, so a pick is two
// binary searches and an add or remove moves at most one chunk's points
// (and the chunk list's pointers): neither grows with the whole ring the
// way one sorted slice would under a stream of launches.
type ring struct {
	chunks [][]ringPoint // each sorted; chunk i's points all precede chunk i+1's
	ids    map[string]struct{}
}

type ringPoint struct {
	h  uint64
	id string
}

// ringPoints is how many points an id has: enough that a handful of ids
// share the values about evenly, few enough to keep big rings small.
const ringPoints = 4

const ringChunk = 256

func newRing() *ring { return &ring{ids: map[string]struct{}{}} }

func (r *ring) len() int { return len(r.ids) }

func (r *ring) has(id string) bool {
	_, ok := r.ids[id]
	return ok
}

func pointHash(id string, i int) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	_, _ = h.Write([]byte{0, byte(i)})
	return mix64(h.Sum64())
}

// mix64 spreads fnv's output over the whole ring (fnv leaves nearby
// inputs close together).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (p ringPoint) less(q ringPoint) bool { return p.h < q.h || p.h == q.h && p.id < q.id }

func cmpPoint(a, b ringPoint) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

// chunkFor is the index of the chunk p belongs in: the first whose last
// point is not before p, else the last chunk.
func (r *ring) chunkFor(p ringPoint) int {
	i, _ := slices.BinarySearchFunc(r.chunks, p, func(c []ringPoint, p ringPoint) int { return cmpPoint(c[len(c)-1], p) })
	return min(i, len(r.chunks)-1)
}

func (r *ring) add(id string) {
	if r.has(id) {
		return
	}
	r.ids[id] = struct{}{}
	for i := range ringPoints {
		p := ringPoint{pointHash(id, i), id}
		if len(r.chunks) == 0 {
			r.chunks = [][]ringPoint{{p}}
			continue
		}
		ci := r.chunkFor(p)
		c := r.chunks[ci]
		at, _ := slices.BinarySearchFunc(c, p, cmpPoint)
		c = slices.Insert(c, at, p)
		if len(c) > ringChunk {
			half := len(c) / 2
			tail := slices.Clone(c[half:])
			r.chunks[ci] = slices.Clip(c[:half])
			r.chunks = slices.Insert(r.chunks, ci+1, tail)
			continue
		}
		r.chunks[ci] = c
	}
}

func (r *ring) remove(id string) {
	if !r.has(id) {
		return
	}
	delete(r.ids, id)
	for i := range ringPoints {
		p := ringPoint{pointHash(id, i), id}
		ci := r.chunkFor(p)
		c := r.chunks[ci]
		at, found := slices.BinarySearchFunc(c, p, cmpPoint)
		if !found {
			continue
		}
		c = slices.Delete(c, at, at+1)
		if len(c) == 0 {
			r.chunks = slices.Delete(r.chunks, ci, ci+1)
			continue
		}
		r.chunks[ci] = c
	}
}

// pick is the id owning hash h: the first point at or after h, going
// round to the first point of all.
func (r *ring) pick(h uint64) (string, bool) {
	if len(r.chunks) == 0 {
		return "", false
	}
	p := ringPoint{h: h}
	ci, _ := slices.BinarySearchFunc(r.chunks, p, func(c []ringPoint, p ringPoint) int { return cmpPoint(c[len(c)-1], p) })
	if ci == len(r.chunks) {
		return r.chunks[0][0].id, true
	}
	c := r.chunks[ci]
	at, _ := slices.BinarySearchFunc(c, p, cmpPoint)
	return c[at].id, true
}

// valueHash is where a generated value sits on the ring.
func valueHash(v any) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(jsonString(v)))
	return mix64(h.Sum64())
}

// ringOf builds a ring over ids.
func ringOf(ids ...string) *ring {
	r := newRing()
	for _, id := range ids {
		r.add(id)
	}
	return r
}
