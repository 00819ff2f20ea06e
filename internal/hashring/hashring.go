// Package hashring is a consistent-hash ring over a set of ids, as the
// fake uses to point a generated reference at an item it holds.
package hashring

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/wmsmock/wmsmock/internal/fnv1a"
)

// Ring is a consistent-hash ring over a set of ids: a value is given the
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
type Ring struct {
	chunks [][]ringPoint // each sorted; chunk i's points all precede chunk i+1's
	// lasts[i] is chunk i's last point. The search for a point's chunk
	// reads only this one array: reading each probed chunk's own last
	// point touched memory all over the heap, and with the rings of a few
	// hundred thousand launched runs those cache misses were half of
	// adding a run.
	lasts []ringPoint
	// Ids live once, in names; a point names its id by slot. The points
	// (four for every run ever launched) hold no pointers, so moving them
	// within a chunk needs no write barriers and the collector never
	// scans them.
	slots map[string]uint32
	names []string
	free  []uint32 // slots of removed ids, for reuse
}

type ringPoint struct {
	h    uint64
	slot uint32
}

// ringPoints is how many points an id has: enough that a handful of ids
// share the values about evenly, few enough to keep big rings small.
const ringPoints = 4

const ringChunk = 256

func New() *Ring { return &Ring{slots: map[string]uint32{}} }

func (r *Ring) Len() int { return len(r.slots) }

func (r *Ring) Has(id string) bool {
	_, ok := r.slots[id]
	return ok
}

// pointHash is FNV-1a over the id and the point's number, mixed; written
// out so that hashing allocates nothing.
func pointHash(id string, i int) uint64 {
	return mix64(fnv1a.New().String(id).Byte(0).Byte(byte(i)).Sum())
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

// cmp orders points by hash and, for equal hashes, by id, so the order
// (and every pick) depends only on the ids held, not on the slots they
// were given.
func (r *Ring) cmp(a, b ringPoint) int {
	switch {
	case a.h < b.h:
		return -1
	case a.h > b.h:
		return 1
	}
	return strings.Compare(r.names[a.slot], r.names[b.slot])
}

// chunkFor is the index of the chunk p belongs in: the first whose last
// point is not before p, else the last chunk.
func (r *Ring) chunkFor(p ringPoint) int {
	i, _ := slices.BinarySearchFunc(r.lasts, p, r.cmp)
	return min(i, len(r.chunks)-1)
}

func (r *Ring) Add(id string) {
	if r.Has(id) {
		return
	}
	var slot uint32
	if n := len(r.free); n > 0 {
		slot, r.free = r.free[n-1], r.free[:n-1]
		r.names[slot] = id
	} else {
		slot = uint32(len(r.names))
		r.names = append(r.names, id)
	}
	r.slots[id] = slot
	for i := range ringPoints {
		p := ringPoint{pointHash(id, i), slot}
		if len(r.chunks) == 0 {
			r.chunks, r.lasts = [][]ringPoint{{p}}, []ringPoint{p}
			continue
		}
		ci := r.chunkFor(p)
		c := r.chunks[ci]
		at, _ := slices.BinarySearchFunc(c, p, r.cmp)
		c = slices.Insert(c, at, p)
		if len(c) > ringChunk {
			// Both halves keep room to grow, so the next inserts into
			// either do not reallocate it.
			half := len(c) / 2
			tail := append(make([]ringPoint, 0, ringChunk+1), c[half:]...)
			r.chunks[ci] = c[:half]
			r.chunks = slices.Insert(r.chunks, ci+1, tail)
			r.lasts[ci] = c[half-1]
			r.lasts = slices.Insert(r.lasts, ci+1, tail[len(tail)-1])
			continue
		}
		r.chunks[ci] = c
		r.lasts[ci] = c[len(c)-1]
	}
}

func (r *Ring) Remove(id string) {
	slot, ok := r.slots[id]
	if !ok {
		return
	}
	for i := range ringPoints {
		p := ringPoint{pointHash(id, i), slot}
		ci := r.chunkFor(p)
		c := r.chunks[ci]
		at, found := slices.BinarySearchFunc(c, p, r.cmp)
		if !found {
			continue
		}
		c = slices.Delete(c, at, at+1)
		if len(c) == 0 {
			r.chunks = slices.Delete(r.chunks, ci, ci+1)
			r.lasts = slices.Delete(r.lasts, ci, ci+1)
			continue
		}
		r.chunks[ci] = c
		r.lasts[ci] = c[len(c)-1]
	}
	delete(r.slots, id)
	r.names[slot] = ""
	r.free = append(r.free, slot)
}

// pick is the id owning hash h: the first point at or after h, going
// round to the first point of all.
func (r *Ring) Pick(h uint64) (string, bool) {
	if len(r.chunks) == 0 {
		return "", false
	}
	// A point's place depends on its hash first; a hash alone sorts
	// before every point of that hash.
	before := func(p ringPoint, h uint64) int {
		if p.h < h {
			return -1
		}
		return 1
	}
	ci, _ := slices.BinarySearchFunc(r.lasts, h, before)
	if ci == len(r.chunks) {
		return r.names[r.chunks[0][0].slot], true
	}
	c := r.chunks[ci]
	at, _ := slices.BinarySearchFunc(c, h, before)
	return r.names[c[at].slot], true
}

// ValueHash is where a value sits on the ring: its JSON text, hashed, so
// the same value (a generated id, a number) lands in the same place in
// every process.
func ValueHash(v any) uint64 {
	b, _ := json.Marshal(v)
	return mix64(fnv1a.New().Bytes(b).Sum())
}

// Of builds a ring over ids.
func Of(ids ...string) *Ring {
	r := New()
	for _, id := range ids {
		r.Add(id)
	}
	return r
}
