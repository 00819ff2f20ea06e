package mock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The lazy deadline context behaves as context.WithDeadline does: Err
// before and after the deadline, the parent's cancellation passed on, and
// Done closing at the deadline once something asks for it.
func TestDeadlineCtx(t *testing.T) {
	c := withDeadline(context.Background(), time.Now().Add(time.Hour))
	if c.Err() != nil {
		t.Fatalf("Err before the deadline: %v", c.Err())
	}
	if d, ok := c.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Fatalf("Deadline = %v, %v", d, ok)
	}
	c.release()

	past := withDeadline(context.Background(), time.Now().Add(-time.Second))
	if !errors.Is(past.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err past the deadline: %v", past.Err())
	}
	select {
	case <-past.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close past the deadline")
	}
	past.release()

	parent, cancel := context.WithCancel(context.Background())
	child := withDeadline(parent, time.Now().Add(time.Hour))
	done := child.Done()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close when the parent was cancelled")
	}
	if !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("Err after the parent's cancellation: %v", child.Err())
	}
	child.release()
}

// Work that outlives its call sees the context end when the call is
// answered, whether or not it had asked for Done before.
func TestDeadlineCtxReleased(t *testing.T) {
	asked := withDeadline(context.Background(), time.Now().Add(time.Hour))
	done := asked.Done()
	asked.release()
	<-done
	late := withDeadline(context.Background(), time.Now().Add(time.Hour))
	late.release()
	<-late.Done()
	if late.Err() == nil || asked.Err() == nil {
		t.Fatal("a released context reports no error")
	}
}
