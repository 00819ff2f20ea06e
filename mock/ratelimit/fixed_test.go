package ratelimit

import (
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// TestFixedWindows: counted per wall-clock second, a window starts from zero
// at each boundary, so two bursts either side of one are both accepted
// (where rolling windows refuse the second), and a refused call is told to
// come back at the boundary.
func TestFixedWindows(t *testing.T) {
	// The clock starts 700ms into a wall-clock second.
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 700_000_000, time.UTC))
	m := NewMemory([]Window{{Limit: 3, Period: time.Second}}, WithClock(clk), WithFixedWindows(true))
	accepted := func(n int) int {
		ok := 0
		for range n {
			if m.Allow("k").Allowed {
				ok++
			}
		}
		return ok
	}
	if got := accepted(5); got != 3 {
		t.Fatalf("first burst: %d accepted, want 3", got)
	}
	d := m.Allow("k")
	if d.Allowed || d.RetryAfter != 300*time.Millisecond {
		t.Fatalf("over the limit: %+v, want a refusal until the boundary 300ms away", d)
	}
	clk.Advance(300 * time.Millisecond) // the next wall-clock second
	if got := accepted(5); got != 3 {
		t.Fatalf("after the boundary: %d accepted, want 3 (a rolling window would accept none)", got)
	}
	clk.Advance(999 * time.Millisecond)
	if got := accepted(1); got != 0 {
		t.Fatalf("within the same second: %d accepted, want 0", got)
	}
	clk.Advance(time.Millisecond)
	if got := accepted(1); got != 1 {
		t.Fatalf("the following second: %d accepted, want 1", got)
	}

	// The same sequence on rolling windows refuses the second burst.
	rclk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 700_000_000, time.UTC))
	r := NewMemory([]Window{{Limit: 3, Period: time.Second}}, WithClock(rclk))
	for range 5 {
		r.Allow("k")
	}
	rclk.Advance(300 * time.Millisecond)
	if r.Allow("k").Allowed {
		t.Fatal("rolling: a call 300ms after a full burst was accepted")
	}
}
