package ratelimit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// reference is the rule written the slow, obvious way: every counted call
// is kept, and a window's count is a plain count over an interval.
type reference struct {
	windows  []refWindow
	countAll bool  // count rejected calls too
	origin   int64 // where the bucket grid starts, relative to start
	calls    map[string][]int64

	accepted, rejected int
}

type refWindow struct {
	limit    int
	period   int64
	width    int64 // 0: exact; else the bucket width of the documented widened rule
	enforced bool
}

// floorTo rounds x down to a multiple of w, for negative x too.
func floorTo(x, w int64) int64 {
	r := ((x % w) + w) % w
	return x - r
}

// used counts calls in (lo, t], lo being t-period, or for a bucketed
// window t-period rounded down to the bucket grid.
func (r *reference) used(key string, w refWindow, t int64, exact bool) int {
	lo := t - w.period
	if w.width > 0 && !exact {
		lo = floorTo(lo+r.origin, w.width) - r.origin
	}
	cs := r.calls[key]
	a, _ := slices.BinarySearch(cs, lo+1)
	b, _ := slices.BinarySearch(cs, t+1)
	return b - a
}

func (r *reference) allows(key string, t int64) bool {
	for _, w := range r.windows {
		if w.enforced && r.used(key, w, t, false) >= w.limit {
			return false
		}
	}
	return true
}

type propConfig struct {
	name     string
	windows  []Window
	opts     []Option
	bucketed []bool
	enforced []bool
	countAll bool
}

func TestMatchesReference(t *testing.T) {
	cfgs := []propConfig{
		{name: "exact", windows: []Window{{Limit: 3, Period: time.Second}, {Limit: 10, Period: 10 * time.Second}},
			bucketed: []bool{false, false}, enforced: []bool{true, true}},
		{name: "minute in buckets off grid", windows: []Window{{Limit: 5, Period: time.Second}, {Limit: 40, Period: time.Minute}}, opts: []Option{WithExactLimit(5)},
			bucketed: []bool{false, true}, enforced: []bool{true, true}},
		{name: "1ms buckets", windows: []Window{{Limit: 3, Period: time.Second}, {Limit: 10, Period: 3600 * time.Millisecond}}, opts: []Option{WithExactLimit(3)},
			bucketed: []bool{false, true}, enforced: []bool{true, true}},
		{name: "implied bucketed window", windows: []Window{{Limit: 2, Period: 100 * time.Millisecond}, {Limit: 30, Period: time.Second}}, opts: []Option{WithExactLimit(2)},
			bucketed: []bool{false, true}, enforced: []bool{true, false}},
		{name: "contract windows", windows: []Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}},
			bucketed: []bool{false, true}, enforced: []bool{true, false}},
		{name: "count rejected", windows: []Window{{Limit: 3, Period: time.Second}, {Limit: 20, Period: 10 * time.Second}}, opts: []Option{WithExactLimit(3), WithCountRejected(true)},
			bucketed: []bool{false, true}, enforced: []bool{true, true}, countAll: true},
	}
	for _, cfg := range cfgs {
		for _, kind := range kinds {
			// A Redis call is a script's round trip: one seed per
			// configuration there, four in memory.
			seeds := uint64(4)
			if kind != "memory" {
				seeds = 1
			}
			for seed := range seeds {
				t.Run(fmt.Sprintf("%s/%s/seed%d", kind, cfg.name, seed), func(t *testing.T) {
					checkAgainstReference(t, kind, cfg, seed)
				})
			}
		}
	}
}

func checkAgainstReference(t *testing.T, kind string, cfg propConfig, seed uint64) {
	f := newFixtureOf(t, kind, cfg.windows, append(cfg.opts, WithSweepEvery(5))...)
	ref := &reference{countAll: cfg.countAll, calls: map[string][]int64{}, origin: f.origin}
	for i, sp := range f.m.specs {
		if sp.bucketed != cfg.bucketed[i] || sp.enforced != cfg.enforced[i] {
			t.Fatalf("window %v: bucketed %v enforced %v, want %v %v", sp.Window, sp.bucketed, sp.enforced, cfg.bucketed[i], cfg.enforced[i])
		}
		ref.windows = append(ref.windows, refWindow{sp.Limit, sp.period, sp.width, sp.enforced})
	}

	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	keys := []string{"a", "b", "c"}
	var now int64
	horizon := int64(10 * time.Minute)
	if kind != "memory" {
		horizon = int64(3 * time.Minute)
		if testenv.RaceEnabled {
			horizon = int64(30 * time.Second)
		}
	}
	for now < horizon {
		switch k := rng.IntN(100); {
		case k < 30: // same instant
		case k < 60:
			now += rng.Int64N(int64(100 * time.Millisecond))
		case k < 75: // onto the millisecond grid, where 1ms buckets are exact
			now += int64(time.Millisecond) - now%int64(time.Millisecond) + rng.Int64N(3)*int64(time.Millisecond)
		case k < 97:
			now += rng.Int64N(int64(time.Second))
		case k < 99:
			now += rng.Int64N(int64(10 * time.Second))
		default: // long enough for keys to be evicted
			now += int64(time.Minute) + rng.Int64N(int64(time.Minute))
		}
		key := keys[rng.IntN(len(keys))]
		n := 1
		if rng.IntN(10) == 0 {
			n += rng.IntN(30) // a burst, to reach the larger limits
		}
		f.at(time.Duration(now))
		for range n {
			checkOneCall(t, f, ref, cfg.countAll, key, now)
		}
	}
	if ref.accepted == 0 || ref.rejected == 0 {
		t.Fatalf("uninformative run: %d accepted, %d rejected", ref.accepted, ref.rejected)
	}
	t.Logf("%d accepted, %d rejected", ref.accepted, ref.rejected)
}

func checkOneCall(t *testing.T, f *fixture, ref *reference, countAll bool, key string, now int64) {
	t.Helper()
	d := decide(f.t, f.lim, key)
	if want := ref.allows(key, now); d.Allowed != want {
		t.Fatalf("key %s at %v: allowed %v, reference %v (%+v)", key, time.Duration(now), d.Allowed, want, d)
	}
	if d.Allowed {
		// Never more permissive than the exact rule, whatever the storage.
		for _, w := range ref.windows {
			if n := ref.used(key, w, now, true); n >= w.limit {
				t.Fatalf("at %v: accepted with %d calls already in %d/%v", time.Duration(now), n, w.limit, time.Duration(w.period))
			}
		}
	}
	if d.Allowed || countAll {
		ref.calls[key] = append(ref.calls[key], now)
	}
	if d.Allowed {
		ref.accepted++
		checkAllowedHeaders(t, ref, key, now, d)
	} else {
		ref.rejected++
		checkRejectedHeaders(t, ref, key, now, d)
	}
}

// The reported window is the one with the fewest calls left, and Reset is
// the first instant at which it holds fewer calls than now.
func checkAllowedHeaders(t *testing.T, ref *reference, key string, now int64, d Decision) {
	t.Helper()
	minLeft, chosen := -1, -1
	for i, w := range ref.windows {
		if !w.enforced {
			continue
		}
		left := w.limit - ref.used(key, w, now, false)
		if minLeft < 0 || left < minLeft {
			minLeft = left
		}
		if left == d.Remaining && w.limit == d.Limit {
			chosen = i
		}
	}
	if d.Remaining != minLeft || chosen < 0 {
		t.Fatalf("at %v: %+v, want Remaining %d of a window with that Limit", time.Duration(now), d, minLeft)
	}
	reset := int64(d.Reset.Sub(start))
	w := ref.windows[chosen]
	u := ref.used(key, w, now, false)
	if reset <= now || ref.used(key, w, reset, false) >= u || ref.used(key, w, reset-1, false) != u {
		t.Fatalf("at %v: Reset %v is not when the window first frees a slot", time.Duration(now), time.Duration(reset))
	}
	// Ties on Remaining go to the window that frees a slot last.
	for _, o := range ref.windows {
		if o.enforced && o.limit-ref.used(key, o, now, false) == minLeft && ref.used(key, o, reset, false) >= ref.used(key, o, now, false) {
			t.Fatalf("at %v: a tied window frees its slot after Reset %v", time.Duration(now), time.Duration(reset))
		}
	}
}

// RetryAfter is exactly the wait until the reference would accept.
func checkRejectedHeaders(t *testing.T, ref *reference, key string, now int64, d Decision) {
	t.Helper()
	ra := int64(d.RetryAfter)
	if ra <= 0 || d.Remaining != 0 || int64(d.Reset.Sub(start)) != now+ra {
		t.Fatalf("at %v: rejection %+v", time.Duration(now), d)
	}
	if !ref.allows(key, now+ra) || ref.allows(key, now+ra-1) {
		t.Fatalf("at %v: RetryAfter %v is not the first instant the reference accepts", time.Duration(now), d.RetryAfter)
	}
	for _, w := range ref.windows {
		if w.enforced && w.limit == d.Limit && ref.used(key, w, now+ra-1, false) >= w.limit {
			return
		}
	}
	t.Fatalf("at %v: Limit %d is not a window holding the call back until %v", time.Duration(now), d.Limit, d.RetryAfter)
}
