package stopwatch

import (
	"reflect"
	"testing"
	"time"
)

// A fake clock that moves only when told: laps measure exactly the time
// between them, a repeated name adds up in its first place, and Reset
// leaves out the time before it.
func TestLaps(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	w := NewAt(clock)
	now = now.Add(3 * time.Millisecond)
	w.Lap("parse")
	now = now.Add(5 * time.Millisecond)
	w.Lap("model")
	now = now.Add(100 * time.Millisecond) // waiting, not counted
	w.Reset()
	now = now.Add(2 * time.Millisecond)
	w.Lap("parse")
	w.Add("listen", time.Millisecond)
	want := []Lap{{"parse", 5 * time.Millisecond}, {"model", 5 * time.Millisecond}, {"listen", time.Millisecond}}
	if got := w.Laps(); !reflect.DeepEqual(got, want) {
		t.Fatalf("laps = %v, want %v", got, want)
	}
	other := NewAt(clock)
	other.Merge(w.Laps())
	other.Merge([]Lap{{"model", time.Millisecond}})
	if got := other.Laps()[1]; got.Duration != 6*time.Millisecond {
		t.Errorf("merged model lap = %v, want 6ms", got)
	}
	// The copy handed out is the caller's: changing it changes no watch.
	laps := w.Laps()
	laps[0].Duration = 0
	if w.Laps()[0].Duration != 5*time.Millisecond {
		t.Error("Laps returned the watch's own slice")
	}
}

// A nil watch records nothing and does not panic, so callers need no
// checks.
func TestNilWatch(t *testing.T) {
	var w *Watch
	w.Lap("x")
	w.Reset()
	w.Add("y", time.Second)
	w.Merge([]Lap{{"z", time.Second}})
	if w.Laps() != nil {
		t.Error("a nil watch has laps")
	}
}
