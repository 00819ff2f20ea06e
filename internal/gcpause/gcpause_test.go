package gcpause

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// readPercent and readLimit read the collector's settings without setting
// them (which would race with a cleanup putting them back).
func readPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(int64(s[0].Value.Uint64())) // off is -1
}

func readLimit() int64 {
	s := []metrics.Sample{{Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

var sink [][]byte

// ownSettings reads the process's collector settings before a test
// changes them, and has settle report each restore on restored (buffered
// for n) for the test's length.
func ownSettings(t *testing.T, n int) (percent int, limit int64) {
	t.Helper()
	percent, limit = readPercent(), readLimit()
	if percent < 0 {
		t.Skip("the process runs with GOGC=off")
	}
	restored = make(chan struct{}, n)
	t.Cleanup(func() { restored = nil })
	return percent, limit
}

func TestResumeDefersTheCollectionThenRestores(t *testing.T) {
	percent, limit := ownSettings(t, 1)

	resume := Pause(1 << 30)
	if got := readPercent(); got != -1 {
		t.Fatalf("paused: percentage %d, want -1 (off)", got)
	}
	if got := readLimit(); got != 1<<30 {
		t.Fatalf("paused: limit %d, want %d", got, 1<<30)
	}
	// What a start-up leaves: a heap well past the last collection's goal.
	for range 64 {
		sink = append(sink, make([]byte, 256<<10))
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	resume()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Errorf("resuming ran %d collections at once; the next should wait for the heap to grow", after.NumGC-before.NumGC)
	}
	// Until a collection has run, the limit stands in for the percentage,
	// set where the percentage's goal would be: above what the heap holds
	// now, and below the pause's bound.
	if got := readPercent(); got != -1 {
		t.Fatalf("before the next collection: percentage %d, want -1", got)
	}
	got := readLimit()
	if got <= int64(after.HeapAlloc) || got >= 1<<30 {
		t.Errorf("before the next collection: limit %d, want between the heap (%d) and the pause's bound", got, after.HeapAlloc)
	}

	sink = nil
	collectAndCheck(t, percent, limit)
}

// collectAndCheck runs a collection, waits for the settings to come back
// and checks they are the process's own.
func collectAndCheck(t *testing.T, percent int, limit int64) {
	t.Helper()
	runtime.GC()
	<-restored
	if got := readPercent(); got != percent {
		t.Errorf("after the next collection: percentage %d, want the process's %d", got, percent)
	}
	if got := readLimit(); got != limit {
		t.Errorf("after the next collection: limit %d, want the process's %d", got, limit)
	}
}

// TestPauseAfterAWaitingResume: a benchmark builds fake after fake in one
// process, so a pause that begins before the last resume's collection has
// run must still find, and give back, the process's own settings.
func TestPauseAfterAWaitingResume(t *testing.T) {
	percent, limit := ownSettings(t, 4)
	Pause(1 << 30)() // resumed; its collection has not run
	resume := Pause(1 << 29)
	<-restored // the second pause put the first resume's settings back
	resume()
	collectAndCheck(t, percent, limit)
}
