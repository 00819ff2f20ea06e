package backend

import (
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// BenchmarkSharedClockSync is what reading the shared clock costs a call
// (one GET): go test ./mock -run '^$' -bench SharedClockSync
func BenchmarkSharedClockSync(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(b).Addr()})
	defer c.Close()
	o := clock.NewOffset(clock.Real{})
	o.Share(&redisSkew{c: c, key: "bench:clock"})
	if _, err := o.Move(1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := o.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}
