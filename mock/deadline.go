package mock

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadlineCtx is a call's context with the server's deadline, made for the
// common case of a call that ends long before it: Err compares the time
// with the deadline, and only Done, which work that waits on something
// asks for, arms a timer. context.WithTimeout arms one for every call,
// which cost the fake a twentieth of its throughput.
type deadlineCtx struct {
	context.Context // the request's own context
	deadline        time.Time

	once     sync.Once
	armed    context.Context
	cancel   context.CancelFunc
	released atomic.Bool
}

func withDeadline(parent context.Context, d time.Time) *deadlineCtx {
	return &deadlineCtx{Context: parent, deadline: d}
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Done() <-chan struct{} {
	c.once.Do(func() { c.armed, c.cancel = context.WithDeadline(c.Context, c.deadline) })
	if c.armed == nil { // released before anything asked: the call is over
		return closed
	}
	return c.armed.Done()
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c *deadlineCtx) Err() error {
	if c.released.Load() {
		return context.Canceled
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// release ends the context when its call is answered (as the cancel
// function of context.WithTimeout does) and frees the timer, if Done armed
// one.
func (c *deadlineCtx) release() {
	c.released.Store(true)
	c.once.Do(func() {}) // nothing can arm it afterwards
	if c.cancel != nil {
		c.cancel()
	}
}
