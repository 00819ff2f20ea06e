package mock

import (
	"context"
	"net/http"
	"time"
)

// SetFaultSleep replaces the real-time wait of fault delays, so that a
// test sees the delays drawn without waiting them out.
func (s *Server) SetFaultSleep(sleep func(context.Context, time.Duration) error) {
	s.faultRules.sleep = sleep
}

// WarmUp runs the background warm-up (WithWarmUp) to its end in the
// caller's goroutine, or until ctx ends, whatever the server's options.
func (s *Server) WarmUp(ctx context.Context) {
	warmUpAll(ctx, s.versions.distinct(), func(ctx context.Context) bool { return ctx.Err() == nil })
}

// WarmUpDone is closed when the background warm-up has ended; nil when
// none was started.
func (s *Server) WarmUpDone() <-chan struct{} {
	s.warming.mu.Lock()
	defer s.warming.mu.Unlock()
	if s.warming.done == nil {
		return nil
	}
	return s.warming.done
}

// CallCounter is the warm-up's count of calls in flight, around h.
type CallCounter struct {
	w *warming
	h http.Handler
}

// CountCalls counts the calls h answers as a warming server does, with
// settle as the quiet a step waits for.
func CountCalls(h http.Handler, settle time.Duration) *CallCounter {
	w := &warming{quiet: make(chan struct{}, 1), seen: -1, settle: settle}
	w.running.Store(true)
	return &CallCounter{w: w, h: w.serving(h)}
}

// Serve answers a call through the count.
func (c *CallCounter) Serve(rw http.ResponseWriter, r *http.Request) { c.h.ServeHTTP(rw, r) }

// Wait is the warm-up's wait before a step.
func (c *CallCounter) Wait(ctx context.Context) bool { return c.w.waitQuiet(ctx) }
