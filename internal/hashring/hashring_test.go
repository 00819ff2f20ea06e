package hashring

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// slowPick is the ring's rule by a scan of every point: the id of the
// smallest point at or after h, else of the smallest point.
func slowPick(ids map[string]bool, h uint64) string {
	type point struct {
		h  uint64
		id string
	}
	var best, first point
	haveBest, haveFirst := false, false
	less := func(p, q point) bool { return p.h < q.h || p.h == q.h && p.id < q.id }
	for id := range ids {
		for i := range ringPoints {
			p := point{pointHash(id, i), id}
			if !haveFirst || less(p, first) {
				first, haveFirst = p, true
			}
			if p.h >= h && (!haveBest || less(p, best)) {
				best, haveBest = p, true
			}
		}
	}
	if haveBest {
		return best.id
	}
	return first.id
}

// lone is a ring with an id table of its own.
type lone struct {
	ids *IDs
	*Ring
}

func newLone() lone {
	ids := NewIDs()
	return lone{ids, ids.Ring()}
}

func (l lone) Add(id string) {
	if _, added := l.ids.Put(id); added {
		l.Ring.Add(id)
	}
}

func (l lone) Remove(id string) {
	l.Ring.Remove(id)
	l.ids.Drop(id)
}

// TestRingPicksAndMovesLittle checks the ring against a scan of all its
// points while ids come and go (past the chunk size, so chunks split and
// empty), and that a change moves only the values the changed id wins or
// held.
func TestRingPicksAndMovesLittle(t *testing.T) {
	r := newLone()
	held := map[string]bool{}
	values := make([]uint64, 200)
	for i := range values {
		values[i] = ValueHash(fmt.Sprintf("v%d", i))
	}
	before := func() []string {
		out := make([]string, len(values))
		for i, h := range values {
			out[i], _ = r.Pick(h)
		}
		return out
	}
	changes := 0
	check := func(what string, old []string, moved func(was, now string) bool) {
		t.Helper()
		changes++
		// The ring's own bookkeeping: chunks in order, and lasts naming
		// each chunk's last point.
		if len(r.lasts) != len(r.chunks) {
			t.Fatalf("%s: %d chunks, %d lasts", what, len(r.chunks), len(r.lasts))
		}
		for i, c := range r.chunks {
			if len(c) == 0 || r.lasts[i] != c[len(c)-1] {
				t.Fatalf("%s: chunk %d of %d points, its last recorded as %+v", what, i, len(c), r.lasts[i])
			}
			if i > 0 && !r.less(r.lasts[i-1], c[0]) {
				t.Fatalf("%s: chunk %d does not follow chunk %d", what, i, i-1)
			}
		}
		scan := changes%20 == 0 // the scan is slow: every 20th change
		for i, h := range values {
			got, ok := r.Pick(h)
			if !ok || !held[got] {
				t.Fatalf("%s: value %d picks %q, which the ring does not hold", what, i, got)
			}
			if scan && got != slowPick(held, h) {
				t.Fatalf("%s: value %d picks %q, the scan %q", what, i, got, slowPick(held, h))
			}
			if old != nil && old[i] != got && !moved(old[i], got) {
				t.Fatalf("%s: value %d moved from %q to %q", what, i, old[i], got)
			}
		}
	}
	if _, ok := r.Pick(1); ok {
		t.Fatal("an empty ring picks")
	}
	for n := range 300 {
		id := fmt.Sprintf("id%d", n)
		old := before()
		r.Add(id)
		held[id] = true
		check("add "+id, old, func(_, now string) bool { return now == id })
	}
	if len(r.chunks) < 2 {
		t.Fatalf("%d points in %d chunks: the test does not split chunks", 300*ringPoints, len(r.chunks))
	}
	for n := 0; n < 300; n += 1 + n%3 {
		id := fmt.Sprintf("id%d", n)
		old := before()
		r.Remove(id)
		delete(held, id)
		check("remove "+id, old, func(was, _ string) bool { return was == id })
	}
	for id := range held {
		r.Remove(id)
	}
	if r.Len() != 0 || len(r.chunks) != 0 {
		t.Fatalf("emptied ring keeps %d ids in %d chunks", r.Len(), len(r.chunks))
	}
}

// pointHash is FNV-1a written out; it must stay the library's FNV-1a of the
// id, a zero byte and the point's number, or every reference the fake has
// shown would move after an upgrade.
func TestPointHashIsFNV(t *testing.T) {
	for _, id := range []string{"", "4kq3T9x", "a much longer identifier of some run"} {
		for i := range ringPoints {
			h := fnv.New64a()
			_, _ = h.Write([]byte(id))
			_, _ = h.Write([]byte{0, byte(i)})
			if got, want := pointHash(id, i), mix64(h.Sum64()); got != want {
				t.Errorf("pointHash(%q, %d) = %x, FNV-1a gives %x", id, i, got, want)
			}
		}
	}
}

// TestSharedTableRingsPickAsOwnRings: rings over parts of one shared id
// table (an index's ring of all ids and its ring per workspace) pick
// exactly what rings with tables of their own over the same ids pick,
// while ids come and go and slots are reused.
func TestSharedTableRingsPickAsOwnRings(t *testing.T) {
	ids := NewIDs()
	all, even := ids.Ring(), ids.Ring()
	ownAll, ownEven := newLone(), newLone()
	add := func(n int) {
		id := fmt.Sprintf("run%d", n)
		if _, added := ids.Put(id); !added {
			t.Fatalf("Put(%q) again reports a new id", id)
		}
		all.Add(id)
		ownAll.Add(id)
		if n%2 == 0 {
			even.Add(id)
			ownEven.Add(id)
		}
	}
	remove := func(n int) {
		id := fmt.Sprintf("run%d", n)
		all.Remove(id)
		ownAll.Remove(id)
		if n%2 == 0 {
			even.Remove(id)
			ownEven.Remove(id)
		}
		ids.Drop(id)
	}
	compare := func(what string) {
		t.Helper()
		if all.Len() != ownAll.Len() || even.Len() != ownEven.Len() || ids.Len() != all.Len() {
			t.Fatalf("%s: lengths %d/%d and %d/%d, table %d", what, all.Len(), ownAll.Len(), even.Len(), ownEven.Len(), ids.Len())
		}
		for i := range 300 {
			h := ValueHash(i)
			a, _ := all.Pick(h)
			b, _ := ownAll.Pick(h)
			c, _ := even.Pick(h)
			d, _ := ownEven.Pick(h)
			if a != b || c != d {
				t.Fatalf("%s: value %d picks %q and %q over all ids, %q and %q over the even ones", what, i, a, b, c, d)
			}
		}
	}
	for n := range 400 {
		add(n)
	}
	compare("after adds")
	for n := 0; n < 400; n += 3 {
		remove(n)
	}
	compare("after removes")
	for n := 400; n < 520; n++ { // reuses the freed slots
		add(n)
	}
	compare("after slots are reused")
	if _, ok := ids.Slot("run1"); !ok {
		t.Fatal("the table lost run1")
	}
	if _, ok := ids.Slot("run0"); ok {
		t.Fatal("the table keeps run0, which was dropped")
	}
}

// TestSearchesStartingAtAGuess holds the searches that start at a guess
// to a plain binary search, on points whose hashes crowd together, repeat
// (ties go by id) and fall outside the bounds the search is given: a
// bad guess may cost steps, never a different answer.
func TestSearchesStartingAtAGuess(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for round := range 400 {
		ids := NewIDs()
		r := ids.Ring()
		n := rnd.IntN(600)
		ps := make([]ringPoint, n)
		spread := uint64(1) << (8 + rnd.IntN(56)) // from crowded to the whole ring
		for i := range ps {
			slot, _ := ids.Put(fmt.Sprintf("id%d", i))
			h := rnd.Uint64() % spread
			if i > 0 && rnd.IntN(4) == 0 {
				h = ps[rnd.IntN(i)].hash() // a tie
			}
			ps[i] = newPoint(h, slot)
		}
		slices.SortFunc(ps, func(a, b ringPoint) int {
			if r.less(a, b) {
				return -1
			}
			if r.less(b, a) {
				return 1
			}
			return 0
		})
		bounds := func() (uint64, uint64) {
			switch rnd.IntN(3) {
			case 0:
				if n > 0 {
					return ps[0].hash(), ps[n-1].hash()
				}
			case 1:
				return 0, ^uint64(0)
			}
			a, b := rnd.Uint64()%spread, rnd.Uint64()%spread // wrong on purpose
			return min(a, b), max(a, b)
		}
		for range 50 {
			var probe ringPoint
			if n > 0 && rnd.IntN(2) == 0 {
				probe = ps[rnd.IntN(n)]
				if rnd.IntN(2) == 0 {
					probe.slot = uint32(rnd.IntN(n)) // same hash, another id
				}
			} else {
				slot, _ := ids.Put(fmt.Sprintf("probe%d", rnd.IntN(50)))
				probe = newPoint(rnd.Uint64()%spread, slot)
			}
			from, to := bounds()
			want := sort.Search(n, func(i int) bool { return !r.less(ps[i], probe) })
			if got := r.search(ps, probe, from, to); got != want {
				t.Fatalf("round %d: search of %+v in %d points (bounds %d, %d) = %d, want %d", round, probe, n, from, to, got, want)
			}
			h := probe.hash()
			wantH := sort.Search(n, func(i int) bool { return ps[i].hash() >= h })
			if got := searchHash(ps, h, from, to); got != wantH {
				t.Fatalf("round %d: searchHash(%d) in %d points (bounds %d, %d) = %d, want %d", round, h, n, from, to, got, wantH)
			}
		}
	}
}

// BenchmarkRingAddRemove adds and removes one id at a time on a ring
// already holding 100,000 (400,000 points), as a stream of launches and
// deletes does: the ring's share of filing a run.
func BenchmarkRingAddRemove(b *testing.B) {
	r := newLone()
	for i := range 100_000 {
		r.Add(fmt.Sprintf("held-%d", i))
	}
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = fmt.Sprintf("new-%d", i)
	}
	i := 0
	for b.Loop() {
		id := ids[i%len(ids)]
		r.Add(id)
		r.Remove(id)
		i++
	}
}
