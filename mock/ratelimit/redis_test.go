package ratelimit

import (
	"errors"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// replicas are n Redis limiters on one miniredis and one clock, as n
// replicas of the fake see them.
func replicas(t *testing.T, n int, windows []Window, opts ...Option) (*miniredis.Miniredis, *clock.Fake, []*Redis) {
	t.Helper()
	mr := miniredis.RunT(t)
	clk := clock.NewFake(start)
	var out []*Redis
	for range n {
		c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
		t.Cleanup(func() { _ = c.Close() })
		out = append(out, NewRedis(c, "wmsmock:rate", windows, append([]Option{WithClock(clk), WithTimeout(time.Second)}, opts...)...))
	}
	return mr, clk, out
}

// TestRedisSharedAcrossReplicas: calls spread over three limiters on one
// Redis are counted together: 60 in one instant give exactly 20 accepted,
// whichever replica takes them; after the period, 20 more.
func TestRedisSharedAcrossReplicas(t *testing.T) {
	_, clk, rs := replicas(t, 3, []Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}})
	burst := func() (accepted int) {
		for i := range 60 {
			d, err := rs[i%3].Decide("7")
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed {
				accepted++
			} else if d.RetryAfter <= 0 || d.RetryAfter > time.Second {
				t.Fatalf("call %d refused with RetryAfter %v", i, d.RetryAfter)
			}
		}
		return accepted
	}
	if n := burst(); n != 20 {
		t.Fatalf("first second: %d accepted, want 20", n)
	}
	clk.Advance(999 * time.Millisecond)
	if d, _ := rs[1].Decide("7"); d.Allowed || d.RetryAfter != time.Millisecond {
		t.Fatalf("at 0.999s: %+v, want refused for 1ms more", d)
	}
	clk.Advance(time.Millisecond)
	if n := burst(); n != 20 {
		t.Fatalf("next second: %d accepted, want 20", n)
	}
	cs, err := rs[2].Counters()
	if err != nil || len(cs) != 1 || cs[0].Key != "7" || cs[0].Used[0] != 20 || cs[0].Used[1] != 40 {
		t.Fatalf("counters from a third replica: %+v %v", cs, err)
	}
	// A reset through one replica clears the counts for all.
	if err := rs[0].Reset(); err != nil {
		t.Fatal(err)
	}
	if d, _ := rs[2].Decide("7"); !d.Allowed || d.Remaining != 19 {
		t.Fatalf("after the reset: %+v", d)
	}
}

// TestRedisFixedWindows: the fixed profile on Redis counts per wall-clock
// period, as Memory does.
func TestRedisFixedWindows(t *testing.T) {
	_, clk, rs := replicas(t, 2, []Window{{Limit: 3, Period: time.Second}}, WithFixedWindows(true))
	clk.Set(start.Add(700 * time.Millisecond))
	accepted := func(n int) (ok int) {
		for i := range n {
			if decide(t, rs[i%2], "k").Allowed {
				ok++
			}
		}
		return ok
	}
	if got := accepted(5); got != 3 {
		t.Fatalf("first burst: %d accepted, want 3", got)
	}
	if d := decide(t, rs[0], "k"); d.Allowed || d.RetryAfter != 300*time.Millisecond {
		t.Fatalf("over the limit: %+v, want a refusal until the boundary", d)
	}
	clk.Advance(300 * time.Millisecond)
	if got := accepted(5); got != 3 {
		t.Fatalf("after the boundary: %d accepted, want 3", got)
	}
}

// TestRedisClockBehind: a replica whose clock reads earlier than the last
// call the key saw is judged at that later time, so the list stays in
// order and nothing is accepted that the later time would refuse.
func TestRedisClockBehind(t *testing.T) {
	mr := miniredis.RunT(t)
	ahead, behind := clock.NewFake(start.Add(time.Second)), clock.NewFake(start)
	mk := func(clk clock.Clock) *Redis {
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		return NewRedis(c, "p", []Window{{Limit: 2, Period: time.Second}}, WithClock(clk))
	}
	a, b := mk(ahead), mk(behind)
	if !decide(t, a, "k").Allowed || !decide(t, a, "k").Allowed {
		t.Fatal("first two calls refused")
	}
	d := decide(t, b, "k")
	if d.Allowed || d.RetryAfter != time.Second || !d.Reset.Equal(start.Add(2*time.Second)) {
		t.Fatalf("a call from the replica behind: %+v, want refused until start+2s", d)
	}
}

// TestRedisKeysExpire: a key's counts carry a time to live of the longest
// period, so an idle token costs Redis nothing for long.
func TestRedisKeysExpire(t *testing.T) {
	mr, _, rs := replicas(t, 1, []Window{{Limit: 20, Period: time.Second}, {Limit: 100, Period: time.Minute}}, WithExactLimit(20))
	for range 30 {
		decide(t, rs[0], "k")
	}
	if len(mr.Keys()) == 0 {
		t.Fatal("no keys after calls")
	}
	for _, k := range mr.Keys() {
		if ttl := mr.TTL(k); ttl <= 0 || ttl > time.Minute+time.Second {
			t.Errorf("key %s: TTL %v, want about a minute", k, ttl)
		}
	}
	if n, _ := mr.List("wmsmock:rate:k:k:l"); len(n) > 20 {
		t.Errorf("the timestamp list holds %d, want at most the largest exact Limit", len(n))
	}
	mr.FastForward(time.Minute + time.Second)
	if ks := mr.Keys(); len(ks) != 0 {
		t.Errorf("keys left after the longest period: %v", ks)
	}
}

// TestRedisDownIsAnError: with Redis gone a decision is an error wrapping
// ErrUnavailable, never an accepted call nor an over-limit refusal.
func TestRedisDownIsAnError(t *testing.T) {
	mr, _, rs := replicas(t, 1, []Window{{Limit: 20, Period: time.Second}})
	mr.Close()
	if d, err := rs[0].Decide("k"); !errors.Is(err, ErrUnavailable) || d.Allowed {
		t.Fatalf("Decide with Redis down: %+v %v", d, err)
	}
	if _, err := rs[0].Counters(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Counters with Redis down: %v", err)
	}
	if err := rs[0].Reset(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Reset with Redis down: %v", err)
	}
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	if d, err := rs[0].Decide("k"); err != nil || !d.Allowed {
		t.Fatalf("once Redis is back: %+v %v", d, err)
	}
}
