package mock_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
)

// BenchmarkReplicaCall measures one describe call through the whole
// pipeline with the contract's rate limit on, with the fake's state in
// this process and in Redis (InRedis: the shared clock, the token, the
// rate counters and the record each cost a round trip), so the difference
// is what sharing adds to a call. The fake clock moves 60ms per call, so
// one token stays under 20 calls a second.
//
//	go test ./mock -run '^$' -bench ReplicaCall -benchtime 2000x
func BenchmarkReplicaCall(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchReplicaCall(b, nil) })
	b.Run("miniredis", func(b *testing.B) {
		c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(b).Addr()})
		defer c.Close()
		benchReplicaCall(b, c)
	})
	b.Run("redis-server", func(b *testing.B) {
		c := redis.NewClient(&redis.Options{Addr: testenv.RedisServer(b)})
		defer c.Close()
		benchReplicaCall(b, c)
	})
}

func benchReplicaCall(b *testing.B, c *redis.Client) {
	clk := clock.NewFake(epoch)
	opts := []mock.Option{mock.WithClock(clk), contractLimit}
	if c != nil {
		opts = append(opts, mock.WithState(mock.InRedis(c, "bench")))
	}
	srv, _ := newServer(b, embedded(b), opts...)
	h := srv.Handler()
	const target = "/api/workflow/3cSucceeded003"
	b.ReportAllocs()
	for b.Loop() {
		clk.Advance(60 * time.Millisecond)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newBenchRequest("GET", target, "", devToken))
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/call")
}
