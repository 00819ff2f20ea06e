package mock_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
)

// replica starts one fake on the shared Redis at addr, on the shared
// clock, as one replica behind a load balancer: records, tokens, rate
// counters and the clock's advance in Redis (InRedis).
func replica(t *testing.T, addr string, clk *clock.Fake, opts ...mock.Option) *mock.Server {
	t.Helper()
	// A Redis that is gone refuses at once on loopback; the dial timeout
	// only bounds a dial on a machine too busy to answer one in time,
	// which must not fail the test (200 ms did, at a load of 10).
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 5 * time.Second,
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	srv, _ := newServer(t, embedded(t), append([]mock.Option{mock.WithClock(clk), mock.WithState(mock.InRedis(c, "wmsmock"))}, opts...)...)
	return srv
}

// TestReplicasShareRecords: three fakes on one Redis (miniredis, in
// process) are one fake for runs: a run launched on B is described on C
// and cancelled on A, every replica lists it once, and a replica started
// again finds everything (the seed is not added twice).
func TestReplicasShareRecords(t *testing.T) {
	replicasShareRecords(t, miniredis.RunT(t).Addr())
}

// TestReplicasShareRecordsRealRedis is the same on a real redis-server,
// started by the test on a free loopback port (the Debian package
// redis-server; .ci/run installs it).
func TestReplicasShareRecordsRealRedis(t *testing.T) {
	replicasShareRecords(t, testenv.RedisServer(t))
}

// TestReplicasShareTokensAndLimits: on one Redis (miniredis), three
// replicas share tokens, rate counters, the clock and resets.
func TestReplicasShareTokensAndLimits(t *testing.T) {
	replicasShareTokensAndLimits(t, miniredis.RunT(t).Addr())
}

// TestReplicasShareTokensAndLimitsRealRedis is the same on a real
// redis-server.
func TestReplicasShareTokensAndLimitsRealRedis(t *testing.T) {
	replicasShareTokensAndLimits(t, testenv.RedisServer(t))
}

func replicasShareRecords(t *testing.T, addr string) {
	clk := clock.NewFake(epoch)
	a, b, c := replica(t, addr, clk), replica(t, addr, clk), replica(t, addr, clk)
	_, seeded, _ := listIDs(t, a.Handler(), "?max=100")

	id := launch(t, b.Handler(), "shared-run", "")
	ok(t, c.Handler(), call(t, c.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe on C")
	clk.Advance(time.Minute)
	ok(t, a.Handler(), call(t, a.Handler(), "POST", "/api/workflow/"+id+"/cancel", devToken, nil), 204, "cancel on A")
	for name, s := range map[string]*mock.Server{"A": a, "B": b, "C": c} {
		d := call(t, s.Handler(), "GET", "/api/workflow/"+id, devToken, nil)
		if d.status != 200 || !strings.Contains(string(d.body), `"CANCELLED"`) {
			t.Errorf("describe on %s after the cancel on A: %d %.200s", name, d.status, d.body)
		}
		ids, total, _ := listIDs(t, s.Handler(), "?max=100")
		if total != seeded+1 || len(ids) == 0 || ids[0] != id {
			t.Errorf("list on %s: total %d (want %d), first %v, want %s", name, total, seeded+1, ids[:min(1, len(ids))], id)
		}
	}

	// A replica started again (a deploy, a crash) loses nothing and adds
	// no second seed.
	_ = a.Close()
	a = replica(t, addr, clk)
	if _, total, _ := listIDs(t, a.Handler(), "?max=100"); total != seeded+1 {
		t.Errorf("after restarting A: %d runs, want %d", total, seeded+1)
	}
	ok(t, a.Handler(), call(t, a.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe on the restarted A")
}

// TestReplicaRedisGoingAway: with Redis down, calls that need records get
// the service's 500 with an Error ID and /_mock/health reports unhealthy;
// once Redis is back, the fake serves again with nothing lost.
func TestReplicaRedisGoingAway(t *testing.T) {
	mr := miniredis.RunT(t)
	clk := clock.NewFake(epoch)
	srv := replica(t, mr.Addr(), clk)
	id := launch(t, srv.Handler(), "before-outage", "")
	health := func() answer { return call(t, srv.Handler(), "GET", "/_mock/health", "", nil) }
	if h := health(); h.status != 200 {
		t.Fatalf("health with Redis up: %d %s", h.status, h.body)
	}

	mr.Close()
	for _, target := range []string{"/api/workflow/" + id, "/api/workflow?max=5"} {
		a := call(t, srv.Handler(), "GET", target, devToken, nil)
		if a.status != http.StatusInternalServerError || errorIDMessage.FindStringSubmatch(a.message(t)) == nil {
			t.Errorf("GET %s with Redis down: %d %s, want 500 with an Error ID", target, a.status, a.body)
		}
	}
	if a := call(t, srv.Handler(), "POST", "/api/workflow/launch", devToken, []byte(`{"launch":{"pipeline":"p"}}`)); a.status != 500 {
		t.Errorf("launch with Redis down: %d %s", a.status, a.body)
	}
	if h := health(); h.status != http.StatusServiceUnavailable || !strings.Contains(string(h.body), `"unhealthy"`) {
		t.Errorf("health with Redis down: %d %s", h.status, h.body)
	}

	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	if h := health(); h.status != 200 {
		t.Errorf("health once Redis is back: %d %s", h.status, h.body)
	}
	ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe once Redis is back")
}

// contractLimit is the contract's rate limit, on for the replicas that
// test it (newServer turns it off by default).
var contractLimit = mock.WithRateLimit([]ratelimit.Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}})

// createToken creates a token through h and returns its id and value.
func createToken(t *testing.T, h http.Handler, name string) (id, value string) {
	t.Helper()
	a := ok(t, h, call(t, h, "POST", "/api/tokens", devToken, []byte(`{"name":"`+name+`"}`)), 200, "create token "+name)
	m := object(t, a)
	value, _ = m["accessKey"].(string)
	tok, _ := m["token"].(map[string]any)
	if value == "" || tok == nil {
		t.Fatalf("create token: %s", a.body)
	}
	return fmt.Sprint(tok["id"]), value
}

func replicasShareTokensAndLimits(t *testing.T, addr string) {
	clk := clock.NewFake(epoch)
	a, b, c := replica(t, addr, clk, contractLimit), replica(t, addr, clk, contractLimit), replica(t, addr, clk, contractLimit)
	named := map[string]*mock.Server{"A": a, "B": b, "C": c}

	// A token created through A authenticates on B and C; deleted through
	// B, it is refused on A and C.
	id, value := createToken(t, a.Handler(), "shared-ci")
	for name, s := range named {
		ok(t, s.Handler(), call(t, s.Handler(), "GET", "/api/workflow?max=1", value, nil), 200, "the token created on A, on "+name)
	}
	ok(t, b.Handler(), call(t, b.Handler(), "DELETE", "/api/tokens/"+id, devToken, nil), 204, "delete the token on B")
	for _, name := range []string{"A", "C"} {
		if got := call(t, named[name].Handler(), "GET", "/api/workflow?max=1", value, nil); got.status != 403 {
			t.Errorf("the token deleted on B, on %s: %d %s, want 403", name, got.status, got.body)
		}
	}

	// 60 calls with one token, spread over the three replicas within one
	// instant of the shared clock: exactly 20 accepted, 40 refused (429).
	clk.Advance(time.Second) // the calls above no longer count
	_, burst := createToken(t, a.Handler(), "burst")
	clk.Advance(time.Second)
	servers := []*mock.Server{a, b, c}
	accepted, refused := 0, 0
	for i := range 60 {
		h := servers[i%3].Handler()
		switch got := call(t, h, "GET", "/api/workflow?max=1", burst, nil); got.status {
		case 200:
			accepted++
		case 429:
			refused++
		default:
			t.Fatalf("call %d: %d %s", i, got.status, got.body)
		}
	}
	if accepted != 20 || refused != 40 {
		t.Fatalf("60 calls over three replicas: %d accepted, %d refused; want 20 and 40", accepted, refused)
	}

	// Restarting a replica loses nothing: the token still works, the
	// counters still hold it back, the runs are there.
	run := launch(t, b.Handler(), "before-restart", "")
	_ = a.Close()
	a = replica(t, addr, clk, contractLimit)
	named["A"] = a
	if got := call(t, a.Handler(), "GET", "/api/workflow?max=1", burst, nil); got.status != 429 {
		t.Errorf("the burst token on the restarted A within the same second: %d, want 429 (counters kept)", got.status)
	}
	clk.Advance(time.Second)
	ok(t, a.Handler(), call(t, a.Handler(), "GET", "/api/workflow?max=1", burst, nil), 200, "the burst token on the restarted A a second later")
	ok(t, a.Handler(), call(t, a.Handler(), "GET", "/api/workflow/"+run, devToken, nil), 200, "the run on the restarted A")

	// The clock moved through A's admin API is moved for B and C: the run
	// is RUNNING everywhere a minute later.
	if got := adminCall(t, a.Handler(), "POST", "/_mock/admin/clock/advance?by=1m", "", nil); got.status != 200 {
		t.Fatalf("advance on A: %d %s", got.status, got.body)
	}
	want := epoch.Add(time.Minute + 3*time.Second).Format("2006-01-02T15:04:05")
	for name, s := range named {
		if got := adminCall(t, s.Handler(), "GET", "/_mock/admin/clock", "", nil); !strings.Contains(string(got.body), want) {
			t.Errorf("clock on %s after the advance on A: %s, want %s", name, got.body, want)
		}
		if st := status(t, s.Handler(), run); st != "RUNNING" {
			t.Errorf("run on %s a minute after launch: %s, want RUNNING", name, st)
		}
	}

	// A reset through C resets records, tokens and counters for all.
	_, kept := createToken(t, b.Handler(), "gone-after-reset")
	for range 25 {
		call(t, a.Handler(), "GET", "/api/workflow?max=1", devToken, nil)
	}
	if got := call(t, b.Handler(), "GET", "/api/workflow?max=1", devToken, nil); got.status != 429 {
		t.Fatalf("the dev token after 25 calls in one instant: %d, want 429", got.status)
	}
	if got := adminCall(t, c.Handler(), "POST", "/_mock/admin/reset", "", nil); got.status/100 != 2 {
		t.Fatalf("reset on C: %d %s", got.status, got.body)
	}
	ok(t, b.Handler(), call(t, b.Handler(), "GET", "/api/workflow?max=1", devToken, nil), 200, "the dev token on B after the reset on C (counters cleared)")
	if got := call(t, a.Handler(), "GET", "/api/workflow?max=1", kept, nil); got.status != 403 {
		t.Errorf("a created token on A after the reset on C: %d, want 403", got.status)
	}
	if got := call(t, a.Handler(), "GET", "/api/workflow/"+run, devToken, nil); got.status != 403 {
		t.Errorf("a launched run on A after the reset on C: %d, want 403 (back to the seed)", got.status)
	}
}

// TestReplicaRedisDownIsNeverA403: while Redis is away, a call with any
// token (the configured ones, a created one, one the fake never held)
// gets the 500 with an Error ID: the fake cannot tell, so it must not say
// 403, nor let the call through uncounted.
func TestReplicaRedisDownIsNeverA403(t *testing.T) {
	mr := miniredis.RunT(t)
	clk := clock.NewFake(epoch)
	srv := replica(t, mr.Addr(), clk, contractLimit)
	_, created := createToken(t, srv.Handler(), "ci")
	mr.Close()
	for _, tok := range []string{devToken, created, "never-issued-token"} {
		a := call(t, srv.Handler(), "GET", "/api/workflow?max=1", tok, nil)
		if a.status != http.StatusInternalServerError || errorIDMessage.FindStringSubmatch(a.message(t)) == nil {
			t.Errorf("token %.8s... with Redis down: %d %s, want 500 with an Error ID", tok, a.status, a.body)
		}
	}
	if h := call(t, srv.Handler(), "GET", "/_mock/health", "", nil); h.status != http.StatusServiceUnavailable {
		t.Errorf("health with Redis down: %d %s", h.status, h.body)
	}
	// The admin views of shared state say they cannot read it, rather
	// than show an empty list.
	for _, p := range []string{"/_mock/admin/tokens", "/_mock/admin/ratelimit"} {
		if a := adminCall(t, srv.Handler(), "GET", p, "", nil); a.status != http.StatusServiceUnavailable {
			t.Errorf("%s with Redis down: %d %s, want 503", p, a.status, a.body)
		}
	}
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow?max=1", created, nil), 200, "the created token once Redis is back")
	if a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/ratelimit", "", nil); a.status != 200 || !strings.Contains(string(a.body), `"used":1`) {
		t.Errorf("rate counters once Redis is back: %d %s", a.status, a.body)
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow?max=1", "never-issued-token", nil); a.status != 403 {
		t.Errorf("an unknown token once Redis is back: %d, want 403", a.status)
	}
}

// TestReplicaRedisEmptied: a Redis that comes back empty (restarted
// without persistence) has lost everything; the configured tokens work
// again on the next call and the seed is back, once, rather than every
// call getting 403 from then on.
func TestReplicaRedisEmptied(t *testing.T) {
	mr := miniredis.RunT(t)
	clk := clock.NewFake(epoch)
	a, b := replica(t, mr.Addr(), clk), replica(t, mr.Addr(), clk)
	_, seeded, _ := listIDs(t, a.Handler(), "?max=100")
	launch(t, a.Handler(), "lost-with-redis", "")
	mr.FlushAll()
	if got := call(t, b.Handler(), "GET", "/api/workflow?max=1", "never-issued-token", nil); got.status != 403 {
		t.Errorf("an unknown token after the flush: %d, want 403", got.status)
	}
	ok(t, a.Handler(), call(t, a.Handler(), "GET", "/api/workflow?max=1", devToken, nil), 200, "the dev token on A after the flush")
	for name, s := range map[string]*mock.Server{"A": a, "B": b} {
		if _, total, _ := listIDs(t, s.Handler(), "?max=100"); total != seeded {
			t.Errorf("runs on %s after the flush: %d, want the %d seeded", name, total, seeded)
		}
	}
}
