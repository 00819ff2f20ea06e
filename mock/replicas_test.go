package mock_test

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
)

// replica starts one fake on the shared Redis at addr, on the shared
// clock, as one replica behind a load balancer.
func replica(t *testing.T, addr string, clk *clock.Fake) *mock.Server {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	srv, _ := newServer(t, embedded(t), mock.WithClock(clk), mock.WithStore(redisstore.New(c, "wmsmock", time.Second)))
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
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server): the real-Redis replica test is skipped; the miniredis one ran")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	_ = l.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for i := 0; c.Ping(context.Background()).Err() != nil; i++ {
		if i > 200 {
			t.Fatal("redis-server did not answer within 10 s")
		}
		time.Sleep(50 * time.Millisecond) // waiting for a process to listen, not for time to pass
	}
	replicasShareRecords(t, addr)
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
