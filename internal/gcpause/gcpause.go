// Package gcpause holds the collector policy of a fake's start-up, shared
// by `wmsmock serve` and the benchmark that measures what its users see.
//
// Start-up builds the document's model, which stays alive: collecting
// while it grows only marks it again and again, about a tenth of New on
// the published schema. So the collector is paused while the fake is
// built.
//
// Resuming it is the delicate part. Go sets the next collection's goal
// from the heap the last one marked, which was taken before loading began
// and is tiny, so restoring the percentage at once starts a collection of
// the whole model right when the fake becomes ready, and a first call sent
// then (one that compiles what its operation needs, and allocates much)
// shares the machine with it: on the published schema that was a seventh
// of the slowest first read at the median and a quarter at the slowest
// (docs/development.md). Resume instead sets the goal the collector would
// have set had it marked the heap at that moment: the next collection
// comes when the heap has grown by the percentage of what it holds now
// (all of it, by default), under a memory limit, and once that collection
// has run the process's own percentage and limit are back. The collection
// is not skipped; it comes after as much allocation as any other would.
package gcpause

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// StartupBound is the heap bound `wmsmock serve` pauses the collector
// under: the fake peaks near 64 MiB on the published schema with the
// collector paused (54 without), and past this bound it runs anyway.
const StartupBound = 1 << 30

// Pause turns the collector off until the returned function is called,
// with limit (bytes) as a bound on the heap: past it the collector runs
// anyway. The setting is the process's, so only a program that owns its
// process (a command, a benchmark) should call it; a program using package
// mock keeps its own. A pause begun while an earlier resume still waits
// for its collection first puts the process's settings back.
func Pause(limit int64) (resume func()) {
	settle(nil)
	percent := debug.SetGCPercent(-1)
	old := debug.SetMemoryLimit(limit)
	return func() {
		if percent < 0 {
			// The process runs without a percentage (GOGC=off): only its
			// own limit applies.
			debug.SetMemoryLimit(old)
			return
		}
		s := &settings{percent, old}
		mu.Lock()
		pending = s
		mu.Unlock()
		debug.SetMemoryLimit(min(old, goal(percent)))
		// The sentinel is unreachable at once, so the next collection
		// finds it, and its cleanup puts the process's settings back.
		runtime.AddCleanup(new([32]byte), settle, s)
	}
}

// settings are the process's own, kept while a resume waits.
type settings struct {
	percent int
	limit   int64
}

var (
	mu      sync.Mutex
	pending *settings // a resume's, until its collection has run
	// restored, when set (by a test), is told when settings are put back.
	restored chan struct{}
)

// settle puts the pending settings back: those of s only (a cleanup, whose
// resume may have been overtaken by a later pause), or any (nil).
func settle(s *settings) {
	mu.Lock()
	defer mu.Unlock()
	if pending == nil || (s != nil && pending != s) {
		return
	}
	debug.SetGCPercent(pending.percent)
	debug.SetMemoryLimit(pending.limit)
	pending = nil
	if restored != nil {
		restored <- struct{}{}
	}
}

// goal is the memory limit that starts the next collection where the
// percentage would, had the heap been marked now: the runtime's memory
// (the quantity a limit bounds) plus percent of the heap's objects.
func goal(percent int) int64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return math.MaxInt64
		}
	}
	mapped := s[0].Value.Uint64() - s[1].Value.Uint64()
	grow := s[2].Value.Uint64() * uint64(percent) / 100
	return int64(min(mapped+grow, math.MaxInt64))
}
