package pretouch

import (
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

var sink [][]byte

// minorFaults is how many page faults the process has taken that the
// kernel served without reading a file: each first touch of a fresh page.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// fill allocates n bytes in small objects, as loading a document does, and
// keeps them, and returns the page faults that took.
func fill(t *testing.T, n int) int64 {
	t.Helper()
	before := minorFaults(t)
	for range n / 512 {
		sink = append(sink, make([]byte, 512))
	}
	return minorFaults(t) - before
}

// TestAllocationAfterHeapTakesNoFaults fills memory twice with the
// collector off: once into memory the process has never touched, then
// into what Heap made resident. The first must fault about once a page,
// the second hardly at all.
func TestAllocationAfterHeapTakesNoFaults(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("the race detector's shadow memory faults with every allocation")
	}
	const n = 16 << 20
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	t.Cleanup(func() { sink = nil })
	pages := int64(n / os.Getpagesize())

	fresh := fill(t, n)
	if fresh < pages/4 {
		t.Skipf("filling %d fresh pages took %d faults: memory here comes in large pages, so there is nothing for Heap to save", pages, fresh)
	}
	<-Heap(2 * n) // room for the fill and the allocator's own
	if page := os.Getpagesize(); !populate(block(2*page), page) {
		t.Skip("this kernel cannot populate memory (MADV_POPULATE_WRITE is Linux 5.14)")
	}
	after := fill(t, n)
	t.Logf("filling %d MiB: %d faults into fresh memory, %d after Heap", n>>20, fresh, after)
	if after > fresh/8 {
		t.Errorf("after Heap, filling %d pages took %d faults (%d before): the memory was not resident", pages, after, fresh)
	}
	runtime.KeepAlive(sink)
}

// TestHeapBelowItsMinimumIsDoneAtOnce: a request under minBytes, which
// could be served from pages the heap already holds, does nothing and says
// so at once.
func TestHeapBelowItsMinimumIsDoneAtOnce(t *testing.T) {
	select {
	case <-Heap(minBytes - 1):
	default:
		t.Fatal("Heap of less than its minimum did not report done at once")
	}
}
