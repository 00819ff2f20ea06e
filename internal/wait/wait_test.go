package wait

import (
	"context"
	"testing"
	"time"
)

func TestForEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := For(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("a done context: %v, want context.Canceled at once", err)
	}
	if err := For(context.Background(), 0); err != nil {
		t.Fatalf("no wait: %v", err)
	}
	if err := For(context.Background(), time.Nanosecond); err != nil {
		t.Fatalf("a nanosecond: %v", err)
	}
}
