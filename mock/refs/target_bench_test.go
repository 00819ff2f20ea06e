package refs

import (
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkTargetAdd files 100,000 ids, as launched runs are filed, over a
// few workspaces, and reports what each id costs in time and in heap: the
// reference index's part of a stored run's memory.
func BenchmarkTargetAdd(b *testing.B) {
	const n = 100_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.FormatInt(int64(1e15)+int64(i)*7919, 36)
	}
	var heap float64
	for b.Loop() {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t := newTarget()
		for i, id := range ids {
			t.add(id, int64(i%5))
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		heap = float64(m1.HeapAlloc-m0.HeapAlloc) / n
		runtime.KeepAlive(t)
	}
	b.ReportMetric(heap, "B-heap/id")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/add")
}
