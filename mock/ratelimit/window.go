package ratelimit

import (
	"math"
	"time"

	"github.com/wmsmock/wmsmock/internal/intdiv"
)

// Times inside the limiter are int64 nanoseconds since the limiter's epoch
// (its clock's reading at construction), so the hot path does plain integer
// arithmetic, and times taken from a real clock keep their monotonic
// reading.

// maxBuckets is how many buckets a bucketed window is cut into: 3600 makes
// the hour window count in whole seconds.
const maxBuckets = 3600

// minBucketWidth keeps buckets from getting absurdly fine for short
// periods with large limits, which would cost memory for no gain.
const minBucketWidth = int64(1e6) // 1ms

// windowSpec is a configured window plus how Memory stores it.
type windowSpec struct {
	Window
	period int64 // ns

	// bucketed windows count calls per bucket of width ns; the ring keeps
	// slots buckets, enough to cover any (now-period, now].
	bucketed bool
	width    int64
	slots    int

	// enforced is false for a window that another, exactly counted window
	// already implies (see implied); it is still counted, for Snapshot,
	// in coarser buckets (see countedOnly).
	enforced bool

	// fixed windows count calls per period aligned to the clock: period
	// number k is [k*period-offset, (k+1)*period-offset) in limiter time,
	// where offset places the limiter's epoch on the wall clock.
	fixed  bool
	offset int64
}

// newFixedSpec is a window counted in fixed periods aligned to the clock.
func newFixedSpec(w Window, epoch time.Time) windowSpec {
	sp := windowSpec{Window: w, period: int64(w.Period), enforced: true, fixed: true}
	sp.offset = epoch.UnixNano() % sp.period
	if sp.offset < 0 {
		sp.offset += sp.period
	}
	return sp
}

// fixedPeriod is the number of the fixed period holding now.
func fixedPeriod(sp *windowSpec, now int64) int64 { return intdiv.Floor(now+sp.offset, sp.period) }

// fixedEnd is when period k ends, in limiter time.
func fixedEnd(sp *windowSpec, k int64) int64 { return (k+1)*sp.period - sp.offset }

func newSpec(w Window, exactMax int) windowSpec {
	sp := windowSpec{Window: w, period: int64(w.Period), enforced: true}
	if w.Limit > exactMax {
		sp.bucketed = true
		sp.width = max(sp.period/maxBuckets, minBucketWidth)
		// A window (now-period, now] touches at most ceil(period/width)+1
		// buckets (one more when now is off the bucket grid).
		sp.slots = int(intdiv.Ceil(sp.period, sp.width)) + 1
	}
	return sp
}

// countedOnlyBuckets is how many buckets a window that is counted but not
// enforced is cut into. Only Snapshot reads it, so its count may be
// conservative by a sixtieth of its period (a minute for the hour), and a
// token's state for the default profile stays small: 61 four-byte counters
// for the hour instead of 3601.
const countedOnlyBuckets = 60

// countedOnly turns a bucketed window into one that is counted, for
// Snapshot, but never decides a call, in coarser buckets.
func countedOnly(sp windowSpec) windowSpec {
	sp.enforced = false
	sp.width = max(sp.period/countedOnlyBuckets, sp.width)
	sp.slots = int(intdiv.Ceil(sp.period, sp.width)) + 1
	return sp
}

// implied reports whether window b can never be the one that rejects a call
// because exact window a rejects first: any interval of length b.Period
// is covered by k = ceil(b/a) intervals of length a.Period, each holding at
// most a.Limit accepted calls, and the newest fewer than a.Limit before a
// call is accepted; so with k*a.Limit <= b.Limit, b always has room.
// It relies on only accepted calls being counted.
func implied(a, b windowSpec) bool {
	if a.bucketed || a.fixed || b.fixed || a.period > b.period {
		return false
	}
	k := intdiv.Ceil(b.period, a.period)
	return k <= int64(b.Limit)/int64(a.Limit)
}

// winState is one key's counts for one window: either an exact ring of
// timestamps or a ring of bucket counters, whichever the spec says.
type winState struct {
	// Exact: the timestamps of the last Limit counted calls, oldest at
	// head. The window has room iff fewer than Limit calls are held or the
	// oldest is at or before now-period; that is exact because timestamps
	// are recorded in non-decreasing order.
	ts   []int64
	head int
	n    int

	// Bucketed: bucket b holds calls with timestamps in ((b-1)*width,
	// b*width]. The ring holds buckets last-slots+1 .. last, total is their
	// sum and no bucket before first holds a call (a hint that makes
	// finding the oldest call amortised O(1)).
	counts []uint32
	last   int64
	first  int64
	total  int64
}

// prepare brings the state up to now; for bucketed windows it clears the
// buckets that fell out of the ring. now never decreases for a key.
func (s *winState) prepare(sp *windowSpec, now int64) {
	if sp.fixed {
		// last is the period counted, total its count; n marks a state
		// that has counted a period at all.
		if k := fixedPeriod(sp, now); s.n == 0 || k != s.last {
			s.last, s.total, s.n = k, 0, 1
		}
		return
	}
	if !sp.bucketed {
		if s.ts == nil {
			s.ts = make([]int64, sp.Limit)
		}
		return
	}
	b := intdiv.Ceil(now, sp.width)
	if s.counts == nil {
		s.counts = make([]uint32, sp.slots)
		s.last, s.first = b, b
		return
	}
	if b <= s.last {
		return
	}
	if b-s.last >= int64(sp.slots) {
		clear(s.counts)
		s.total = 0
	} else {
		for x := s.last + 1; x <= b; x++ {
			i := x % int64(sp.slots)
			s.total -= int64(s.counts[i])
			s.counts[i] = 0
		}
	}
	s.last = b
}

// at returns the i-th held timestamp of an exact ring, 0 being the oldest.
func (s *winState) at(i int) int64 {
	j := s.head + i
	if j >= len(s.ts) {
		j -= len(s.ts)
	}
	return s.ts[j]
}

// record counts a call at now (after prepare).
func (s *winState) record(sp *windowSpec, now int64) {
	if sp.fixed {
		s.total++
		return
	}
	if !sp.bucketed {
		if s.n < len(s.ts) {
			j := s.head + s.n
			if j >= len(s.ts) {
				j -= len(s.ts)
			}
			s.ts[j] = now
			s.n++
			return
		}
		s.ts[s.head] = now
		s.head++
		if s.head == len(s.ts) {
			s.head = 0
		}
		return
	}
	i := s.last % int64(sp.slots)
	if s.counts[i] < math.MaxUint32 {
		s.counts[i]++
		s.total++
	}
}

// bucketMin is the oldest bucket that overlaps (now-period, now].
func bucketMin(sp *windowSpec, now int64) int64 {
	return intdiv.Floor(now-sp.period, sp.width) + 1
}

// bucketSum is the conservative count for (now-period, now]: every call
// in a bucket that overlaps the window (after prepare).
func (s *winState) bucketSum(sp *windowSpec, now int64) int64 {
	sum := s.total
	// Buckets before 0 never held a call (times start at 0); skipping them
	// also keeps the ring index non-negative.
	for x := max(s.last-int64(sp.slots)+1, 0); x < bucketMin(sp, now); x++ {
		sum -= int64(s.counts[x%int64(sp.slots)])
	}
	return sum
}

// acceptAt returns the earliest time, now or later, at which the window
// has room for a call, assuming nothing else is counted meanwhile.
func (s *winState) acceptAt(sp *windowSpec, now int64) int64 {
	if sp.fixed {
		if s.total < int64(sp.Limit) {
			return now
		}
		return fixedEnd(sp, s.last)
	}
	if !sp.bucketed {
		if s.n < len(s.ts) {
			return now
		}
		// The oldest of the last Limit counted calls must leave the
		// window: at oldest+period, (t-period, t] no longer holds it.
		if t := s.ts[s.head] + sp.period; t > now {
			return t
		}
		return now
	}
	sum := s.bucketSum(sp, now)
	if sum < int64(sp.Limit) {
		return now
	}
	// Drop buckets oldest first until the rest has room; bucket x leaves
	// the window once bucketMin exceeds it, at t = x*width + period.
	x := max(s.first, bucketMin(sp, now))
	slots := int64(sp.slots)
	for s.counts[x%slots] == 0 {
		x++
	}
	s.first = x
	for {
		for s.counts[x%slots] == 0 {
			x++
		}
		sum -= int64(s.counts[x%slots])
		if sum < int64(sp.Limit) {
			return x*sp.width + sp.period
		}
		x++
	}
}

// usage returns the count in (now-period, now] (conservative for buckets)
// and when the oldest counted call leaves the window, i.e. when the window
// next frees a slot (now if it holds nothing).
func (s *winState) usage(sp *windowSpec, now int64) (used int64, reset int64) {
	if sp.fixed {
		if s.total == 0 {
			return 0, now
		}
		return s.total, fixedEnd(sp, s.last)
	}
	if !sp.bucketed {
		cut := now - sp.period
		lo, hi := 0, s.n
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if s.at(mid) > cut {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if lo == s.n {
			return 0, now
		}
		return int64(s.n - lo), s.at(lo) + sp.period
	}
	used = s.bucketSum(sp, now)
	if used == 0 {
		return 0, now
	}
	x := max(s.first, bucketMin(sp, now))
	for s.counts[x%int64(sp.slots)] == 0 {
		x++
	}
	s.first = x
	return used, x*sp.width + sp.period
}
