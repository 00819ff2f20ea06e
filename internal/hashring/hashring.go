// Package hashring is a consistent-hash ring over a set of ids, as the
// fake uses to point a generated reference at an item it holds.
package hashring

import (
	"encoding/json"
	"slices"

	"github.com/wmsmock/wmsmock/internal/fnv1a"
)

// IDs numbers a set of ids so that rings over the set, or over parts of
// it, name an id by a slot of four bytes and keep the id's text once: an
// index with a ring of all its ids and one per workspace holds each id's
// name and map entry once, not once per ring. Not safe for concurrent
// use; the rings that share it are guarded together by their owner.
type IDs struct {
	slots map[string]uint32
	names []string
	free  []uint32 // slots of removed ids, for reuse
}

// NewIDs returns an empty table.
func NewIDs() *IDs { return &IDs{slots: map[string]uint32{}} }

// Len is how many ids the table holds.
func (t *IDs) Len() int { return len(t.slots) }

// Slot is id's slot, if the table holds it.
func (t *IDs) Slot(id string) (uint32, bool) {
	s, ok := t.slots[id]
	return s, ok
}

// Put numbers id and reports whether it is new; a known id keeps its slot.
// Slots are small and reused, so a caller may index its own slices by
// them.
func (t *IDs) Put(id string) (slot uint32, added bool) {
	if s, ok := t.slots[id]; ok {
		return s, false
	}
	if n := len(t.free); n > 0 {
		slot, t.free = t.free[n-1], t.free[:n-1]
		t.names[slot] = id
	} else {
		slot = uint32(len(t.names))
		t.names = append(t.names, id)
	}
	t.slots[id] = slot
	return slot, true
}

// Drop forgets id; its slot goes to the next Put. Rings that hold the id
// must remove it first, as its points are found by its name.
func (t *IDs) Drop(id string) {
	s, ok := t.slots[id]
	if !ok {
		return
	}
	delete(t.slots, id)
	t.names[s] = ""
	t.free = append(t.free, s)
}

// Ring is a consistent-hash ring over a set of ids: a value is given the
// id whose point on the ring follows the value's hash. Adding an id moves
// only the values its points win (about 1/n of them), removing one moves
// only the values it held, so references already shown stay where they
// are as items come and go, and a restored or rebuilt ring over the same
// ids gives the same picks.
//
// Points are kept in sorted chunks of at most ringChunk, so a pick is two
// binary searches and an add or remove moves at most one chunk's points
// (and the chunk list's headers): neither grows with the whole ring the
// way one sorted slice would under a stream of launches.
type Ring struct {
	ids *IDs
	n   int // ids held

	chunks [][]ringPoint // each sorted; chunk i's points all precede chunk i+1's
	// lasts[i] is chunk i's last point. The search for a point's chunk
	// reads only this one array: reading each probed chunk's own last
	// point touched memory all over the heap, and with the rings of a few
	// hundred thousand launched runs those cache misses were half of
	// adding a run.
	lasts []ringPoint
}

// ringPoint is one point: its hash in two halves and the slot of its id.
// Twelve bytes and no pointers: the points (four for every run ever
// launched, in each ring that holds it) are most of a ring's memory, and
// the collector never scans them.
type ringPoint struct {
	hi, lo, slot uint32
}

func (p ringPoint) hash() uint64 { return uint64(p.hi)<<32 | uint64(p.lo) }

func newPoint(h uint64, slot uint32) ringPoint {
	return ringPoint{uint32(h >> 32), uint32(h), slot}
}

// ringPoints is how many points an id has: enough that a handful of ids
// share the values about evenly, few enough to keep big rings small.
const ringPoints = 4

const ringChunk = 256

// Ring returns an empty ring over ids of this table. The caller Puts an
// id in the table before it adds it to a ring, and Drops it after it has
// removed it from every ring.
func (t *IDs) Ring() *Ring { return &Ring{ids: t} }

// Len is how many ids the ring holds.
func (r *Ring) Len() int { return r.n }

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

// less orders points by hash and, for equal hashes, by id, so the order
// (and every pick) depends only on the ids held, not on the slots they
// were given.
func (r *Ring) less(a, b ringPoint) bool {
	if ah, bh := a.hash(), b.hash(); ah != bh {
		return ah < bh
	}
	return r.ids.names[a.slot] < r.ids.names[b.slot]
}

// search is the index of the first point of ps not before p (len(ps)
// when all are), ps's hashes lying within [from, to]. Written out rather
// than slices.BinarySearchFunc: the comparison inlines, and a search is
// most of adding an id.
//
// The points' hashes are spread evenly (mix64), so where p's hash lies
// between from and to is a good guess of its index: the search starts
// there and widens until it brackets p, then halves. A binary search from
// the middle reads a point in a new cache line at nearly every step, and
// once a few hundred thousand runs are filed each of those is a miss; the
// guess is off by a few points, which the widening reads in a line or
// two. The bounds come from lasts, which every search reads anyway, so
// the search of a chunk touches the chunk only near the guess. The answer
// is the binary search's: only where the search starts differs.
func (r *Ring) search(ps []ringPoint, p ringPoint, from, to uint64) int {
	lo, hi := bracket(ps, p.hash(), from, to, func(q ringPoint) bool { return r.less(q, p) })
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.less(ps[m], p) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// searchHash is the index of the first point of ps whose hash is at or
// after h, ps's hashes lying within [from, to].
func searchHash(ps []ringPoint, h, from, to uint64) int {
	lo, hi := bracket(ps, h, from, to, func(q ringPoint) bool { return q.hash() < h })
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].hash() < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// guessFrom is the number of points from which a search starts at a guess:
// below it, the halving alone touches few lines.
const guessFrom = 16

// bracket narrows the search for hash h in ps (sorted, hashes within
// [from, to], before(q) true for a prefix of it) to [lo, hi): every point
// before lo is before, none from hi on is. It guesses h's index by where
// h lies between from and to, then steps away from the guess by doubling
// strides. Bounds that are off cost steps, never a wrong answer.
func bracket(ps []ringPoint, h, from, to uint64, before func(ringPoint) bool) (lo, hi int) {
	n := len(ps)
	if n < guessFrom {
		return 0, n
	}
	g := 0
	switch {
	case h <= from:
	case h >= to:
		g = n - 1
	default:
		g = min(max(int(float64(h-from)/float64(to-from)*float64(n)), 0), n-1)
	}
	if before(ps[g]) {
		lo = g + 1
		for step := 1; ; step *= 2 {
			j := g + step
			if j >= n {
				return lo, n
			}
			if !before(ps[j]) {
				return lo, j
			}
			lo = j + 1
		}
	}
	hi = g
	for step := 1; ; step *= 2 {
		j := g - step
		if j < 0 {
			return 0, hi
		}
		if before(ps[j]) {
			return j + 1, hi
		}
		hi = j
	}
}

// span is the range of hashes chunk ci's points lie within: after the
// previous chunk's last point, up to its own last. Both are read from
// lasts, not from the chunk.
func (r *Ring) span(ci int) (from, to uint64) {
	if ci > 0 {
		from = r.lasts[ci-1].hash()
	}
	return from, r.lasts[ci].hash()
}

// lastsSpan is the range of hashes lasts holds.
func (r *Ring) lastsSpan() (from, to uint64) {
	return r.lasts[0].hash(), r.lasts[len(r.lasts)-1].hash()
}

// chunkFor is the index of the chunk p belongs in: the first whose last
// point is not before p, else the last chunk.
func (r *Ring) chunkFor(p ringPoint) int {
	from, to := r.lastsSpan()
	return min(r.search(r.lasts, p, from, to), len(r.chunks)-1)
}

// Add puts id on the ring. The ring takes only ids its table holds
// (IDs.Put), and each at most once.
func (r *Ring) Add(id string) {
	slot, ok := r.ids.Slot(id)
	if !ok {
		return
	}
	r.n++
	for i := range ringPoints {
		r.insert(newPoint(pointHash(id, i), slot))
	}
}

func (r *Ring) insert(p ringPoint) {
	if len(r.chunks) == 0 {
		r.chunks, r.lasts = [][]ringPoint{{p}}, []ringPoint{p}
		return
	}
	ci := r.chunkFor(p)
	c := r.chunks[ci]
	from, to := r.span(ci)
	c = slices.Insert(c, r.search(c, p, from, to), p)
	if len(c) > ringChunk {
		// Both halves keep room to grow, so the next inserts into
		// either do not reallocate it.
		half := len(c) / 2
		tail := append(make([]ringPoint, 0, ringChunk+1), c[half:]...)
		r.chunks[ci] = c[:half]
		r.chunks = slices.Insert(r.chunks, ci+1, tail)
		r.lasts[ci] = c[half-1]
		r.lasts = slices.Insert(r.lasts, ci+1, tail[len(tail)-1])
		return
	}
	r.chunks[ci] = c
	r.lasts[ci] = c[len(c)-1]
}

// Remove takes id off the ring. The id must still be in the table (Drop
// it after).
func (r *Ring) Remove(id string) {
	slot, ok := r.ids.Slot(id)
	if !ok {
		return
	}
	removed := false
	for i := range ringPoints {
		p := newPoint(pointHash(id, i), slot)
		if len(r.chunks) == 0 {
			break
		}
		ci := r.chunkFor(p)
		c := r.chunks[ci]
		from, to := r.span(ci)
		at := r.search(c, p, from, to)
		if at == len(c) || c[at] != p {
			continue
		}
		removed = true
		c = slices.Delete(c, at, at+1)
		if len(c) == 0 {
			r.chunks = slices.Delete(r.chunks, ci, ci+1)
			r.lasts = slices.Delete(r.lasts, ci, ci+1)
			continue
		}
		r.chunks[ci] = c
		r.lasts[ci] = c[len(c)-1]
	}
	if removed {
		r.n--
	}
}

// Pick is the id owning hash h: the first point at or after h, going
// round to the first point of all.
func (r *Ring) Pick(h uint64) (string, bool) {
	if len(r.chunks) == 0 {
		return "", false
	}
	// A point's place depends on its hash first; a hash alone sorts
	// before every point of that hash.
	from, to := r.lastsSpan()
	ci := searchHash(r.lasts, h, from, to)
	if ci == len(r.chunks) {
		return r.ids.names[r.chunks[0][0].slot], true
	}
	c := r.chunks[ci]
	from, to = r.span(ci)
	return r.ids.names[c[searchHash(c, h, from, to)].slot], true
}

// ValueHash is where a value sits on the ring: its JSON text, hashed, so
// the same value (a generated id, a number) lands in the same place in
// every process.
func ValueHash(v any) uint64 {
	b, _ := json.Marshal(v)
	return mix64(fnv1a.New().Bytes(b).Sum())
}
