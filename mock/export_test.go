package mock

import (
	"context"
	"time"
)

// SetFaultSleep replaces the real-time wait of fault delays, so that a
// test sees the delays drawn without waiting them out.
func (s *Server) SetFaultSleep(sleep func(context.Context, time.Duration) error) {
	s.faultRules.sleep = sleep
}
