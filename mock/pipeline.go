package mock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// The request pipeline: serveHTTP takes every request, and an API call
// goes through the stages below, in the order the service makes its
// checks. Each stage is a method of call (call.go) in a stage_*.go file of
// its own; it lets the call on (nil, nil), refuses it (an error, which
// apierror turns into the service's reply) or answers it. A new stage is a
// file and a line here, and a line in docs/architecture.md (a test holds
// the document to this table).

type stage struct {
	// name is the stage as the deadline's message and
	// docs/architecture.md name it.
	name string
	run  func(*call) (*handler.Response, error)
}

var pipeline = [...]stage{
	stageAuth:       {"authentication", (*call).authenticate},                        // stage_auth.go
	stageRateLimit:  {"rate limit", (*call).limitRate},                               // stage_rate.go
	stageVersion:    {"version", (*call).checkVersion},                               // stage_version.go
	stageRoute:      {"route", (*call).checkRoute},                                   // stage_route.go
	stageFaults:     {"faults", (*call).injectFault},                                 // stage_faults.go
	stageInput:      {"reading the request", (*call).readRequest},                    // stage_input.go
	stageReplay:     {"replay", (*call).replay},                                      // stage_replay.go
	stageLeniency:   {"reading the body as the service does", (*call).readLeniently}, // stage_leniency.go
	stageValidation: {"validation", (*call).validate},                                // stage_validation.go
	stageAnswer:     {"answer", (*call).answer},                                      // stage_answer.go
}

// stage names the stage the call is at, for the deadline's message.
func (c *call) stage() string { return pipeline[c.phase.Load()].name }

// Handler returns the fake as an http.Handler, for callers that run their
// own server (or none: httptest.NewRecorder works too).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// serveHTTP takes every request: the fake's own routes outside the API
// first, then an API call through the pipeline, then the writing of its
// answer or refusal.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	c := &call{s: s, r: r}
	c.own.ResponseWriter = w
	c.rec = &c.own
	start := time.Now()
	defer func() {
		// A failure anywhere below becomes a 500 with an Error ID, never a
		// dropped connection or a dead server.
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				// A connection fault that cannot take the connection
				// over aborts the stream (stage_faults.go); it is
				// recorded all the same.
				c.record(time.Since(start))
				panic(v)
			}
			c.recovered(v)
		}
		c.log(time.Since(start))
		c.record(time.Since(start))
	}()

	// Download URLs of data links live outside the API too (downloads.go).
	if s.downloads.serves(r) {
		resp, err := s.downloads.serve(r, s.clock)
		c.respond(c.rec, resp, err)
		return
	}
	// Control routes (/_mock/...) live outside the API: no token, no limits.
	path := r.URL.EscapedPath()
	if strings.HasPrefix(path, control.Prefix) {
		// The control API shows the shared clock when its store answers; when
		// it does not, health says so.
		_ = s.clock.Sync()
		s.control.ServeHTTP(c.rec, r)
		return
	}
	// The watchUrl Nextflow prints opens the run (control/watch.go); its
	// path has a "watch" segment with one after it, so any other call is
	// not split into segments to find out.
	if strings.Contains(path, "/watch/") {
		if w, ok := control.WatchRequest(r, s.basePath, DevToken); ok {
			c.r = w
		}
	}
	ctx := c.r.Context()
	resp, err := c.runWithin()
	// A fault's delay and broken connection act on the writing of the
	// answer, whatever the answer is (stage_faults.go).
	out := c.faultWriter(ctx)
	c.respond(out, resp, err)
	c.breakAnswer(ctx, out)
}

// runWithin runs the pipeline under the server's deadline. The call's
// context carries the deadline to the work, and past it the client gets
// the internal-error reply with what the call was doing in the journal.
// The pipeline runs on the call's own goroutine: every stage of the fake
// is bounded by construction or checks the context in the loops that can
// run long (generation above all), so it stops at the deadline, and a
// goroutine per call would cost a third of the fake's throughput. Only a
// handler given with WithHandler, which makes no such promise, runs apart
// (stage_answer.go).
//
// Reading the body is bounded by the same deadline, set on the connection
// (a read does not watch its context): a client that stalls or trickles
// its body gets a Bad Request when the time is up. A body the client did
// not send as announced is the client's fault even when the deadline
// passed or the connection was half closed meanwhile (which ends the
// call's context), so that Bad Request is what it gets, not the
// internal-error reply.
func (c *call) runWithin() (*handler.Response, error) {
	s, r := c.s, c.r
	if s.timeout <= 0 {
		return c.run()
	}
	deadline := time.Now().Add(s.timeout)
	if r.Body != nil && r.Body != http.NoBody {
		// Left in place after the call: the server sets its own again
		// before it reads the next call on the connection, and a body
		// left unread (a refused call) must not be waited for when the
		// server discards it after the answer.
		_ = http.NewResponseController(c.rec).SetReadDeadline(deadline)
	}
	ctx := &c.deadline
	ctx.Context, ctx.deadline = r.Context(), deadline
	defer ctx.release()
	c.r = r.WithContext(ctx)
	resp, err := c.run()
	if ctx.Err() == nil || c.phase.Load() == stageInput && err != nil {
		return resp, err
	}
	if err == nil && resp != nil && isWrite(r.Method) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The write is done (stored, a run launched): the deadline stops
		// work, never the answer to work committed, or the client would
		// be told it failed and retry what it already has.
		return resp, nil
	}
	kind, why := apierror.Internal, "no answer within "+s.timeout.String()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// A client that closes its connection (a load generator stopping,
		// a test cancelling) is not the fake failing.
		kind, why = apierror.ClientClosed, "the client went away"
	}
	return nil, &apierror.Error{Kind: kind,
		Reason: fmt.Sprintf("%s: %s (operation %s, stage %s)", r.Method, why, c.operation(), c.stage())}
}

// isWrite reports a method that changes what the service holds.
func isWrite(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// run takes an API call through every stage, in order, and returns the
// answer as a value. The version and the route are found first, since the
// profile may let calls to operations without security through
// unauthenticated; their failures are answered at their own stage.
func (c *call) run() (*handler.Response, error) {
	// A clock shared by replicas is read once per call.
	if err := c.s.clock.Sync(); err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "reading the shared clock: " + err.Error()}
	}
	c.now = c.s.clock.Now()
	c.selectVersion() // stage_version.go
	c.match()         // stage_route.go
	for i := range pipeline {
		c.at(int32(i))
		resp, err := pipeline[i].run(c)
		if err != nil {
			return nil, err
		}
		if resp != nil {
			c.setRateHeaders(resp) // stage_rate.go
			return resp, nil
		}
	}
	return nil, &apierror.Error{Kind: apierror.Internal, Reason: "no stage answered the call"}
}
