package ratelimit

import (
	"github.com/wmsmock/wmsmock/internal/ratewindow"

	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/clock"
)

var start = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a limiter on a fake clock that tests move to absolute offsets
// from start. m holds the rule (for a Redis limiter, the Memory whose code
// it decides with); lim is the limiter under test.
type fixture struct {
	t   *testing.T
	clk *clock.Fake
	m   *Memory
	lim tested
	// origin is where the limiter's bucket grid starts, as an offset from
	// start: 0 for Memory (its grid starts at its creation), start's
	// distance from the Unix epoch for Redis.
	origin int64
}

// tested is what the shared behaviour tests call.
type tested = Limiter

// decide is Decide for tests: a failure (Redis not answering, its script
// and the rule disagreeing) fails the test instead of passing for a
// refusal.
func decide(t testing.TB, l Limiter, key string) Decision {
	t.Helper()
	d, err := l.Decide(key)
	if err != nil {
		t.Fatalf("deciding on %q: %v", key, err)
	}
	return d
}

func newFixture(t *testing.T, windows []Window, opts ...Option) *fixture {
	t.Helper()
	return newFixtureOf(t, "memory", windows, opts...)
}

// kinds are the limiters the shared behaviour tests run against.
var kinds = []string{"memory", "redis"}

func newFixtureOf(t *testing.T, kind string, windows []Window, opts ...Option) *fixture {
	t.Helper()
	clk := clock.NewFake(start)
	opts = append([]Option{WithClock(clk)}, opts...)
	if kind == "memory" {
		m := NewMemory(windows, opts...)
		return &fixture{t: t, clk: clk, m: m, lim: m}
	}
	mr := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	r := NewRedis(c, "test:rate", windows, opts...)
	return &fixture{t: t, clk: clk, m: r.rule, lim: r, origin: start.UnixNano()}
}

// eachKind runs fn as a subtest per kind of limiter.
func eachKind(t *testing.T, fn func(t *testing.T, kind string)) {
	for _, k := range kinds {
		t.Run(k, func(t *testing.T) { fn(t, k) })
	}
}

func (f *fixture) snapshot() []Counter {
	f.t.Helper()
	c, err := f.lim.Counters()
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *fixture) at(d time.Duration) *fixture {
	f.t.Helper()
	if now := f.clk.Now().Sub(start); d < now {
		f.t.Fatalf("test bug: moving clock back from %v to %v", now, d)
	}
	f.clk.Set(start.Add(d))
	return f
}

// calls makes n calls for key and returns their decisions.
func (f *fixture) calls(key string, n int) []Decision {
	out := make([]Decision, n)
	for i := range out {
		out[i] = decide(f.t, f.lim, key)
	}
	return out
}

func allowedPrefix(ds []Decision) (int, error) {
	n := 0
	for n < len(ds) && ds[n].Allowed {
		n++
	}
	for i := n; i < len(ds); i++ {
		if ds[i].Allowed {
			return n, fmt.Errorf("call %d allowed after call %d was rejected", i, n)
		}
	}
	return n, nil
}

var perSecond = []Window{{Limit: 20, Period: time.Second}}

func TestRollingWindowScenarios(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		type step struct {
			at      time.Duration
			n       int
			allowed int
			retry   time.Duration // RetryAfter of the first rejected call
		}
		ms := time.Millisecond
		cases := []struct {
			name  string
			steps []step
		}{
			{"burst of 25 then one period later", []step{
				{0, 25, 20, time.Second},
				{999*ms + 999_999, 1, 0, 1},
				{time.Second, 25, 20, time.Second},
			}},
			{"staggered halves roll, not reset", []step{
				{0, 10, 10, 0},
				{500 * ms, 11, 10, 500 * ms},
				{999 * ms, 1, 0, ms},
				// (0, 1s] no longer holds the calls made at 0: exactly 10 free.
				{time.Second, 11, 10, 500 * ms},
				{1500 * ms, 11, 10, 500 * ms},
				{2 * time.Second, 11, 10, 500 * ms},
			}},
			{"a fixed window would reset at 1s, the rolling one does not", []step{
				{900 * ms, 20, 20, 0},
				{time.Second, 1, 0, 900 * ms},
				{1899 * ms, 1, 0, ms},
				{1900 * ms, 21, 20, time.Second},
			}},
			{"spread calls free one slot at a time", []step{
				{0, 5, 5, 0}, {100 * ms, 5, 5, 0}, {200 * ms, 5, 5, 0}, {300 * ms, 6, 5, 700 * ms},
				{time.Second, 6, 5, 100 * ms},
				{1050 * ms, 1, 0, 50 * ms},
				{1100 * ms, 6, 5, 100 * ms},
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixtureOf(t, kind, perSecond)
				for i, s := range tc.steps {
					ds := f.at(s.at).calls("tok", s.n)
					got, err := allowedPrefix(ds)
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if got != s.allowed {
						t.Fatalf("step %d at %v: %d of %d allowed, want %d", i, s.at, got, s.n, s.allowed)
					}
					if got < s.n && ds[got].RetryAfter != s.retry {
						t.Errorf("step %d at %v: RetryAfter %v, want %v", i, s.at, ds[got].RetryAfter, s.retry)
					}
				}
			})
		}
	})
}

func TestBurstHeaders(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		f := newFixtureOf(t, kind, perSecond)
		ds := f.calls("tok", 25)
		for i, d := range ds[:20] {
			want := Decision{Allowed: true, Limit: 20, Remaining: 19 - i, Reset: start.Add(time.Second)}
			if d != want {
				t.Errorf("call %d: %+v, want %+v", i, d, want)
			}
		}
		for i, d := range ds[20:] {
			want := Decision{Limit: 20, Remaining: 0, Reset: start.Add(time.Second), RetryAfter: time.Second}
			if d != want {
				t.Errorf("call %d: %+v, want %+v", 20+i, d, want)
			}
			if d.RetryAfterSeconds() != 1 || d.ResetUnix() != start.Unix()+1 {
				t.Errorf("call %d: headers Retry-After %d Reset %d", 20+i, d.RetryAfterSeconds(), d.ResetUnix())
			}
		}
		f.at(300 * time.Millisecond)
		if d := decide(f.t, f.lim, "tok"); d.Allowed || d.RetryAfter != 700*time.Millisecond || d.RetryAfterSeconds() != 1 {
			t.Errorf("at 0.3s: %+v", d)
		}
		f.at(time.Second)
		if d := decide(f.t, f.lim, "tok"); !d.Allowed || d.Remaining != 19 || !d.Reset.Equal(start.Add(2*time.Second)) {
			t.Errorf("after 1s: %+v", d)
		}
	})
}

func TestKeysAreIsolated(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		f := newFixtureOf(t, kind, []Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}})
		if n, _ := allowedPrefix(f.calls("A", 100)); n != 20 {
			t.Fatalf("A: %d allowed, want 20", n)
		}
		ds := f.calls("B", 21)
		if n, _ := allowedPrefix(ds); n != 20 || ds[0].Remaining != 19 {
			t.Fatalf("B after A is exhausted: %d allowed (first %+v), want 20", n, ds[0])
		}
	})
}

func TestRejectedCallsAreNotCounted(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		f := newFixtureOf(t, kind, []Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}})
		f.calls("tok", 20)
		refused := 1000
		if kind != "memory" {
			refused = 100 // a round trip each
		}
		for i, d := range f.at(999*time.Millisecond).calls("tok", refused) {
			if d.Allowed || d.RetryAfter != time.Millisecond {
				t.Fatalf("rejected call %d: %+v", i, d)
			}
		}
		ds := f.at(time.Second).calls("tok", 21)
		if n, _ := allowedPrefix(ds); n != 20 {
			t.Fatalf("after 1000 rejected calls and 1s: %d allowed, want 20", n)
		}
		if got := f.snapshot()[0].Used; got[0] != 20 || got[1] != 40 {
			t.Errorf("Used %v, want [20 40]", got)
		}
	})
}

func TestCountRejected(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		f := newFixtureOf(t, kind, perSecond, WithCountRejected(true))
		f.calls("tok", 20)
		f.at(500*time.Millisecond).calls("tok", 20) // counted although rejected
		if d := decide(f.t, f.at(time.Second).lim, "tok"); d.Allowed || d.RetryAfter != 500*time.Millisecond {
			t.Fatalf("at 1s: %+v, want rejected until 1.5s", d)
		}
		// The refused call at 1s still counts until 2s.
		ds := f.at(1500*time.Millisecond).calls("tok", 21)
		if n, _ := allowedPrefix(ds); n != 19 {
			t.Fatalf("at 1.5s: %d allowed, want 19", n)
		}
	})
}

// The contract's windows: 20/s makes 72000/h redundant, so an hour of
// saturated seconds is followed by another without a single rejection, and
// the hour is still counted, in minutes: a token's state is the 20
// timestamps and 61 counters, not 3601.
func TestHourDefaultWindows(t *testing.T) {
	f := newFixture(t, []Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}})
	if f.m.specs[1].enforced || !f.m.specs[1].bucketed || f.m.specs[1].width != int64(time.Minute) || f.m.specs[1].slots != 61 {
		t.Fatalf("hour spec %+v: want bucketed by 1m, 61 slots, not enforced", f.m.specs[1])
	}
	for s := range 3600 {
		ds := f.at(time.Duration(s)*time.Second).calls("tok", 21)
		if n, err := allowedPrefix(ds); n != 20 || err != nil {
			t.Fatalf("second %d: %d allowed (%v)", s, n, err)
		}
		if ds[20].Limit != 20 || ds[20].RetryAfter != time.Second {
			t.Fatalf("second %d: rejection %+v", s, ds[20])
		}
	}
	if got := f.m.Snapshot()[0].Used; got[0] != 20 || got[1] != 72000 {
		t.Fatalf("after an hour: Used %v, want [20 72000]", got)
	}
	if held := heldBytes(f.m, "tok"); held > 20*8+61*4 {
		t.Fatalf("a token holds %d bytes of counts, want at most %d", held, 20*8+61*4)
	}
	if d := f.at(3599*time.Second + 500*time.Millisecond).m.Allow("tok"); d.Allowed || d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("at 3599.5s: %+v", d)
	}
	if n, _ := allowedPrefix(f.at(3600*time.Second).calls("tok", 21)); n != 20 {
		t.Fatalf("at 3600s: %d allowed, want 20", n)
	}
	if got := f.m.Snapshot()[0].Used; got[1] != 72000 {
		t.Fatalf("at 3600s: hour Used %d, want 72000 (the calls at 0 left)", got[1])
	}
}

// An hour window that does bind: 36000/h is used up in 30 minutes at 20/s.
func TestHourBucketedWindowBinds(t *testing.T) {
	f := newFixture(t, []Window{{Limit: 20, Period: time.Second}, {Limit: 36000, Period: time.Hour}})
	if !f.m.specs[1].enforced {
		t.Fatal("36000/h should be enforced")
	}
	for s := range 1800 {
		if n, _ := allowedPrefix(f.at(time.Duration(s)*time.Second).calls("tok", 20)); n != 20 {
			t.Fatalf("second %d: %d allowed", s, n)
		}
	}
	d := f.m.Allow("tok") // at 1799s: both windows are full; the hour holds on longer
	if d.Allowed || d.Limit != 36000 || d.RetryAfter != 1801*time.Second || !d.Reset.Equal(start.Add(time.Hour)) {
		t.Fatalf("at 1799s: %+v", d)
	}
	d = f.at(1800 * time.Second).m.Allow("tok")
	if d.Allowed || d.Limit != 36000 || d.RetryAfter != 1800*time.Second {
		t.Fatalf("at 1800s: %+v", d)
	}
	d = f.at(3599*time.Second + 999*time.Millisecond).m.Allow("tok")
	if d.Allowed || d.RetryAfter != time.Millisecond {
		t.Fatalf("at 3599.999s: %+v", d)
	}
	// On the bucket grid the hour window is exact: the 20 calls made at 0
	// leave at 3600s.
	ds := f.at(3600*time.Second).calls("tok", 21)
	if n, _ := allowedPrefix(ds); n != 20 {
		t.Fatalf("at 3600s: %d allowed, want 20", n)
	}
	// Both windows are full again and both free a slot at 3601s.
	if ds[19].Remaining != 0 || !ds[19].Reset.Equal(start.Add(3601*time.Second)) {
		t.Errorf("last allowed at 3600s: %+v", ds[19])
	}
	if d := ds[20]; d.RetryAfter != time.Second {
		t.Errorf("rejected at 3600s: %+v", d)
	}
}

// A scaled-down pair of windows, small enough to read: 3/s and 10/min.
func TestMinuteWindowScaled(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		f := newFixtureOf(t, kind, []Window{{Limit: 3, Period: time.Second}, {Limit: 10, Period: time.Minute}})
		type want struct {
			at            time.Duration
			n, allowed    int
			limit, remain int // of the last allowed call
			rejLimit      int
			rejRetry      time.Duration
		}
		s := time.Second
		for i, w := range []want{
			{0, 4, 3, 3, 0, 3, s},
			{s, 4, 3, 3, 0, 3, s},
			{2 * s, 3, 3, 3, 0, 0, 0},
			// Ninth and tenth minute calls: the minute is now the tighter window.
			{3 * s, 2, 1, 10, 0, 10, 57 * s},
			{4 * s, 1, 0, 0, 0, 10, 56 * s},
			{59*s + 999*time.Millisecond, 1, 0, 0, 0, 10, time.Millisecond},
			// The three calls made at 0 leave the minute at 60s.
			{60 * s, 4, 3, 3, 0, 3, s},
		} {
			ds := f.at(w.at).calls("tok", w.n)
			n, _ := allowedPrefix(ds)
			if n != w.allowed {
				t.Fatalf("step %d at %v: %d allowed, want %d", i, w.at, n, w.allowed)
			}
			if n > 0 && (ds[n-1].Limit != w.limit || ds[n-1].Remaining != w.remain) {
				t.Errorf("step %d: last allowed %+v, want Limit %d Remaining %d", i, ds[n-1], w.limit, w.remain)
			}
			if n < w.n && (ds[n].Limit != w.rejLimit || ds[n].RetryAfter != w.rejRetry) {
				t.Errorf("step %d: rejected %+v, want Limit %d RetryAfter %v", i, ds[n], w.rejLimit, w.rejRetry)
			}
		}
	})
}

// Off the bucket grid a bucketed window rejects early, by less than one
// bucket width, and says exactly when it will accept.
func TestBucketEarlyRejectionBound(t *testing.T) {
	f := newFixture(t, []Window{{Limit: 10, Period: time.Minute}}, WithExactLimit(0))
	w := time.Duration(f.m.specs[0].width)
	if w != time.Minute/3600 {
		t.Fatalf("width %v", w)
	}
	f.at(10*time.Millisecond).calls("tok", 10) // in bucket (0, w]
	d := f.at(time.Minute + 10*time.Millisecond).m.Allow("tok")
	// The exact rule would accept now; the bucket leaves at w + 1m.
	if d.Allowed || d.RetryAfter != w-10*time.Millisecond || d.RetryAfter >= w {
		t.Fatalf("at 1m10ms: %+v, want rejected for %v", d, w-10*time.Millisecond)
	}
	if n, _ := allowedPrefix(f.at(time.Minute+w).calls("tok", 11)); n != 10 {
		t.Fatalf("at 1m+w: %d allowed, want 10", n)
	}
}

func TestEviction(t *testing.T) {
	f := newFixture(t, []Window{{Limit: 3, Period: time.Second}, {Limit: 10, Period: time.Minute}}, WithSweepEvery(1))
	f.calls("A", 2)
	// A key that shares A's shard, so that its calls sweep A's shard.
	other := ""
	for i := 0; other == ""; i++ {
		if k := fmt.Sprint("B", i); f.m.shardFor(k) == f.m.shardFor("A") {
			other = k
		}
	}
	f.at(59*time.Second).calls(other, 1)
	if got := f.m.Snapshot(); len(got) != 2 || got[0].Key != "A" || got[0].Used[1] != 2 {
		t.Fatalf("before the minute is over: %+v", got)
	}
	f.at(time.Minute).calls(other, 1)
	got := f.m.Snapshot()
	if len(got) != 1 || got[0].Key != other || got[0].Used[0] != 1 || got[0].Used[1] != 2 {
		t.Fatalf("after A idled a minute: %+v, want only %s", got, other)
	}
	if d := f.m.Allow("A"); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("A after eviction: %+v, want a fresh key", d)
	}
	f.at(3 * time.Minute)
	if n := f.m.Sweep(); n != 2 || len(f.m.Snapshot()) != 0 {
		t.Fatalf("Sweep dropped %d, left %d", n, len(f.m.Snapshot()))
	}
}

func TestSnapshot(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string) {
		ws := []Window{{Limit: 3, Period: time.Second}, {Limit: 10, Period: time.Minute}}
		f := newFixtureOf(t, kind, ws)
		f.calls("b", 5)
		f.calls("a", 1)
		f.at(2*time.Second).calls("b", 1)
		got := f.snapshot()
		if len(got) != 2 || got[0].Key != "a" || got[1].Key != "b" {
			t.Fatalf("keys %+v", got)
		}
		if u := got[0].Used; u[0] != 0 || u[1] != 1 {
			t.Errorf("a: %v", u)
		}
		if u := got[1].Used; u[0] != 1 || u[1] != 4 {
			t.Errorf("b: %v", u)
		}
		got[0].Windows[0].Limit = 99 // a copy: must not reach the limiter
		if f.snapshot()[0].Windows[0].Limit != 3 || f.m.Windows()[0].Limit != 3 {
			t.Error("Snapshot shares its Windows with the limiter")
		}
	})
}

func TestUnlimited(t *testing.T) {
	l := Unlimited()
	for range 1000 {
		if d, err := l.Decide("x"); err != nil || !d.Allowed || d.Limit != 0 {
			t.Fatalf("%+v %v", d, err)
		}
	}
	if c, err := l.Counters(); c != nil || err != nil {
		t.Error("Counters not empty")
	}
	m := NewMemory(nil)
	if d := m.Allow("x"); !d.Allowed || d.Limit != 0 {
		t.Fatalf("no windows: %+v", d)
	}
}

func TestNewMemoryRejectsBadWindows(t *testing.T) {
	for _, w := range []Window{{Limit: 0, Period: time.Second}, {Limit: -1, Period: time.Second}, {Limit: 1, Period: 0}, {Limit: ratewindow.MaxLimit + 1, Period: time.Second}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", w)
				}
			}()
			NewMemory([]Window{w})
		}()
	}
}

func TestDecisionHeaders(t *testing.T) {
	for _, tc := range []struct {
		ra   time.Duration
		want int64
	}{{1, 1}, {time.Second, 1}, {time.Second + 1, 2}, {2500 * time.Millisecond, 3}} {
		if got := (Decision{RetryAfter: tc.ra}).RetryAfterSeconds(); got != tc.want {
			t.Errorf("RetryAfter %v: %d, want %d", tc.ra, got, tc.want)
		}
	}
	if (Decision{Allowed: true}).RetryAfterSeconds() != 0 || (Decision{}).ResetUnix() != 0 {
		t.Error("zero cases")
	}
	if got := (Decision{Reset: start.Add(1)}).ResetUnix(); got != start.Unix()+1 {
		t.Errorf("ResetUnix rounds down: %d", got)
	}
	if got := (Decision{Reset: start}).ResetUnix(); got != start.Unix() {
		t.Errorf("ResetUnix of a whole second: %d", got)
	}
}

func TestImplied(t *testing.T) {
	for _, tc := range []struct {
		a, b Window
		want bool
	}{
		{Window{Limit: 20, Period: time.Second}, Window{Limit: 72000, Period: time.Hour}, true},
		{Window{Limit: 20, Period: time.Second}, Window{Limit: 71999, Period: time.Hour}, false},
		{Window{Limit: 2, Period: 100 * time.Millisecond}, Window{Limit: 30, Period: time.Second}, true},
		{Window{Limit: 3, Period: time.Second}, Window{Limit: 9, Period: 2500 * time.Millisecond}, true}, // 3 intervals
		{Window{Limit: 3, Period: time.Second}, Window{Limit: 8, Period: 2500 * time.Millisecond}, false},
		{Window{Limit: 3, Period: time.Minute}, Window{Limit: 100, Period: time.Second}, false}, // longer period
	} {
		a, b := newSpec(tc.a, DefaultExactLimit), newSpec(tc.b, 0)
		if got := implied(a, b); got != tc.want {
			t.Errorf("%v implies %v: %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if implied(newSpec(Window{Limit: 20, Period: time.Second}, 0), newSpec(Window{Limit: 72000, Period: time.Hour}, 0)) {
		t.Error("a bucketed window implies nothing")
	}
	m := NewMemory([]Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}}, WithCountRejected(true))
	if !m.specs[1].enforced {
		t.Error("with rejected calls counted, the hour must be enforced")
	}
}

// Eviction waits until a key's counts cannot matter, bucket overlap
// included: a key still held back by its bucket must stay held back even
// when a sweep runs.
func TestEvictionNeverChangesDecision(t *testing.T) {
	f := newFixture(t, []Window{{Limit: 2, Period: time.Minute}}, WithExactLimit(0), WithSweepEvery(1))
	w := time.Duration(f.m.specs[0].width)
	f.at(10*time.Millisecond).calls("A", 2)
	other := ""
	for i := 0; other == ""; i++ {
		if k := fmt.Sprint("B", i); f.m.shardFor(k) == f.m.shardFor("A") {
			other = k
		}
	}
	f.at(time.Minute+12*time.Millisecond).calls(other, 1) // sweeps A's shard
	if d := f.m.Allow("A"); d.Allowed || d.RetryAfter != w-12*time.Millisecond {
		t.Fatalf("A at 1m12ms: %+v, want still held back by its bucket", d)
	}
}

// backClock can be set anywhere, including into the past.
type backClock struct{ t time.Time }

func (c *backClock) Now() time.Time { return c.t }

// A clock read out of order (two racing calls, or a clock stepped back)
// must not unsort a key's ring: the key keeps the latest time it saw.
func TestClockGoingBackwards(t *testing.T) {
	clk := &backClock{start}
	m := NewMemory([]Window{{Limit: 20, Period: time.Second}}, WithClock(clk))
	clk.t = start.Add(time.Second)
	for range 10 {
		m.Allow("k")
	}
	clk.t = start.Add(100 * time.Millisecond)
	for range 5 {
		if d := m.Allow("k"); !d.Allowed || !d.Reset.Equal(start.Add(2*time.Second)) {
			t.Fatalf("after stepping back: %+v", d)
		}
	}
	var e *entry
	for i := range m.shards {
		if x := m.shards[i].m["k"]; x != nil {
			e = x
		}
	}
	st := &e.win[0]
	for i := 1; i < st.n; i++ {
		if st.at(i) < st.at(i-1) {
			t.Fatalf("ring out of order at %d: %v", i, st.ts)
		}
	}
}

// heldBytes is the size of the counts a key holds.
func heldBytes(m *Memory, key string) int {
	e := m.shardFor(key).m[key]
	n := 0
	for i := range e.win {
		n += 8*len(e.win[i].ts) + 4*len(e.win[i].counts)
	}
	return n
}
