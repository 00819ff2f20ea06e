// Package clock lets the fake tell time through an interface, so tests and the
// control API can move time forward instead of waiting for it to pass.
package clock

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/wait"
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
	mu      sync.RWMutex
	now     time.Time
	waiters []waiter
	// registered is signalled (under mu) when a sleeper starts waiting.
	registered *sync.Cond
}

// waiter is a Sleep on a Fake: woken when the clock reaches at.
type waiter struct {
	at   time.Time
	wake chan struct{}
}

// NewFake returns a Fake clock set to start.
func NewFake(start time.Time) *Fake {
	f := &Fake{now: start}
	f.registered = sync.NewCond(&f.mu)
	return f
}

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
		f.wakeLocked()
	}
	return f.now
}

// Set moves the clock to t if t is later than the current time.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.now = t
		f.wakeLocked()
	}
}

// wakeLocked ends the sleeps whose time has come.
func (f *Fake) wakeLocked() {
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			kept = append(kept, w)
		} else {
			close(w.wake)
		}
	}
	f.waiters = kept
}

// sleep waits until the clock has moved d on, or ctx is done.
func (f *Fake) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	w := waiter{at: f.now.Add(d), wake: make(chan struct{})}
	f.waiters = append(f.waiters, w)
	f.registered.Broadcast()
	f.mu.Unlock()
	select {
	case <-w.wake:
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		for i, x := range f.waiters {
			if x.wake == w.wake {
				f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
				break
			}
		}
		f.mu.Unlock()
		return ctx.Err()
	}
}

// BlockUntilSleeping returns once n callers are in Sleep on this clock: a
// test moves the clock only after the code it tests has started to wait,
// without guessing how long that takes.
func (f *Fake) BlockUntilSleeping(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.waiters) < n {
		f.registered.Wait()
	}
}

// Sleep waits until d has passed on c, or ctx is done. On a Fake clock (or
// an Offset over one) the sleep ends when the clock is moved past its end,
// so tests never wait for real time; on any other clock it is a timer.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	switch c := c.(type) {
	case *Fake:
		return c.sleep(ctx, d)
	case *Offset:
		return c.sleep(ctx, d)
	}
	return wait.For(ctx, d)
}

// Offset is a clock that runs with a base clock but can be moved ahead: the
// server uses it so that the control API can advance time on a live server
// without stopping the real clock underneath. It is the one record of how
// far the clock was moved (Skew), which the state file saves.
type Offset struct {
	base     Clock
	shared   Shared // nil: the offset is this process's own
	mu       sync.RWMutex
	skew     time.Duration
	sleepers []*offsetSleeper
}

// Shared is an offset kept outside the process (in Redis), so that several
// replicas of the fake move one clock: time moved forward through one is
// seen by all. The offset only ever grows.
type Shared interface {
	// Load returns the shared offset.
	Load() (time.Duration, error)
	// Advance moves the shared offset to the larger of itself and from,
	// plus d, and returns the result. from is the caller's own offset, so
	// a shared one that was lost (Redis emptied) cannot move time back.
	Advance(from, d time.Duration) (time.Duration, error)
}

// Share makes o follow a shared offset: Sync adopts it and Move moves it.
// Call it before o is used by other goroutines.
func (o *Offset) Share(s Shared) { o.shared = s }

// Sync adopts the shared offset when it is ahead of o's own (it never
// moves time back); without one it does nothing. The server calls it once
// per request, so one read of the shared offset serves every reading of
// the clock the request makes.
func (o *Offset) Sync() error {
	if o.shared == nil {
		return nil
	}
	skew, err := o.shared.Load()
	if err != nil {
		return err
	}
	o.adopt(skew)
	return nil
}

// Move advances the clock by d like Advance, but in the shared offset when
// there is one, so that every replica sees the move on its next request.
func (o *Offset) Move(d time.Duration) (time.Time, error) {
	if o.shared == nil || d <= 0 {
		return o.Advance(d), nil
	}
	skew, err := o.shared.Advance(o.Skew(), d)
	if err != nil {
		return time.Time{}, err
	}
	o.adopt(skew)
	return o.Now(), nil
}

// adopt raises the offset to skew, waking sleepers, if skew is ahead.
func (o *Offset) adopt(skew time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if skew > o.skew {
		o.skew = skew
		o.wakeLocked()
	}
}

func (o *Offset) wakeLocked() {
	for _, sl := range o.sleepers {
		sl.wake()
	}
	clear(o.sleepers)
	o.sleepers = o.sleepers[:0]
}

// offsetSleeper is a Sleep in progress on an Offset: Advance cancels its
// wait on the base clock, so it measures again what is left.
type offsetSleeper struct{ wake context.CancelFunc }

// NewOffset wraps base with a zero offset.
func NewOffset(base Clock) *Offset { return &Offset{base: base} }

// Now returns the base time plus the accumulated offset.
func (o *Offset) Now() time.Time {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.base.Now().Add(o.skew)
}

// Skew is how far Advance has moved the clock ahead of its base.
func (o *Offset) Skew() time.Duration {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.skew
}

// Advance moves the clock forward by d; negative values are ignored.
// Every sleeper wakes to measure again what is left of its sleep.
func (o *Offset) Advance(d time.Duration) time.Time {
	o.mu.Lock()
	if d > 0 {
		o.skew += d
		o.wakeLocked()
	}
	now := o.base.Now().Add(o.skew)
	o.mu.Unlock()
	return now
}

// sleep waits on the base clock for what is left until end, and measures
// again whenever Advance moves the Offset; so a sleep ends when either
// clock brings the Offset's time to its end.
func (o *Offset) sleep(ctx context.Context, d time.Duration) error {
	end := o.Now().Add(d)
	for {
		bctx, wake := context.WithCancel(ctx)
		o.mu.Lock()
		left := end.Sub(o.base.Now().Add(o.skew))
		sl := &offsetSleeper{wake: wake}
		o.sleepers = append(o.sleepers, sl)
		o.mu.Unlock()
		err := Sleep(bctx, o.base, left)
		wake()
		o.drop(sl)
		switch {
		case err == nil || left <= 0:
			return ctx.Err()
		case ctx.Err() != nil:
			return ctx.Err()
		case !o.Now().Before(end):
			return nil
		}
	}
}

// drop removes a sleeper, if Advance has not already.
func (o *Offset) drop(sl *offsetSleeper) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sleepers = slices.DeleteFunc(o.sleepers, func(x *offsetSleeper) bool { return x == sl })
}
