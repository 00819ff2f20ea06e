package ratelimit

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// Many goroutines hammer one key while a coordinator moves the fake clock
// 50ms between rounds; barriers, not sleeps, separate the rounds, so the
// outcome is deterministic and every accepted call's time is known.
func TestConcurrentOneKey(t *testing.T) {
	const (
		workers  = 64
		rounds   = 100 // 5 s of fake time
		perRound = 8   // 512 attempts per 50ms, far above 20/s
		step     = 50 * time.Millisecond
	)
	clk := clock.NewFake(start)
	m := NewMemory([]Window{{Limit: 20, Period: time.Second}, {Limit: 72000, Period: time.Hour}}, WithClock(clk), WithSweepEvery(7))

	begin := make([]chan struct{}, rounds)
	done := make([]sync.WaitGroup, rounds)
	for r := range rounds {
		begin[r] = make(chan struct{})
		done[r].Add(workers + 1)
	}
	type acc struct {
		at        time.Time
		remaining int
	}
	got := make([][]acc, workers)
	bad := make([][]Decision, workers)
	for w := range workers {
		go func() {
			for r := range rounds {
				<-begin[r]
				for range perRound {
					d := m.Allow("A")
					if d.Allowed {
						got[w] = append(got[w], acc{clk.Now(), d.Remaining})
					} else if d.RetryAfter <= 0 || d.RetryAfter > time.Second || d.Limit != 20 {
						bad[w] = append(bad[w], d)
					}
				}
				done[r].Done()
			}
		}()
	}
	// Key B, used alongside: on every whole second it asks for 21 calls.
	bGot := make([]int, rounds)
	go func() {
		for r := range rounds {
			<-begin[r]
			if r%20 == 0 {
				for range 21 {
					if m.Allow("B").Allowed {
						bGot[r]++
					}
				}
			}
			done[r].Done()
		}
	}()
	for r := range rounds {
		close(begin[r])
		done[r].Wait()
		clk.Advance(step)
	}

	for w := range workers {
		for _, d := range bad[w] {
			t.Errorf("worker %d: bad rejection %+v", w, d)
		}
	}
	var all []acc
	for _, g := range got {
		all = append(all, g...)
	}
	slices.SortFunc(all, func(a, b acc) int { return a.at.Compare(b.at) })
	// The busiest rolling second ends at an accepted call.
	for i, a := range all {
		n := 0
		for _, b := range all[:i+1] {
			if b.at.After(a.at.Add(-time.Second)) {
				n++
			}
		}
		if n > 20 {
			t.Fatalf("%d accepted in the second ending %v", n, a.at.Sub(start))
		}
	}
	// Every second is saturated: each window ending on a round holds
	// exactly 20, and each burst counts Remaining down 19..0.
	for r := range rounds {
		end := start.Add(time.Duration(r) * step)
		var rem []int
		n := 0
		for _, a := range all {
			if a.at.After(end.Add(-time.Second)) && !a.at.After(end) {
				n++
			}
			if a.at.Equal(end) {
				rem = append(rem, a.remaining)
			}
		}
		if n != 20 {
			t.Errorf("second ending at %v: %d accepted, want 20", end.Sub(start), n)
		}
		if r%20 == 0 {
			slices.Sort(rem)
			if len(rem) != 20 || rem[0] != 0 || rem[19] != 19 || len(slices.Compact(rem)) != 20 {
				t.Errorf("round %d: Remaining values %v, want 0..19 once each", r, rem)
			}
			if bGot[r] != 20 {
				t.Errorf("round %d: key B got %d, want 20", r, bGot[r])
			}
		} else if len(rem) != 0 || bGot[r] != 0 {
			t.Errorf("round %d: %d accepted for A, %d for B, want none", r, len(rem), bGot[r])
		}
	}
}

// Calls racing with sweeps and snapshots on many keys, for the race
// detector and the evicted-entry retry path: with an idle period shorter
// than the clock steps every key is evicted between uses, and the limits
// must hold regardless.
func TestConcurrentManyKeysWithEviction(t *testing.T) {
	clk := clock.NewFake(start)
	m := NewMemory([]Window{{Limit: 5, Period: 100 * time.Millisecond}}, WithClock(clk), WithSweepEvery(1))
	keys := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"}
	const workers, rounds = 16, 40
	var mu sync.Mutex
	perKey := map[string][]int{}
	for range rounds {
		var wg sync.WaitGroup
		counts := make([]map[string]int, workers)
		for w := range workers {
			wg.Go(func() {
				counts[w] = map[string]int{}
				for i := range 50 {
					k := keys[(w+i)%len(keys)]
					if m.Allow(k).Allowed {
						counts[w][k]++
					}
					if i%10 == 0 {
						m.Snapshot()
					}
				}
			})
		}
		wg.Wait()
		mu.Lock()
		for _, k := range keys {
			n := 0
			for w := range workers {
				n += counts[w][k]
			}
			perKey[k] = append(perKey[k], n)
		}
		mu.Unlock()
		clk.Advance(100 * time.Millisecond)
	}
	for k, ns := range perKey {
		for r, n := range ns {
			if n != 5 {
				t.Fatalf("key %s round %d: %d accepted, want 5", k, r, n)
			}
		}
	}
}
