package mock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/wait"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// The fake's side of mock/faults: the fault stage of serveAPI (4b), the
// override that answers in place of the operation's handler (8), the
// writing of an answer a fault delays or breaks, and the Go door onto the
// rules (WithFault, AddFault, Rule). The admin door is in admin.go, the
// profile's rules are pinned by New.

// faultState is what a server keeps for its fault rules.
type faultState struct {
	injector *faults.Injector
	// sleep waits out a fault's delay: real time, since a client's
	// timeout is real; tests replace it (export_test.go).
	sleep func(context.Context, time.Duration) error
	// stop ends stalled answers when the server shuts down: a connection
	// taken over from the HTTP server is not one Shutdown waits for.
	stop     chan struct{}
	stopOnce sync.Once
}

// faultSettings are the rules options pin (WithFault, WithOverride).
type faultSettings struct {
	faults    []faults.Fault
	overrides []faults.Override
}

// WithFault has the fake inject f from the start, like a rule in the
// profile's faults.rules: it comes back after every reset. A rule for one
// test is better added with Server.AddFault and removed when the test
// ends.
func WithFault(f faults.Fault) Option {
	return func(s *settings) error {
		s.faultRules.faults = append(s.faultRules.faults, f)
		return nil
	}
}

// WithOverride pins o from the start (see WithFault).
func WithOverride(o faults.Override) Option {
	return func(s *settings) error {
		s.faultRules.overrides = append(s.faultRules.overrides, o)
		return nil
	}
}

// setupFaults checks the profile's and the options' rules against the
// served documents and pins them in the backend's rule store.
func (s *Server) setupFaults(cfg settings) error {
	s.faultRules = faultState{injector: faults.NewInjector(s.backend.Faults(), cfg.seed), sleep: wait.For, stop: make(chan struct{})}
	now := s.clock.Now()
	fromProfile := make([]faults.Fault, 0, len(s.profile.Faults.Rules))
	for i, r := range s.profile.Faults.Rules {
		f, err := s.prepareFault(faults.FromProfile(r), now)
		if err != nil {
			return fmt.Errorf("behaviour profile: faults.rules[%d]: %w", i, err)
		}
		fromProfile = append(fromProfile, f)
	}
	opts := faults.Pinning{Source: faults.SourceOption}
	for _, f := range cfg.faultRules.faults {
		f, err := s.prepareFault(f, now)
		if err != nil {
			return fmt.Errorf("WithFault: %w", err)
		}
		opts.Faults = append(opts.Faults, f)
	}
	for _, o := range cfg.faultRules.overrides {
		o, err := s.prepareOverride(o)
		if err != nil {
			return fmt.Errorf("WithOverride: %w", err)
		}
		opts.Overrides = append(opts.Overrides, o)
	}
	if n := len(fromProfile) + len(opts.Faults) + len(opts.Overrides); n > profile.MaxFaultRules {
		return fmt.Errorf("%d fault and override rules from the profile and options: at most %d", n, profile.MaxFaultRules)
	}
	return faults.Pin(s.backend.Faults(), faults.Pinning{Source: faults.SourceProfile, Faults: fromProfile}, opts)
}

// stopFaults ends the stalls in progress (Shutdown).
func (s *Server) stopFaults() {
	if s.faultRules.stop != nil {
		s.faultRules.stopOnce.Do(func() { close(s.faultRules.stop) })
	}
}

// prepareFault checks f and that what it selects exists in a served
// document.
func (s *Server) prepareFault(f faults.Fault, now time.Time) (faults.Fault, error) {
	f, err := f.Prepare(now)
	if err != nil {
		return f, err
	}
	switch {
	case f.Operation != "" && len(s.operations(f.Operation)) == 0:
		return f, fmt.Errorf("%w: operation: no served document has an operation %q (give its operationId or \"METHOD /path/template\")", faults.ErrInvalid, f.Operation)
	case f.Tag != "" && !s.hasTag(f.Tag):
		return f, fmt.Errorf("%w: tag: no operation of a served document has the tag %q", faults.ErrInvalid, f.Tag)
	}
	return f, nil
}

// prepareOverride checks o, that its operation exists, and, unless it is
// deliberate, that every served document that has the operation documents
// the answer it pins: its status, and its body against that status's
// schema.
func (s *Server) prepareOverride(o faults.Override) (faults.Override, error) {
	o, err := o.Prepare()
	if err != nil {
		return o, err
	}
	ops := s.operations(o.Operation)
	if len(ops) == 0 {
		return o, fmt.Errorf("%w: operation: no served document has an operation %q (give its operationId or \"METHOD /path/template\")", faults.ErrInvalid, o.Operation)
	}
	if o.Deliberate {
		return o, nil
	}
	for _, at := range ops {
		if problems := at.api.documented(at.op, o); len(problems) > 0 {
			return o, fmt.Errorf("%w: the answer is not one %s documents in API version %s: %s (set deliberate: true to pin it anyway)",
				faults.ErrInvalid, at.op.ID, at.api.version, strings.Join(problems, "; "))
		}
	}
	return o, nil
}

type servedOp struct {
	api *api
	op  *spec.Operation
}

// operations are the served operations name names, in each distinct
// document.
func (s *Server) operations(name string) []servedOp {
	var out []servedOp
	seen := map[*api]bool{}
	for _, v := range s.versionList {
		a := s.versions[v]
		if seen[a] {
			continue
		}
		seen[a] = true
		for _, op := range a.doc.Operations {
			if faults.OperationIs(op, name) {
				out = append(out, servedOp{a, op})
			}
		}
	}
	return out
}

func (s *Server) hasTag(tag string) bool {
	for _, a := range s.versions {
		for _, op := range a.doc.Operations {
			if op.Op != nil && slices.Contains(op.Op.Tags, tag) {
				return true
			}
		}
	}
	return false
}

// documented lists why op's document does not describe o's answer.
func (a *api) documented(op *spec.Operation, o faults.Override) []string {
	if op.Op == nil || op.Op.Responses == nil {
		return nil
	}
	rs := op.Op.Responses
	declared := rs.Default != nil
	if rs.Codes != nil {
		for code := range rs.Codes.KeysFromOldest() {
			if code == strconv.Itoa(o.Status) || strings.EqualFold(code, fmt.Sprintf("%dXX", o.Status/100)) {
				declared = true
			}
		}
	}
	if !declared {
		return []string{fmt.Sprintf("status %d is not among its responses", o.Status)}
	}
	req, err := http.NewRequest(op.Method, a.basePath+op.Path, nil)
	if err != nil {
		return []string{err.Error()}
	}
	hr := &http.Response{StatusCode: o.Status, Header: http.Header{}, Body: http.NoBody, Request: req}
	if len(o.Body) > 0 {
		hr.Header.Set("Content-Type", "application/json")
		hr.Body = io.NopCloser(bytes.NewReader(o.Body))
	}
	return a.validator.Response(req, op, hr)
}

// injectFault is the fault stage: it finds the fault, if any, that acts on
// the call. A failure status is answered at once, with the profile's
// reply for it; a delay or a connection fault is kept for the writing of
// the answer.
func (s *Server) injectFault(prog *progress, op *spec.Operation, tok auth.Token, result auth.Result, now time.Time) error {
	in := s.faultRules.injector
	rs, err := in.Current()
	if err != nil {
		return &apierror.Error{Kind: apierror.Internal, Reason: "reading the fault rules: " + err.Error()}
	}
	if rs.Empty() {
		return nil
	}
	prog.rules = rs
	prog.call = &faults.Call{Op: op, Token: tok.Hash, HasToken: result == auth.OK, Now: now}
	inj, err := in.Fault(rs, prog.call)
	if err != nil {
		return &apierror.Error{Kind: apierror.Internal, Reason: "counting a fault's use: " + err.Error()}
	}
	if inj == nil {
		return nil
	}
	prog.injected = inj
	s.logger.Info("fault injected", "rule", inj.Rule, "source", inj.Source, "operation", op.ID, "hit", inj.Hit,
		"what", inj.What(), "note", inj.Fault.Note)
	if inj.Fault.Status == 0 {
		return nil
	}
	reply, _ := s.profile.Faults.Reply(inj.Fault.Status, inj.Fault.RetryAfter > 0)
	e := &apierror.Error{Kind: apierror.Injected, Reason: inj.Reason(), Reply: &reply}
	if inj.Fault.RetryAfter > 0 {
		e.Values = map[string]string{profile.PlaceRetryAfter: strconv.Itoa(int(inj.Fault.RetryAfter / time.Second))}
	}
	return e
}

// pinnedAnswer is the answer an override pins for the call, if one
// matches; nil otherwise, and the operation's own handler answers.
func (s *Server) pinnedAnswer(req *handler.Request, prog *progress) (*handler.Response, error) {
	if prog.rules == nil {
		return nil, nil
	}
	c := *prog.call
	c.Path, c.Query, c.Body = req.PathParams, req.Query, req.Body
	p, err := s.faultRules.injector.Override(prog.rules, &c)
	if err != nil {
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "counting an override's use: " + err.Error()}
	}
	if p == nil {
		return nil, nil
	}
	prog.pinned = p
	s.logger.Info("answer overridden", "rule", p.Rule, "source", p.Source, "operation", req.Op.ID, "hit", p.Hit,
		"status", p.Override.Status, "deliberate", p.Override.Deliberate, "note", p.Override.Note)
	resp := &handler.Response{Status: p.Override.Status, Header: http.Header{}}
	for k, v := range p.Override.Headers {
		resp.Header.Set(k, v)
	}
	if len(p.Override.Body) > 0 {
		resp.Raw, resp.MediaType = p.Override.Body, "application/json"
	}
	return resp, nil
}

// faultWriter is where the answer is written: rec itself, once a fault's
// delay has passed, or a held answer that breakAnswer then sends broken.
// ctx is the call's own context, which ends when the client goes away.
func (s *Server) faultWriter(ctx context.Context, rec *recorder, prog *progress) *recorder {
	inj := prog.injected
	if inj == nil {
		return rec
	}
	if inj.Delay > 0 {
		_ = s.faultRules.sleep(ctx, inj.Delay)
	}
	if inj.Fault.Connection == "" {
		return rec
	}
	return &recorder{ResponseWriter: faults.NewHeld()}
}

// breakAnswer sends the held answer broken as the call's connection fault
// says. When the connection cannot be taken over (HTTP/2), the handler is
// aborted, which resets the stream.
func (s *Server) breakAnswer(ctx context.Context, rec, w *recorder, prog *progress) {
	if w == rec {
		return
	}
	rec.errorID = w.errorID
	inj := prog.injected
	status, abort := faults.Break(ctx, rec, w.ResponseWriter.(*faults.Held), inj.Fault.Connection, inj.Fault.Stall, s.faultRules.stop)
	if status == 0 {
		// No status line reached the client: the journal says 0.
		rec.status, rec.wrote = 0, true
	}
	if abort {
		panic(http.ErrAbortHandler)
	}
}

// injections is what the journal shows of the rules that acted on a call.
func (p *progress) injections() []control.Injection {
	var out []control.Injection
	if i := p.injected; i != nil {
		out = append(out, control.Injection{Rule: i.Rule, Kind: string(faults.KindFault), Source: i.Source, Hit: i.Hit, What: i.What(), Note: i.Fault.Note})
	}
	if o := p.pinned; o != nil {
		what := fmt.Sprintf("status %d", o.Override.Status)
		if o.Override.Deliberate {
			what += " (deliberate)"
		}
		out = append(out, control.Injection{Rule: o.Rule, Kind: string(faults.KindOverride), Source: o.Source, Hit: o.Hit, What: what, Note: o.Override.Note})
	}
	return out
}

// Rule is a fault or override added to a running fake (AddFault,
// AddOverride). A test removes it when it is done:
//
//	r, err := srv.AddFault(faults.Fault{Operation: "ListWorkflows", Status: 503, Times: 2})
//	if err != nil { ... }
//	defer r.Remove()
type Rule struct {
	s  *Server
	id string
}

// ID is the rule's id, as the admin API and the request journal show it.
func (r *Rule) ID() string { return r.id }

// Remove removes the rule. A rule already gone (spent, reset, removed) is
// not an error.
func (r *Rule) Remove() error {
	_, err := r.s.backend.Faults().Remove(r.id)
	return err
}

// Hits is how many calls the rule has acted on; false once it is gone.
func (r *Rule) Hits() (int64, bool, error) {
	e, ok, err := faults.Lookup(r.s.backend.Faults(), r.id)
	return e.Hits, ok, err
}

// AddFault has the fake inject f from its next call. The error wraps
// faults.ErrInvalid for a rule it cannot use (and names why), or is the
// rule store's (Redis) failure.
func (s *Server) AddFault(f faults.Fault) (*Rule, error) {
	e, err := s.addFault(f, faults.SourceLibrary)
	if err != nil {
		return nil, err
	}
	return &Rule{s: s, id: e.ID}, nil
}

// AddOverride pins o from the fake's next call. An answer the operation
// does not document is refused unless o.Deliberate.
func (s *Server) AddOverride(o faults.Override) (*Rule, error) {
	e, err := s.addOverride(o, faults.SourceLibrary)
	if err != nil {
		return nil, err
	}
	return &Rule{s: s, id: e.ID}, nil
}

func (s *Server) addFault(f faults.Fault, source string) (faults.Entry, error) {
	if err := s.clock.Sync(); err != nil {
		return faults.Entry{}, err
	}
	f, err := s.prepareFault(f, s.clock.Now())
	if err != nil {
		return faults.Entry{}, err
	}
	return faults.AddFault(s.backend.Faults(), f, source)
}

func (s *Server) addOverride(o faults.Override, source string) (faults.Entry, error) {
	o, err := s.prepareOverride(o)
	if err != nil {
		return faults.Entry{}, err
	}
	return faults.AddOverride(s.backend.Faults(), o, source)
}

// refuseRule answers a rule the admin API cannot take: a Bad Request
// with an Error ID whose message says why (the reason is also in the
// error journal), or the internal-error reply when the rule store failed.
func (s *Server) refuseRule(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, faults.ErrInvalid) || errors.Is(err, control.ErrInvalid) {
		reply := profile.Reply{Status: http.StatusBadRequest, Body: profile.BodyMessage, Message: err.Error()}
		s.errors.Write(w, r, apierror.BadRequestf("%s", err.Error()).WithReply(reply))
		return
	}
	s.errors.Write(w, r, &apierror.Error{Kind: apierror.Internal, Reason: "fault rules", Cause: err})
}
