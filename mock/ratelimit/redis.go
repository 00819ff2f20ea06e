package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/intdiv"
	"github.com/wmsmock/wmsmock/mock/clock"
)

// Redis is a Limiter whose counts live in Redis, so that replicas of the
// fake behind one load balancer share them: a token's 20 calls a second
// hold across all replicas together.
//
// It enforces exactly Memory's rule (rolling windows, exact or in buckets,
// or fixed ones; rejected calls counted only with WithCountRejected), and
// computes its Decision with Memory's own code. Each call is one Lua script
// (EVALSHA), which decides and records atomically on the Redis server: it
// reads the key's state, judges every window, records the call when it is
// accepted, and sends back the state it judged; the Go side rebuilds the
// key from that state and runs Memory's decision on it for the headers
// (Remaining, Reset, RetryAfter), which must agree with the script's
// verdict. No replica ever reads counts and writes them back later.
//
// Time is the fake's clock passed in (never Redis's TIME), as Unix
// nanoseconds, so tests on a fake clock are deterministic and every
// replica on the same clock agrees. Timestamps are kept as fixed-width
// decimal text and compared as text in the script, because Lua's numbers
// (doubles) cannot hold a nanosecond time exactly. Buckets of bucketed
// windows lie on a grid counted from the Unix epoch, the same on every
// replica (Memory's grid starts at its creation). A call whose clock reads
// earlier than the latest call the key has seen (replicas whose clocks
// differ a little) is judged at that latest time, as Memory does for
// racing calls.
//
// Layout, under a key prefix P, for each rate key K:
//
//	P:k:K:s    hash: seen (the key's latest time), fk<i>/fc<i> (a fixed
//	           window's period number and count)
//	P:k:K:l    list: the last accepted timestamps, newest first, trimmed to
//	           the largest exact window's Limit
//	P:k:K:b<i> hash: bucket number -> count, for bucketed window i; buckets
//	           older than the window are deleted as calls come
//
// Every key expires once idle for the longest period (plus its bucket
// width), when its counts can no longer matter, so memory stays bounded.
type Redis struct {
	rule     *Memory // specs and decide; limiter time is Unix nanoseconds
	c        redis.UniversalClient
	p        string
	timeout  time.Duration
	clock    clock.Clock
	maxExact int
	idleMS   int64
}

var _ Limiter = (*Redis)(nil)

// WithTimeout bounds each call a Redis limiter makes to Redis (default
// 2s), so a Redis that stops answering fails calls instead of holding
// them. Memory ignores it.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// NewRedis returns a limiter enforcing windows per key with counts in
// Redis under prefix. It takes the same options as NewMemory (the sweep
// and eviction ones do not apply: keys expire in Redis) and panics on the
// same invalid windows.
func NewRedis(c redis.UniversalClient, prefix string, windows []Window, opts ...Option) *Redis {
	cfg := newConfig(opts)
	r := &Redis{
		rule:    newMemory(windows, cfg, time.Unix(0, 0).UTC()),
		c:       c,
		p:       prefix,
		timeout: cfg.timeout,
		clock:   cfg.clock,
	}
	if r.timeout <= 0 {
		r.timeout = 2 * time.Second
	}
	for _, sp := range r.rule.specs {
		if !sp.fixed && !sp.bucketed {
			r.maxExact = max(r.maxExact, sp.Limit)
		}
	}
	r.idleMS = r.rule.idle/int64(time.Millisecond) + 1
	return r
}

// Windows returns the configured windows.
func (r *Redis) Windows() []Window { return r.rule.Windows() }

// timeBias keeps every time's text positive, so fixed-width decimal text
// sorts as the times do (a clock before 1970 included).
const timeBias = int64(1) << 62

func stamp(t int64) string { return fmt.Sprintf("%020d", t+timeBias) }

func unstamp(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ratelimit: stored time %q: %w", s, err)
	}
	return n - timeBias, nil
}

// decideScript judges and records one call. KEYS: the state hash, the
// list, then one bucket hash per window. ARGV: now, count rejected, idle
// ms, the list length to read, peek (read only), the number of windows,
// then six values per window: kind (e exact, b bucketed, f fixed), Limit,
// enforced, and for e the cut (now-period) as text, for b the oldest
// bucket in the window, for f the period number; then for b the bucket of
// now and twice the number of buckets (when a counted-only window is
// trimmed). A window that is counted but not enforced (see NewMemory) is
// only counted, not read, and its state is sent back only when peeking. It returns {-1, seen} when the key has seen a later time (ask again
// at that time), else {verdict, list, state of window 1, ...}.
var decideScript = redis.NewScript(`
local now, peek = ARGV[1], ARGV[5] == '1'
local seen = redis.call('HGET', KEYS[1], 'seen')
if seen and seen > now then return {-1, seen} end
local maxE, n = tonumber(ARGV[4]), tonumber(ARGV[6])
local list = {}
if maxE > 0 then list = redis.call('LRANGE', KEYS[2], 0, maxE - 1) end
local ok = 1
local out = {0, list}
local fixedCount = {}
for i = 1, n do
  local o = 6 + (i - 1) * 6
  local kind, limit, enf, a = ARGV[o+1], tonumber(ARGV[o+2]), ARGV[o+3] == '1', ARGV[o+4]
  local st = {}
  if kind == 'e' then
    if enf and #list >= limit and list[limit] > a then ok = 0 end
  elseif kind == 'f' then
    local c = 0
    if redis.call('HGET', KEYS[1], 'fk' .. i) == a then
      c = tonumber(redis.call('HGET', KEYS[1], 'fc' .. i) or '0')
    end
    fixedCount[i] = c
    st = {a, c}
    if enf and c >= limit then ok = 0 end
  elseif enf or peek or redis.call('HLEN', KEYS[2 + i]) > tonumber(ARGV[o+6]) then
    -- A bucketed window is read when it decides, when asked for counts,
    -- or (counted only) when it has grown past twice its buckets, to trim.
    local bmin, sum = tonumber(a), 0
    local flat = redis.call('HGETALL', KEYS[2 + i])
    for j = 1, #flat, 2 do
      if tonumber(flat[j]) < bmin then
        if not peek then redis.call('HDEL', KEYS[2 + i], flat[j]) end
      else
        sum = sum + tonumber(flat[j + 1])
        if enf or peek then
          st[#st + 1] = flat[j]
          st[#st + 1] = flat[j + 1]
        end
      end
    end
    if enf and sum >= limit then ok = 0 end
  end
  out[#out + 1] = st
end
out[1] = ok
if peek then return out end
local idle = ARGV[3]
redis.call('HSET', KEYS[1], 'seen', now)
if ok == 1 or ARGV[2] == '1' then
  if maxE > 0 then
    redis.call('LPUSH', KEYS[2], now)
    redis.call('LTRIM', KEYS[2], 0, maxE - 1)
    redis.call('PEXPIRE', KEYS[2], idle)
  end
  for i = 1, n do
    local o = 6 + (i - 1) * 6
    local kind = ARGV[o+1]
    if kind == 'f' then
      redis.call('HSET', KEYS[1], 'fk' .. i, ARGV[o+4], 'fc' .. i, fixedCount[i] + 1)
    elseif kind == 'b' then
      redis.call('HINCRBY', KEYS[2 + i], ARGV[o+5], 1)
      redis.call('PEXPIRE', KEYS[2 + i], idle)
    end
  end
end
redis.call('PEXPIRE', KEYS[1], idle)
return out
`)

func (r *Redis) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.timeout)
}

func (r *Redis) base(key string) string { return r.p + ":k:" + key }

func (r *Redis) keys(key string) []string {
	b := r.base(key)
	ks := []string{b + ":s", b + ":l"}
	for i := range r.rule.specs {
		ks = append(ks, b+":b"+strconv.Itoa(i+1))
	}
	return ks
}

func (r *Redis) args(now int64, peek bool) []any {
	specs := r.rule.specs
	args := make([]any, 0, 6+6*len(specs))
	args = append(args, stamp(now), flag(r.rule.countRejected), r.idleMS, r.maxExact, flag(peek), len(specs))
	for i := range specs {
		sp := &specs[i]
		switch {
		case sp.fixed:
			args = append(args, "f", sp.Limit, flag(sp.enforced), fixedPeriod(sp, now), "", 0)
		case sp.bucketed:
			args = append(args, "b", sp.Limit, flag(sp.enforced), bucketMin(sp, now), intdiv.Ceil(now, sp.width), 2*sp.slots)
		default:
			args = append(args, "e", sp.Limit, flag(sp.enforced), stamp(now-sp.period), "", 0)
		}
	}
	return args
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// maxCatchUps bounds how often a call is asked again at a later time
// because other replicas' calls keep moving the key's latest time on.
const maxCatchUps = 8

// run sends the script and rebuilds the key's state as the script judged
// it; now may move on to the key's latest time.
func (r *Redis) run(key string, now int64, peek bool) (verdict bool, e *entry, at int64, err error) {
	ctx, cancel := r.ctx()
	defer cancel()
	keys := r.keys(key)
	for range maxCatchUps {
		res, err := decideScript.Run(ctx, r.c, keys, r.args(now, peek)...).Slice()
		if err != nil {
			return false, nil, 0, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		if len(res) == 2 {
			if v, _ := res[0].(int64); v == -1 {
				seen, _ := res[1].(string)
				if now, err = unstamp(seen); err != nil {
					return false, nil, 0, err
				}
				continue
			}
		}
		e, err := r.rebuild(res, now, peek)
		if err != nil {
			return false, nil, 0, err
		}
		v, _ := res[0].(int64)
		return v == 1, e, now, nil
	}
	return false, nil, 0, fmt.Errorf("%w: key %q kept moving on under %d attempts", ErrUnavailable, key, maxCatchUps)
}

// rebuild turns the state the script sent into a Memory entry at now.
func (r *Redis) rebuild(res []any, now int64, peek bool) (*entry, error) {
	specs := r.rule.specs
	if len(res) != 2+len(specs) {
		return nil, fmt.Errorf("ratelimit: unexpected script reply of %d parts", len(res))
	}
	rawList, _ := res[1].([]any)
	list := make([]int64, len(rawList)) // newest first
	for i, v := range rawList {
		s, _ := v.(string)
		t, err := unstamp(s)
		if err != nil {
			return nil, err
		}
		list[i] = t
	}
	e := &entry{seen: now, win: make([]winState, len(specs))}
	for i := range specs {
		sp, st := &specs[i], &e.win[i]
		state, _ := res[2+i].([]any)
		switch {
		case sp.fixed:
			if len(state) != 2 {
				return nil, fmt.Errorf("ratelimit: fixed window %d: unexpected state %v", i, state)
			}
			k, err := strconv.ParseInt(fmt.Sprint(state[0]), 10, 64)
			if err != nil {
				return nil, err
			}
			c, _ := state[1].(int64)
			st.n, st.last, st.total = 1, k, c
		case sp.bucketed:
			if !sp.enforced && !peek {
				continue // counted in Redis only; decideOn leaves it alone
			}
			st.counts = make([]uint32, sp.slots)
			st.last = intdiv.Ceil(now, sp.width)
			st.first = bucketMin(sp, now)
			for j := 0; j+1 < len(state); j += 2 {
				idx, err1 := strconv.ParseInt(fmt.Sprint(state[j]), 10, 64)
				c, err2 := strconv.ParseInt(fmt.Sprint(state[j+1]), 10, 64)
				if err1 != nil || err2 != nil || idx > st.last || idx <= st.last-int64(sp.slots) {
					return nil, fmt.Errorf("ratelimit: bucketed window %d: bad bucket %v=%v", i, state[j], state[j+1])
				}
				st.counts[idx%int64(sp.slots)] += uint32(c)
				st.total += c
			}
		default:
			cnt := min(len(list), sp.Limit)
			st.ts = make([]int64, sp.Limit)
			for j := range cnt {
				st.ts[j] = list[cnt-1-j] // oldest first
			}
			st.n = cnt
		}
	}
	return e, nil
}

// Decide implements Limiter.
func (r *Redis) Decide(key string) (Decision, error) {
	now := r.clock.Now().UnixNano()
	verdict, e, now, err := r.run(key, now, false)
	if err != nil {
		return Decision{}, err
	}
	d := r.rule.decideOn(e, now, true)
	if d.Allowed != verdict {
		return Decision{}, fmt.Errorf("ratelimit: key %q at %d: Redis judged %v, the rule %v", key, now, verdict, d.Allowed)
	}
	return d, nil
}

// scan lists the keys under pattern.
func (r *Redis) scan(ctx context.Context, pattern string) ([]string, error) {
	var out []string
	iter := r.c.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		out = append(out, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return out, nil
}

// Counters implements Limiter. It scans Redis for the keys held, so it is
// for the control API, not for requests.
func (r *Redis) Counters() ([]Counter, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*r.timeout)
	defer cancel()
	names, err := r.scan(ctx, r.p+":k:*:s")
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, n := range names {
		keys = append(keys, strings.TrimSuffix(strings.TrimPrefix(n, r.p+":k:"), ":s"))
	}
	slices.Sort(keys)
	out := make([]Counter, 0, len(keys))
	now := r.clock.Now().UnixNano()
	for _, k := range keys {
		_, e, at, err := r.run(k, now, true)
		if err != nil {
			return nil, err
		}
		c := Counter{Key: k, Used: make([]int, len(r.rule.specs)), Windows: r.rule.Windows()}
		for i := range r.rule.specs {
			sp, st := &r.rule.specs[i], &e.win[i]
			st.prepare(sp, at)
			used, _ := st.usage(sp, at)
			c.Used[i] = int(used)
		}
		out = append(out, c)
	}
	return out, nil
}

// Reset implements Limiter: every count under the prefix is deleted, for
// every replica at once.
func (r *Redis) Reset() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*r.timeout)
	defer cancel()
	keys, err := r.scan(ctx, r.p+":k:*")
	if err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), 500)
		if err := r.c.Del(ctx, keys[:n]...).Err(); err != nil {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		keys = keys[n:]
	}
	return nil
}
