package clock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Every clock the fake uses satisfies Clock.
var (
	_ Clock = Real{}
	_ Clock = (*Fake)(nil)
	_ Clock = (*Offset)(nil)
)

// TestFakeNeverGoesBack guards that a fake clock only moves forward:
// Advance with a positive duration moves it by exactly that much, while a
// zero or negative duration and a Set to an earlier (or equal) time leave it
// where it is.
func TestFakeNeverGoesBack(t *testing.T) {
	type step struct {
		advance time.Duration // used when set is zero
		set     time.Time
		want    time.Duration // expected offset from t0 afterwards
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"advance", []step{{advance: time.Second, want: time.Second}, {advance: time.Minute, want: time.Minute + time.Second}}},
		{"zero advance", []step{{advance: 0, want: 0}}},
		{"negative advance", []step{{advance: time.Hour, want: time.Hour}, {advance: -30 * time.Minute, want: time.Hour}}},
		{"set forward", []step{{set: t0.Add(time.Hour), want: time.Hour}}},
		{"set back", []step{{set: t0.Add(time.Hour), want: time.Hour}, {set: t0.Add(time.Minute), want: time.Hour}}},
		{"set same", []step{{set: t0, want: 0}}},
		{"set before start", []step{{set: t0.Add(-time.Hour), want: 0}}},
		{"mixed", []step{
			{advance: 10 * time.Second, want: 10 * time.Second},
			{set: t0.Add(5 * time.Second), want: 10 * time.Second},
			{set: t0.Add(20 * time.Second), want: 20 * time.Second},
			{advance: -time.Second, want: 20 * time.Second},
			{advance: time.Nanosecond, want: 20*time.Second + time.Nanosecond},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFake(t0)
			if !f.Now().Equal(t0) {
				t.Fatalf("new fake reads %v, want %v", f.Now(), t0)
			}
			for i, s := range tc.steps {
				want := t0.Add(s.want)
				if s.set.IsZero() {
					if got := f.Advance(s.advance); !got.Equal(want) {
						t.Errorf("step %d: Advance(%v) returned %v, want %v", i, s.advance, got, want)
					}
				} else {
					f.Set(s.set)
				}
				if got := f.Now(); !got.Equal(want) {
					t.Errorf("step %d: Now() = %v, want %v", i, got, want)
				}
			}
		})
	}
}

// TestFakeConcurrentAdvance guards that concurrent Advance calls each take
// effect exactly once and that readers never see time go back (run with
// -race).
func TestFakeConcurrentAdvance(t *testing.T) {
	f := NewFake(t0)
	const workers, steps = 8, 500
	var wg sync.WaitGroup
	for range workers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range steps {
				f.Advance(time.Millisecond)
			}
		}()
		go func() {
			defer wg.Done()
			last := f.Now()
			for range steps {
				now := f.Now()
				if now.Before(last) {
					t.Errorf("time went back from %v to %v", last, now)
					return
				}
				last = now
			}
		}()
	}
	wg.Wait()
	if got, want := f.Now(), t0.Add(workers*steps*time.Millisecond); !got.Equal(want) {
		t.Errorf("after %d advances of 1ms: %v, want %v", workers*steps, got, want)
	}
}

// TestOffsetAddsSkew guards that an Offset clock reads its base plus the
// sum of its positive advances, follows its base as the base moves, and
// ignores negative advances.
func TestOffsetAddsSkew(t *testing.T) {
	cases := []struct {
		name     string
		advances []time.Duration
		baseMove time.Duration
		wantSkew time.Duration
	}{
		{"none", nil, 0, 0},
		{"one", []time.Duration{time.Hour}, 0, time.Hour},
		{"sum", []time.Duration{time.Hour, 30 * time.Minute}, 0, 90 * time.Minute},
		{"negative ignored", []time.Duration{time.Hour, -2 * time.Hour}, 0, time.Hour},
		{"base moves too", []time.Duration{time.Minute}, 10 * time.Second, time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := NewFake(t0)
			o := NewOffset(base)
			var skew time.Duration
			for _, d := range tc.advances {
				if d > 0 {
					skew += d
				}
				if got, want := o.Advance(d), t0.Add(skew); !got.Equal(want) {
					t.Errorf("Advance(%v) returned %v, want %v", d, got, want)
				}
			}
			base.Advance(tc.baseMove)
			if got, want := o.Now(), t0.Add(tc.baseMove+tc.wantSkew); !got.Equal(want) {
				t.Errorf("Now() = %v, want %v", got, want)
			}
			if got, want := base.Now(), t0.Add(tc.baseMove); !got.Equal(want) {
				t.Errorf("advancing the offset moved its base to %v, want %v", got, want)
			}
		})
	}
}

// TestOffsetConcurrentAdvance guards that an Offset is safe for concurrent
// Advance and Now (run with -race).
func TestOffsetConcurrentAdvance(t *testing.T) {
	o := NewOffset(NewFake(t0))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				o.Advance(time.Second)
				_ = o.Now()
			}
		}()
	}
	wg.Wait()
	if got, want := o.Now(), t0.Add(1600*time.Second); !got.Equal(want) {
		t.Errorf("Now() = %v, want %v", got, want)
	}
}

// Sleep on a fake clock ends when the clock is moved past its end, not
// before, and a cancelled sleep leaves nothing behind.
func TestFakeSleep(t *testing.T) {
	f := NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	done := make(chan error, 1)
	go func() { done <- Sleep(context.Background(), NewOffset(f), time.Second) }()
	f.BlockUntilSleeping(1)
	f.Advance(999 * time.Millisecond)
	f.mu.Lock()
	waiting := len(f.waiters)
	f.mu.Unlock()
	if waiting != 1 {
		t.Fatal("woken before its time")
	}
	f.Advance(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatalf("sleep: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- Sleep(ctx, f, time.Hour) }()
	f.BlockUntilSleeping(1)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("cancelled sleep: %v", err)
	}
	f.mu.Lock()
	left := len(f.waiters)
	f.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d sleepers left after the cancel", left)
	}
}

// A sleep on an Offset ends when the Offset is moved past its end, whatever
// its base does (the admin API moves the Offset, not the base), and also
// when the base catches up after a partial move.
func TestOffsetSleep(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name         string
		moveOffset   time.Duration
		thenMoveBase time.Duration
	}{
		{"offset moved past the end", 2 * time.Second, 0},
		{"offset moved exactly to the end", time.Second, 0},
		{"offset moved part way, base the rest", 600 * time.Millisecond, 400 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFake(t0)
			o := NewOffset(f)
			done := make(chan error, 1)
			go func() { done <- Sleep(context.Background(), o, time.Second) }()
			f.BlockUntilSleeping(1)
			o.Advance(tc.moveOffset)
			if tc.thenMoveBase > 0 {
				f.BlockUntilSleeping(1) // the sleep goes back to the base for the rest
				f.Advance(tc.thenMoveBase - time.Millisecond)
				select {
				case err := <-done:
					t.Fatalf("woken before its end: %v", err)
				default:
				}
				f.Advance(time.Millisecond)
			}
			if err := <-done; err != nil {
				t.Fatalf("sleep: %v", err)
			}
			o.mu.RLock()
			left := len(o.sleepers)
			o.mu.RUnlock()
			if left != 0 {
				t.Errorf("%d sleepers left on the offset", left)
			}
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		f := NewFake(t0)
		o := NewOffset(f)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Sleep(ctx, o, time.Hour) }()
		f.BlockUntilSleeping(1)
		o.Advance(time.Minute)
		f.BlockUntilSleeping(1)
		cancel()
		if err := <-done; err != context.Canceled {
			t.Fatalf("cancelled sleep: %v", err)
		}
		if o.Skew() != time.Minute {
			t.Errorf("Skew = %v, want 1m", o.Skew())
		}
	})
}

// sharedSkew is an in-process Shared, standing for Redis.
type sharedSkew struct {
	mu   sync.Mutex
	skew time.Duration
	err  error
}

func (s *sharedSkew) Load() (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skew, s.err
}

func (s *sharedSkew) Advance(from, d time.Duration) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	s.skew = max(s.skew, from) + d
	return s.skew, nil
}

// TestOffsetShared: two offsets on one base and one shared offset are two
// replicas: a Move on one is seen by the other at its next Sync, never
// before and never backwards; a failing shared offset is an error and
// leaves the clock where it was.
func TestOffsetShared(t *testing.T) {
	base := NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sh := &sharedSkew{}
	a, b := NewOffset(base), NewOffset(base)
	a.Share(sh)
	b.Share(sh)
	if _, err := a.Move(time.Minute); err != nil {
		t.Fatal(err)
	}
	if !a.Now().Equal(base.Now().Add(time.Minute)) || !b.Now().Equal(base.Now()) {
		t.Fatalf("after the move on a: a %v, b %v (b moves at its next Sync)", a.Now(), b.Now())
	}
	if err := b.Sync(); err != nil || !b.Now().Equal(a.Now()) {
		t.Fatalf("b after Sync: %v %v, want %v", b.Now(), err, a.Now())
	}
	// The shared offset lost (Redis emptied): nobody goes back, and the
	// next move starts from the mover's own offset.
	sh.skew = 0
	if err := a.Sync(); err != nil || a.Skew() != time.Minute {
		t.Fatalf("a after the shared offset was lost: %v %v", a.Skew(), err)
	}
	if _, err := a.Move(time.Second); err != nil || a.Skew() != time.Minute+time.Second {
		t.Fatalf("a moved after the loss: %v %v", a.Skew(), err)
	}
	sh.err = errors.New("down")
	if err := b.Sync(); err == nil {
		t.Error("Sync with the shared offset failing: no error")
	}
	if _, err := b.Move(time.Hour); err == nil || b.Skew() != time.Minute {
		t.Errorf("Move with the shared offset failing: %v, skew %v", err, b.Skew())
	}
	// Without a shared offset, Move is Advance and Sync does nothing.
	c := NewOffset(base)
	if _, err := c.Move(time.Second); err != nil || c.Skew() != time.Second || c.Sync() != nil {
		t.Errorf("unshared Move: %v %v", c.Skew(), err)
	}
}
