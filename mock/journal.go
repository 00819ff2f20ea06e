package mock

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/control"
)

// log writes a finished call to the server's log at debug level, with
// what its body was tolerated.
func (c *call) log(took time.Duration) {
	s, r, rec := c.s, c.r, c.rec
	if !s.logger.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.statusCode(), "duration", took}
	if rec.errorID != "" {
		attrs = append(attrs, "error_id", rec.errorID)
	}
	if rec.reason != "" {
		attrs = append(attrs, "reason", rec.reason)
	}
	s.logger.Debug("request", attrs...)
	if len(c.deviations) == 0 {
		return
	}
	lines := make([]string, len(c.deviations))
	for i, d := range c.deviations {
		lines[i] = d.String()
	}
	s.logger.Log(context.Background(), slog.LevelDebug, "request body deviates from the document",
		"method", r.Method, "path", r.URL.Path, "operation", c.operation(),
		"deviations", strings.Join(lines, "; "), "more", c.moreDeviations)
}

// record adds a finished call to the request journal. Control calls are
// left out, so reading the journal does not fill it.
func (c *call) record(took time.Duration) {
	r, rec := c.r, c.rec
	if strings.HasPrefix(r.URL.EscapedPath(), control.Prefix) {
		return
	}
	e := control.RequestEntry{
		Time: c.s.clock.Now().UTC(), Method: r.Method, Path: r.URL.Path, Status: rec.statusCode(),
		ErrorID: rec.errorID, Reason: rec.reason, LatencyMS: float64(took.Microseconds()) / 1000,
		Extension: c.extension, Deviations: c.deviations, MoreDeviations: c.moreDeviations,
		Injected: c.injections(), // stage_faults.go
	}
	if op := c.op.Load(); op != nil {
		e.Operation = op.ID
	}
	c.s.requests.Add(e)
}
