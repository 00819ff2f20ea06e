package mock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// serveHTTP is the request pipeline, outermost stage first.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w}
	start := time.Now()
	prog := &progress{}
	// A failure anywhere below becomes a 500 with an Error ID, never a
	// dropped connection or a dead server.
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				// A connection fault that cannot take the connection
				// over aborts the stream (faults.go); it is recorded all
				// the same.
				s.recordRequest(r, rec, prog, time.Since(start))
				panic(v)
			}
			err := &apierror.Error{Kind: apierror.Internal, Reason: fmt.Sprintf("panic: %v", v)}
			if !rec.wrote {
				rec.errorID = s.errors.Write(rec, r, err)
			} else {
				s.logger.Error("panic after the answer began", "path", r.URL.Path, "panic", v)
			}
		}
		s.logRequest(r, rec, time.Since(start))
		s.logDeviations(r, prog) // lenient.go
		s.recordRequest(r, rec, prog, time.Since(start))
	}()

	// Download URLs of data links live outside the API too (downloads.go).
	if s.downloads.serves(r) {
		s.serveDownload(rec, r, prog)
		return
	}
	// Control routes (/_mock/...) live outside the API: no token, no limits.
	if strings.HasPrefix(r.URL.EscapedPath(), control.Prefix) {
		// The control API shows the shared clock when its store answers; when
		// it does not, health says so.
		_ = s.clock.Sync()
		s.control.ServeHTTP(rec, r)
		return
	}
	// The watchUrl Nextflow prints opens the run (control/watch.go).
	if w, ok := control.WatchRequest(r, s.basePath, DevToken); ok {
		r = w
	}
	ctx := r.Context()
	r, resp, err := s.serveWithin(rec, r, prog)
	// A fault's delay and broken connection act on the writing of the
	// answer, whatever the answer is (faults.go).
	out := s.faultWriter(ctx, rec, prog)
	if err != nil {
		out.errorID = s.errors.Write(out, r, err)
		rec.reason = err.Error() // for the journal: a 403 has no Error ID to look up
	} else {
		s.write(out, r, prog, resp)
	}
	s.breakAnswer(ctx, rec, out, prog)
}

// serveWithin runs serveAPI under the server's deadline. The call's
// context carries the deadline to the work, and past it the client gets
// the internal-error reply with what the call was doing in the journal.
// The pipeline runs on the call's own goroutine: every stage of the fake
// is bounded by construction or checks the context in the loops that can
// run long (generation above all), so it stops at the deadline, and a
// goroutine per call would cost a third of the fake's throughput. Only a
// handler given with WithHandler, which makes no such promise, runs apart
// (see handleWithin).
//
// Reading the body is bounded by the same deadline, set on the connection
// (a read does not watch its context): a client that stalls or trickles
// its body gets a Bad Request when the time is up. A body the client did
// not send as announced is the client's fault even when the deadline
// passed or the connection was half closed meanwhile (which ends the
// call's context), so that Bad Request is what it gets, not the
// internal-error reply.
func (s *Server) serveWithin(w http.ResponseWriter, r *http.Request, prog *progress) (*http.Request, *handler.Response, error) {
	if s.timeout <= 0 {
		resp, err := s.serveAPI(r, prog)
		return r, resp, err
	}
	deadline := time.Now().Add(s.timeout)
	if r.Body != nil && r.Body != http.NoBody {
		// Left in place after the call: the server sets its own again
		// before it reads the next call on the connection, and a body
		// left unread (a refused call) must not be waited for when the
		// server discards it after the answer.
		_ = http.NewResponseController(w).SetReadDeadline(deadline)
	}
	ctx := withDeadline(r.Context(), deadline)
	defer ctx.release()
	r = r.WithContext(ctx)
	resp, err := s.serveAPI(r, prog)
	if ctx.Err() == nil || prog.phase.Load() == stageInput && err != nil {
		return r, resp, err
	}
	if err == nil && resp != nil && isWrite(r.Method) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The write is done (stored, a run launched): the deadline stops
		// work, never the answer to work committed, or the client would
		// be told it failed and retry what it already has.
		return r, resp, nil
	}
	kind, why := apierror.Internal, "no answer within "+s.timeout.String()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// A client that closes its connection (a load generator stopping,
		// a test cancelling) is not the fake failing.
		kind, why = apierror.ClientClosed, "the client went away"
	}
	return r, nil, &apierror.Error{Kind: kind,
		Reason: fmt.Sprintf("%s: %s (operation %s, stage %s)", r.Method, why, prog.operation(), prog.stage())}
}

// isWrite reports a method that changes what the service holds.
func isWrite(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// handleWithin runs the operation's handler. A handler given with
// WithHandler may never look at its context, so it runs on a goroutine of
// its own and the answer does not wait for it past the call's deadline;
// the answer is still written only by the call's goroutine, so the late
// work cannot touch the response.
func (s *Server) handleWithin(a *api, req *handler.Request) (*handler.Response, error) {
	ctx := req.HTTP.Context()
	if !a.external[req.Op] || ctx.Done() == nil {
		return a.handle(req)
	}
	type outcome struct {
		resp *handler.Response
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{err: &apierror.Error{Kind: apierror.Internal, Reason: fmt.Sprintf("panic: %v", v)}}
			}
		}()
		resp, err := a.handle(req)
		done <- outcome{resp, err}
	}()
	select {
	case o := <-done:
		return o.resp, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// progress is how far a call has got through serveAPI: read by
// serveWithin when the call runs out of time (from another goroutine when
// the handler runs apart, hence the atomics), and afterwards by the
// answer's check and the request journal, so the call is routed once.
type progress struct {
	op    atomic.Pointer[spec.Operation]
	phase atomic.Int32
	// api is the version the call selected, set before its handler runs.
	api *api
	// replayed: the answer is a recorded one, served as recorded.
	replayed bool
	// rules, call, injected and pinned are the fault rules of the call,
	// what they select on, the fault acting on it and the override that
	// answers it (faults.go); nil when none.
	rules    *faults.Rules
	call     *faults.Call
	injected *faults.Injection
	pinned   *faults.Pinned
	// extension names the route beyond the schema the call addressed
	// (extensions.go), for the journal.
	extension string
	// deviations are where the body differed from the document, refused
	// ones first (readLeniently); moreDeviations counts those not listed.
	deviations     []leniency.Deviation
	moreDeviations int
}

// The stages of serveAPI, in order. docs/architecture.md names each (a
// test holds it to stageNames), so a stage added here is a stage
// documented there.
const (
	stageAuth int32 = iota
	stageRateLimit
	stageVersion
	stageRoute
	stageFaults
	stageInput
	stageLeniency
	stageValidation
	stageAnswer
)

var stageNames = [...]string{"authentication", "rate limit", "version", "route", "faults", "reading the request", "reading the body as the service does", "validation", "answer"}

func (p *progress) at(stage int32) { p.phase.Store(stage) }

func (p *progress) stage() string { return stageNames[p.phase.Load()] }

func (p *progress) operation() string {
	if op := p.op.Load(); op != nil {
		return op.ID
	}
	return "not routed yet"
}

// serveAPI takes an API call through every check the service makes, in the
// order it makes them, and returns the answer as a value.
func (s *Server) serveAPI(r *http.Request, prog *progress) (*handler.Response, error) {
	// A clock shared by replicas is read once per call.
	if err := s.clock.Sync(); err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "reading the shared clock: " + err.Error()}
	}
	now := s.clock.Now()
	// The version and route are found once, up front, since the profile
	// may let calls to operations without security through unauthenticated;
	// their failures are answered at their own stage below.
	a, versionErr := s.selectVersion(r)
	var op *spec.Operation
	var vars map[string]string
	var ext *extension.Route // a call beyond the schema (extensions.go)
	routed := false
	if versionErr == nil {
		if op, vars, routed = a.match(r); !routed {
			ext = s.extensionFor(r, a)
		}
	}

	// 1. Authentication: a usable Bearer token on every call, including
	//    operations whose document declares no security (CONTRACT A1, A3),
	//    unless the profile lets those through.
	tok, result, authErr := auth.CheckHeaders(s.backend.Tokens(), r.Header.Values("Authorization"), now, s.authOptions...)
	if authErr != nil {
		// A shared token store did not answer: the fake's failure, not
		// the caller's, so never a 403 and never a pass.
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "checking the token: " + authErr.Error()}
	}
	anonymousOK := !s.profile.Auth.RequireOnUnsecured && routed && !op.Secured || ext != nil && ext.Open
	if result != auth.OK && !anonymousOK {
		reply := authReply(&s.profile.Auth, result)
		if own, ok := s.extensionAuthReply(ext); ok {
			reply = own
		}
		return nil, apierror.Forbiddenf("authentication failed: %s", result).WithReply(reply)
	}

	// 2. Rate limit, counted per token over every API call (CONTRACT L1).
	prog.at(stageRateLimit)
	key := rateKey(s.profile.RateLimit.Key, tok, result)
	decision, rateErr := s.backend.Limiter().Decide(key)
	if hold := s.profile.RateLimit.Hold; rateErr == nil && hold > 0 && !decision.Allowed && decision.RetryAfter <= hold {
		// The profile holds a call that would have room soon: it waits on
		// the fake's clock (bounded by the call's deadline) and is asked
		// for once more.
		if clock.Sleep(r.Context(), s.clock, decision.RetryAfter) == nil {
			decision, rateErr = s.backend.Limiter().Decide(key)
		}
	}
	if rateErr != nil {
		// Shared counters did not answer: neither a pass nor a 429.
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "counting the call: " + rateErr.Error()}
	}
	if !decision.Allowed {
		return nil, s.tooManyRequests(decision, now)
	}

	// 3. Version: Accept-Version picks the document; absent means 1 (V1).
	prog.at(stageVersion)
	if versionErr != nil {
		return nil, versionErr
	}

	// 4. Route: an unknown path or method is a 403, like the service (A4);
	//    the profile may answer the two apart.
	prog.at(stageRoute)
	if !routed {
		if ext != nil {
			return s.serveExtension(r, a, ext, tok, now, prog, decision)
		}
		return nil, a.unrouted(r, s.profile)
	}
	prog.api = a
	prog.op.Store(op)

	// 4b. Faults a test asked for (faults.go, mock/faults): a failure
	//     status is answered here; a delay or a broken connection acts on
	//     the writing of the answer, whatever it turns out to be.
	prog.at(stageFaults)
	if err := s.injectFault(prog, op, tok, result, now); err != nil {
		return nil, err
	}
	prog.at(stageInput)

	// 5. Query and body: the query must decode (a malformed escape or a ";"
	//    separator is a Bad Request, not silently dropped), and the body is
	//    read once, within the size limit.
	query, qerr := url.ParseQuery(r.URL.RawQuery)
	if qerr != nil {
		return nil, apierror.BadRequestf("%s: the query string cannot be decoded: %v", op.ID, qerr)
	}
	body, bodyErr := readBody(r, s.bodyLimit)
	if bodyErr != nil {
		return nil, bodyErr.WithReply(s.profile.BodyLimit.Reject)
	}

	// 5b. Replay: a call the replayed session holds gets the service's
	//     recorded answer, valid or not (replay.go).
	if resp := s.replay.recorded(r.Method, strings.TrimPrefix(r.URL.EscapedPath(), a.basePath), r.URL.RawQuery, body); resp != nil {
		prog.replayed = true
		s.setRateHeaders(resp, decision, now)
		return resp, nil
	}

	// 6. Leniency: the body as the service's JSON layer reads it (nulls as
	//    absent, numbers as text, a discriminator its sibling names...;
	//    lenient.go). What the profile tolerates is recorded with the call;
	//    what it refuses (strict mode: everything) is a Bad Request.
	prog.at(stageLeniency)
	body, err := s.readLeniently(r, a, op, body, prog)
	if err != nil {
		return nil, err
	}

	// 7. Validation of what was read against the document (CONTRACT E1).
	//    A JSON body is decoded at most once, for the validator and the
	//    handler both.
	prog.at(stageValidation)
	decoded := jsonBody(op, r.Header.Get("Content-Type"), body)
	if problems := a.validator.RequestDecoded(r, op, body, decoded); problems != nil {
		return nil, apierror.BadRequestf("%s: %s", op.ID, strings.Join(problems, "; "))
	}

	// 8. The answer: one an override pins (faults.go), else the service's
	//    own behaviour where it has some, otherwise a body synthesized
	//    from the document. The handler gets the body as read in step 6.
	prog.at(stageAnswer)
	req := &handler.Request{
		HTTP: r, Version: a.version, Op: op, PathParams: vars, Query: query,
		Body: body, Decoded: decoded, TokenID: tok.ID, Now: now, Key: requestKey(r, query, a.basePath, body),
	}
	resp, err := s.pinnedAnswer(req, prog)
	if resp == nil && err == nil {
		resp, err = s.handleWithin(a, req)
	}
	if err != nil {
		return nil, err
	}
	s.setRateHeaders(resp, decision, now)
	return resp, nil
}

// jsonBody is a call's body, to be decoded once if a stage needs it, when
// it is JSON sent to an operation that takes one (handler.Request.Decoded);
// nil otherwise.
func jsonBody(op *spec.Operation, contentType string, body []byte) *jsonvalue.Lazy {
	if len(body) == 0 || op.Op.RequestBody == nil || !spec.IsJSON(contentType) {
		return nil
	}
	return jsonvalue.NewLazy(body)
}

// authReply is the profile's refusal for a failed bearer check.
func authReply(a *profile.Auth, r auth.Result) profile.Reply {
	switch r {
	case auth.Missing:
		return a.Missing
	case auth.BadScheme:
		return a.BadScheme
	case auth.Malformed:
		return a.Malformed
	case auth.Expired:
		return a.Expired
	case auth.Revoked:
		return a.Revoked
	case auth.SessionExpired:
		return a.SessionExpired
	}
	return a.Unknown
}

// rateKey is what calls are counted under: the token, or the user when the
// profile says so (every token the fake holds is its one user's), and one
// shared key for the calls the profile lets through without a token.
func rateKey(by string, tok auth.Token, result auth.Result) string {
	switch {
	case result != auth.OK:
		return "anonymous"
	case by == profile.KeyUser:
		return "user"
	}
	return strconv.FormatInt(tok.ID, 10)
}

func (s *Server) selectVersion(r *http.Request) (*api, error) {
	v := strings.TrimSpace(r.Header.Get("Accept-Version"))
	if v == "" {
		v = s.profile.Versions.Default
	}
	a, ok := s.versions[v]
	if !ok && s.profile.Versions.UnservedAsDefault {
		a, ok = s.versions[s.profile.Versions.Default]
	}
	if !ok {
		return nil, apierror.BadRequestf("Accept-Version %q is not served (served: %s)", v,
			strings.Join(s.versionList, ", ")).WithReply(s.profile.Versions.Unserved)
	}
	return a, nil
}

// readBody reads the whole request body, refusing one over the limit with
// a Bad Request rather than reading it all.
func readBody(r *http.Request, limit int64) ([]byte, *apierror.Error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, apierror.BadRequestf("request body of %d bytes is over the limit of %d bytes", r.ContentLength, limit)
	}
	var b []byte
	var err error
	if n := r.ContentLength; n > 0 {
		// The length is known and within the limit: one allocation, and
		// a body longer than announced is not read past it.
		b = make([]byte, n)
		var got int
		got, err = io.ReadFull(r.Body, b)
		b = b[:got]
	} else {
		b, err = io.ReadAll(io.LimitReader(r.Body, limit+1))
	}
	if err != nil {
		return nil, bodyReadError(err, len(b), r.ContentLength)
	}
	if int64(len(b)) > limit {
		return nil, apierror.BadRequestf("request body is over the limit of %d bytes", limit)
	}
	if len(b) == 0 {
		return nil, nil
	}
	return b, nil
}

// bodyReadError says why a request body could not be read, in the
// client's terms: it ended early, it did not arrive in time, or the
// connection failed.
func bodyReadError(err error, got int, announced int64) *apierror.Error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && announced > 0:
		return apierror.BadRequestf("the request body ended after %d of the %d bytes its Content-Length announced", got, announced)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return apierror.BadRequestf("the request body was not received within the request timeout (%d bytes arrived)", got)
	}
	return apierror.BadRequestf("reading the request body after %d bytes: %v", got, err)
}
