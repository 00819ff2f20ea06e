// Package clock lets the fake tell time through an interface, so tests and the
// control API can move time forward instead of waiting for it to pass.
package clock

import (
	"sync"
	"time"
)

// Clock is the fake's only source of the current time.
type Clock interface {
	Now() time.Time
}

// Real reads the system clock.
type Real struct{}

// Now returns the current system time.
func (Real) Now() time.Time { return time.Now() }

// Fake is a clock that only moves when told to. It is safe for concurrent use.
type Fake struct {
	mu  sync.RWMutex
	now time.Time
}

// NewFake returns a Fake clock set to start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.now
}

// Advance moves the clock forward by d (a negative d is ignored: time on a
// fake clock never runs backwards, as windows and lifecycles assume).
func (f *Fake) Advance(d time.Duration) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d > 0 {
		f.now = f.now.Add(d)
	}
	return f.now
}

// Set moves the clock to t if t is later than the current time.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.now = t
	}
}

// Offset is a clock that runs with a base clock but can be moved ahead: the
// server uses it so that the control API can advance time on a live server
// without stopping the real clock underneath.
type Offset struct {
	base Clock
	mu   sync.RWMutex
	skew time.Duration
}

// NewOffset wraps base with a zero offset.
func NewOffset(base Clock) *Offset { return &Offset{base: base} }

// Now returns the base time plus the accumulated offset.
func (o *Offset) Now() time.Time {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.base.Now().Add(o.skew)
}

// Advance moves the clock forward by d; negative values are ignored.
func (o *Offset) Advance(d time.Duration) time.Time {
	o.mu.Lock()
	if d > 0 {
		o.skew += d
	}
	o.mu.Unlock()
	return o.Now()
}
