// Package stopwatch records how long the named steps of a longer piece of
// work take, so that work can say where its time went: the fake's start-up
// reports its steps (reading, parsing, building the model, ...) this way.
//
// A nil *Watch is valid and records nothing, so code that times itself
// costs nothing when no one asks.
package stopwatch

import "time"

// Lap is one step and the time it took.
type Lap struct {
	Name     string
	Duration time.Duration
}

// Watch accumulates laps. It is not safe for concurrent use.
type Watch struct {
	now  func() time.Time
	last time.Time
	laps []Lap
}

// New starts a watch at the current time.
func New() *Watch { return NewAt(time.Now) }

// NewAt starts a watch that reads time from now, for tests.
func NewAt(now func() time.Time) *Watch {
	return &Watch{now: now, last: now()}
}

// Lap ends the step named name: it took the time since the previous lap
// (or since the watch started, or was last Reset). A step timed more than
// once (one per document, say) adds up under its name, keeping the order in
// which names were first seen.
func (w *Watch) Lap(name string) {
	if w == nil {
		return
	}
	t := w.now()
	w.Add(name, t.Sub(w.last))
	w.last = t
}

// Reset starts the next lap now, so time spent between steps that should
// not count (waiting for a caller, say) is left out.
func (w *Watch) Reset() {
	if w != nil {
		w.last = w.now()
	}
}

// Add records d under name without moving the watch.
func (w *Watch) Add(name string, d time.Duration) {
	if w == nil {
		return
	}
	for i := range w.laps {
		if w.laps[i].Name == name {
			w.laps[i].Duration += d
			return
		}
	}
	w.laps = append(w.laps, Lap{Name: name, Duration: d})
}

// Merge adds every lap of laps, as Add does.
func (w *Watch) Merge(laps []Lap) {
	for _, l := range laps {
		w.Add(l.Name, l.Duration)
	}
}

// Laps returns the steps so far, in the order they were first timed.
func (w *Watch) Laps() []Lap {
	if w == nil {
		return nil
	}
	return append([]Lap(nil), w.laps...)
}
