package ratelimit

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// tickClock is a clock for benchmarks: it advances only when told, through
// an atomic, so that reading it costs next to nothing and shows up neither
// as lock contention nor as time.Now.
type tickClock struct{ ns atomic.Int64 }

func (c *tickClock) Now() time.Time          { return start.Add(time.Duration(c.ns.Load())) }
func (c *tickClock) advance(d time.Duration) { c.ns.Add(int64(d)) }
func contractWindows() []Window {
	return []Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}}
}
func reportAccepted(b *testing.B, accepted int) {
	b.ReportMetric(float64(accepted)/float64(b.N), "accepted/op")
}

// One token calling at exactly its limit (one call per 50ms of fake time),
// so every call takes the accept path, and the hour's buckets roll over
// every 20 calls.
func BenchmarkAllowOneKey(b *testing.B) {
	b.Run("accepted", func(b *testing.B) {
		clk := &tickClock{}
		m := NewMemory(contractWindows(), WithClock(clk))
		accepted := 0
		b.ReportAllocs()
		for b.Loop() {
			clk.advance(50 * time.Millisecond)
			if m.Allow("tok").Allowed {
				accepted++
			}
		}
		reportAccepted(b, accepted)
	})
	b.Run("rejected", func(b *testing.B) {
		clk := &tickClock{}
		m := NewMemory(contractWindows(), WithClock(clk))
		accepted := 0
		b.ReportAllocs()
		for b.Loop() {
			if m.Allow("tok").Allowed {
				accepted++
			}
		}
		reportAccepted(b, accepted)
	})
}

// 10k tokens called from all Ps; fake time moves 10µs per call, about 10
// calls per token per second, so nearly all are accepted. Each key is warmed
// up first, so the figures are the steady state, not the first-call
// allocations.
func BenchmarkAllowManyKeysParallel(b *testing.B) {
	const nkeys = 10000
	keys := make([]string, nkeys)
	for i := range keys {
		keys[i] = "token-" + strconv.Itoa(i)
	}
	clk := &tickClock{}
	m := NewMemory(contractWindows(), WithClock(clk))
	for _, k := range keys {
		m.Allow(k)
	}
	var accepted, workers atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(workers.Add(1)) * 7919
		n := 0
		for pb.Next() {
			i++
			if i%64 == 0 {
				clk.advance(64 * 10 * time.Microsecond)
			}
			if m.Allow(keys[i%nkeys]).Allowed {
				n++
			}
		}
		accepted.Add(int64(n))
	})
	reportAccepted(b, int(accepted.Load()))
}
