package ratelimit

import (
	"github.com/wmsmock/wmsmock/internal/ratewindow"

	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// DefaultExactLimit is the largest Limit counted exactly by default.
// An exact window keeps one 8-byte timestamp per allowed call (160 bytes
// for 20/s); above this a bucket ring is cheaper.
const DefaultExactLimit = 1024

// DefaultSweepEvery is how many calls a shard takes between two sweeps for
// idle keys: often enough to bound memory, rare enough to cost nothing.
const DefaultSweepEvery = 4096

// numShards splits the key map so that calls for different keys rarely
// contend on the same lock.
const numShards = 64

// Option configures a Memory.
type Option func(*config)

type config struct {
	clock         clock.Clock
	idle          time.Duration
	sweepEvery    uint64
	exactMax      int
	countRejected bool
	fixed         bool
	timeout       time.Duration // Redis only
}

// WithClock sets the clock the limiter reads; tests pass a clock.Fake and
// move it forward instead of waiting.
func WithClock(c clock.Clock) Option { return func(c2 *config) { c2.clock = c } }

// WithIdleEviction sets how long a key must go without an accepted call
// before a sweep may drop it. Values below the point where the key's counts
// can no longer matter (the longest period plus its bucket width) are
// raised to it, so eviction never changes a decision.
func WithIdleEviction(d time.Duration) Option { return func(c *config) { c.idle = d } }

// WithSweepEvery sets how many calls a shard takes between two sweeps for
// idle keys (minimum 1).
func WithSweepEvery(n int) Option {
	return func(c *config) { c.sweepEvery = uint64(max(n, 1)) }
}

// WithExactLimit sets the largest Limit a window may have and still be
// counted exactly; windows with a larger Limit use buckets. Tests use it to
// put small windows in buckets.
func WithExactLimit(n int) Option { return func(c *config) { c.exactMax = n } }

// WithCountRejected makes rejected calls use up room too (the profile's
// count_rejected), so a client that keeps hammering stays locked out.
// The contract default is off.
func WithCountRejected(on bool) Option { return func(c *config) { c.countRejected = on } }

// WithFixedWindows counts each window in fixed periods aligned to the
// clock (every wall-clock second for "20/s", every hour on the hour for
// "72000/h") instead of rolling ones: the count starts from zero at each
// boundary, so a burst that straddles one can get up to twice the limit
// accepted within one rolling period, as on servers that count this way.
func WithFixedWindows(on bool) Option { return func(c *config) { c.fixed = on } }

// Memory is a Limiter that keeps its counts in process.
//
// Windows whose Limit is at most the exact limit (DefaultExactLimit) are
// counted exactly, with a ring of the last Limit accepted timestamps.
//
// Larger windows, such as 72000/h, would need that many timestamps per
// token, so they count calls in a ring of buckets instead: the period is cut
// into buckets of width w = max(Period/3600, 1ms) (1 s for an hour), laid
// on a grid that starts at the limiter's creation; bucket b holds calls in
// ((b-1)w, bw]. A call counts against the window while its bucket overlaps
// (now-Period, now], so the rule actually enforced is "fewer than Limit
// accepted calls in (floor((now-Period)/w)*w, now]": a window stretched
// back to the bucket boundary, never shorter than Period and less than one
// w longer. It therefore never accepts a call the exact rule would reject;
// when now-Period falls on the grid it decides exactly like the exact rule,
// and otherwise it may reject a call that the exact rule would accept, by
// at most w early (a call held back by it is accepted within w of when the
// exact rule would have accepted it). Snapshot reports the same
// conservative counts. The ring (Period/w+1 uint32 counters, about 14 KB
// for the hour) is allocated on a key's first call.
//
// A bucketed window that an exact window implies is not enforced at all,
// because the exact window always rejects first: with 20/s counted exactly,
// no rolling hour can hold more than 3600*20 = 72000 calls, so the contract's
// 72000/h never binds, and enforcing its buckets could only add early
// rejections. It is still counted, for Snapshot, but in coarser buckets
// (countedOnlyBuckets of them: one a minute for the hour, 61 counters per
// token instead of 3601), since no decision reads it: memory follows what
// the profile enforces. (This does not apply with WithCountRejected, where
// the exact window no longer bounds the other.)
//
// Keys live in a sharded map; a call locks only its shard for reading and
// its key's own mutex. A key with no accepted call for the longest period
// (plus that window's bucket width, if bucketed) can no longer affect a
// decision, so a sweep drops it; sweeps run every DefaultSweepEvery calls
// per shard, in the caller's goroutine: the limiter starts no goroutines or
// timers.
type Memory struct {
	specs         []windowSpec
	windows       []Window
	clock         clock.Clock
	epoch         time.Time
	seed          maphash.Seed
	idle          int64
	sweepEvery    uint64
	countRejected bool
	shards        [numShards]shard
}

type shard struct {
	mu    sync.RWMutex
	m     map[string]*entry
	calls atomic.Uint64
	_     [128 - 40]byte // keep shards on separate cache lines
}

type entry struct {
	mu         sync.Mutex
	dead       bool  // evicted: look the key up again
	seen       int64 // latest time used for this key; time never goes back
	lastAccept int64
	win        []winState
	// inline holds win for the usual one or two windows, so that a call
	// finds the key's state in the same allocation (fewer cache misses
	// with many keys).
	inline [2]winState
}

// NewMemory returns a limiter enforcing every one of windows per key.
// With no windows it accepts everything (prefer Unlimited). It panics on a
// window with Limit outside 1..ratewindow.MaxLimit or a non-positive Period, which
// ParseSpec never returns.
func NewMemory(windows []Window, opts ...Option) *Memory {
	cfg := newConfig(opts)
	return newMemory(windows, cfg, cfg.clock.Now())
}

func newConfig(opts []Option) config {
	cfg := config{clock: clock.Real{}, sweepEvery: DefaultSweepEvery, exactMax: DefaultExactLimit}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// newMemory builds a Memory whose limiter time counts from epoch.
func newMemory(windows []Window, cfg config, epoch time.Time) *Memory {
	m := &Memory{
		windows:       slices.Clone(windows),
		clock:         cfg.clock,
		seed:          maphash.MakeSeed(),
		sweepEvery:    cfg.sweepEvery,
		countRejected: cfg.countRejected,
	}
	m.epoch = epoch
	for _, w := range windows {
		if w.Limit < 1 || w.Limit > ratewindow.MaxLimit || w.Period <= 0 {
			panic(fmt.Sprintf("ratelimit: invalid window %d/%s", w.Limit, w.Period))
		}
		var sp windowSpec
		if cfg.fixed {
			sp = newFixedSpec(w, m.epoch)
		} else {
			sp = newSpec(w, cfg.exactMax)
		}
		m.specs = append(m.specs, sp)
	}
	if !m.countRejected {
		for i := range m.specs {
			if !m.specs[i].bucketed {
				continue
			}
			for j := range m.specs {
				if implied(m.specs[j], m.specs[i]) {
					m.specs[i] = countedOnly(m.specs[i])
					break
				}
			}
		}
	}
	for _, sp := range m.specs {
		m.idle = max(m.idle, sp.period+sp.width)
	}
	m.idle = max(m.idle, int64(cfg.idle))
	for i := range m.shards {
		m.shards[i].m = make(map[string]*entry)
	}
	return m
}

// now reads the clock as nanoseconds since the epoch.
func (m *Memory) now() int64 {
	return max(int64(m.clock.Now().Sub(m.epoch)), 0)
}

func (m *Memory) abs(t int64) time.Time { return m.epoch.Add(time.Duration(t)) }

func (m *Memory) shardFor(key string) *shard {
	return &m.shards[maphash.String(m.seed, key)%numShards]
}

// Decide implements Limiter: Allow, which never fails.
func (m *Memory) Decide(key string) (Decision, error) { return m.Allow(key), nil }

// Counters implements Limiter: Snapshot, which never fails.
func (m *Memory) Counters() ([]Counter, error) { return m.Snapshot(), nil }

// Reset implements Limiter: every key is dropped.
func (m *Memory) Reset() error {
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		for k, e := range sh.m {
			e.mu.Lock()
			e.dead = true
			e.mu.Unlock()
			delete(sh.m, k)
		}
		sh.mu.Unlock()
	}
	return nil
}

// Allow decides one call for key; see Memory for the rule.
func (m *Memory) Allow(key string) Decision {
	now := m.now()
	sh := m.shardFor(key)
	for {
		sh.mu.RLock()
		e := sh.m[key]
		sh.mu.RUnlock()
		if e == nil {
			e = m.create(sh, key)
		}
		e.mu.Lock()
		if e.dead {
			// A sweep dropped it between lookup and lock; its successor
			// (if any) is in the map.
			e.mu.Unlock()
			continue
		}
		d := m.decide(e, now)
		e.mu.Unlock()
		if sh.calls.Add(1)%m.sweepEvery == 0 {
			m.sweepShard(sh, now)
		}
		return d
	}
}

func (m *Memory) create(sh *shard, key string) *entry {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.m[key]; e != nil {
		return e
	}
	e := &entry{}
	if len(m.specs) <= len(e.inline) {
		e.win = e.inline[:len(m.specs)]
	} else {
		e.win = make([]winState, len(m.specs))
	}
	// Clone so the map does not pin a larger buffer the key was cut from.
	sh.m[strings.Clone(key)] = e
	return e
}

// decide runs under e.mu.
func (m *Memory) decide(e *entry, now int64) Decision { return m.decideOn(e, now, false) }

// decideOn is decide; with enforcedOnly it leaves the windows that are
// counted but not enforced alone (they cannot change the Decision), for a
// caller that counts them elsewhere (Redis).
func (m *Memory) decideOn(e *entry, now int64, enforcedOnly bool) Decision {
	// Calls racing for the same key may read the clock out of order;
	// recording the later time keeps each ring sorted, and only delays
	// when the call leaves the windows.
	if now < e.seen {
		now = e.seen
	}
	e.seen = now

	for i := range m.specs {
		if !enforcedOnly || m.specs[i].enforced {
			e.win[i].prepare(&m.specs[i], now)
		}
	}
	at, bind := m.acceptAt(e, now)
	if bind >= 0 {
		if m.countRejected {
			// The refused call now stands in the way of the retry too.
			m.record(e, now, enforcedOnly)
			at, bind = m.acceptAt(e, now)
		}
		return Decision{
			Limit:      m.specs[bind].Limit,
			Reset:      m.abs(at),
			RetryAfter: time.Duration(at - now),
		}
	}
	m.record(e, now, enforcedOnly)

	d := Decision{Allowed: true}
	tight := -1
	var rem, reset int64
	for i := range m.specs {
		sp := &m.specs[i]
		if !sp.enforced {
			continue
		}
		used, r := e.win[i].usage(sp, now)
		left := max(int64(sp.Limit)-used, 0)
		if tight < 0 || left < rem || (left == rem && r > reset) {
			tight, rem, reset = i, left, r
		}
	}
	if tight >= 0 {
		d.Limit, d.Remaining, d.Reset = m.specs[tight].Limit, int(rem), m.abs(reset)
	}
	return d
}

// acceptAt returns when every enforced window has room, and the window that
// has room last (-1 if all have room now).
func (m *Memory) acceptAt(e *entry, now int64) (at int64, bind int) {
	at, bind = now, -1
	for i := range m.specs {
		sp := &m.specs[i]
		if !sp.enforced {
			continue
		}
		if t := e.win[i].acceptAt(sp, now); t > at {
			at, bind = t, i
		}
	}
	return at, bind
}

func (m *Memory) record(e *entry, now int64, enforcedOnly bool) {
	e.lastAccept = now
	for i := range m.specs {
		if !enforcedOnly || m.specs[i].enforced {
			e.win[i].record(&m.specs[i], now)
		}
	}
}

// Sweep drops every key idle long enough that its counts no longer matter
// and returns how many it dropped. Allow sweeps on its own; this is for a
// control endpoint or a test that wants it now.
func (m *Memory) Sweep() int {
	now, n := m.now(), 0
	for i := range m.shards {
		n += m.sweepShard(&m.shards[i], now)
	}
	return n
}

func (m *Memory) sweepShard(sh *shard, now int64) int {
	n := 0
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for k, e := range sh.m {
		// A key locked by a call is in use; skip it rather than wait.
		if !e.mu.TryLock() {
			continue
		}
		if now-e.lastAccept >= m.idle && now >= e.seen {
			e.dead = true
			delete(sh.m, k)
			n++
		}
		e.mu.Unlock()
	}
	return n
}

// Snapshot reports every held key's use of each window now, sorted by key.
func (m *Memory) Snapshot() []Counter {
	now := m.now()
	type kv struct {
		k string
		e *entry
	}
	var all []kv
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.RLock()
		for k, e := range sh.m {
			all = append(all, kv{k, e})
		}
		sh.mu.RUnlock()
	}
	slices.SortFunc(all, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	out := make([]Counter, 0, len(all))
	for _, x := range all {
		c := Counter{Key: x.k, Used: make([]int, len(m.specs)), Windows: slices.Clone(m.windows)}
		e := x.e
		e.mu.Lock()
		if e.dead {
			e.mu.Unlock()
			continue
		}
		t := max(now, e.seen)
		e.seen = t
		for i := range m.specs {
			sp, st := &m.specs[i], &e.win[i]
			st.prepare(sp, t)
			used, _ := st.usage(sp, t)
			c.Used[i] = int(used)
		}
		e.mu.Unlock()
		out = append(out, c)
	}
	return out
}

// Windows returns the configured windows.
func (m *Memory) Windows() []Window { return slices.Clone(m.windows) }
