// Package wait holds the one way the project waits on the system clock: for
// a duration, or until the context is done, whichever comes first.
package wait

import (
	"context"
	"time"
)

// For waits d, or until ctx is done (then it returns ctx.Err()). A d of
// zero or less returns at once, with ctx.Err().
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
