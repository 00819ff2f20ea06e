package mock

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wmsmock/wmsmock/internal/wait"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// The fake's side of mock/faults: the rules pinned from the start (the
// profile's, WithFault, WithOverride), what a server keeps for them, the
// check of a rule against the served documents, and Rule, a test's handle
// on one. The rules act on a call in stage_faults.go; rules are added to
// a running fake through rules.go and admin.go.

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

// WithFault has the fake inject f from the start, like a rule in the
// profile's faults.rules: it comes back after every reset. A rule for one
// test is better added with Server.AddFault and removed when the test
// ends.
func WithFault(f faults.Fault) Option {
	return func(s *settings) error {
		s.faults = append(s.faults, f)
		return nil
	}
}

// WithOverride pins o from the start (see WithFault).
func WithOverride(o faults.Override) Option {
	return func(s *settings) error {
		s.overrides = append(s.overrides, o)
		return nil
	}
}

// pinFaults checks the profile's and the options' rules against the
// served documents, pins them in the rule store st, and returns the
// server's hold on the rules.
func pinFaults(st faults.Store, seed int64, p *profile.Profile, fromOptions []faults.Fault, overrides []faults.Override,
	vs *served, now time.Time) (*faultState, error) {
	fromProfile := make([]faults.Fault, 0, len(p.Faults.Rules))
	for i, r := range p.Faults.Rules {
		f, err := prepareFault(faults.FromProfile(r), vs, now)
		if err != nil {
			return nil, fmt.Errorf("behaviour profile: faults.rules[%d]: %w", i, err)
		}
		fromProfile = append(fromProfile, f)
	}
	opts := faults.Pinning{Source: faults.SourceOption}
	for _, f := range fromOptions {
		f, err := prepareFault(f, vs, now)
		if err != nil {
			return nil, fmt.Errorf("WithFault: %w", err)
		}
		opts.Faults = append(opts.Faults, f)
	}
	for _, o := range overrides {
		o, err := prepareOverride(o, vs)
		if err != nil {
			return nil, fmt.Errorf("WithOverride: %w", err)
		}
		opts.Overrides = append(opts.Overrides, o)
	}
	if n := len(fromProfile) + len(opts.Faults) + len(opts.Overrides); n > profile.MaxFaultRules {
		return nil, fmt.Errorf("%d fault and override rules from the profile and options: at most %d", n, profile.MaxFaultRules)
	}
	if err := faults.Pin(st, faults.Pinning{Source: faults.SourceProfile, Faults: fromProfile}, opts); err != nil {
		return nil, err
	}
	return &faultState{injector: faults.NewInjector(st, seed), sleep: wait.For, stop: make(chan struct{})}, nil
}

// end ends the stalls in progress (Shutdown).
func (fs *faultState) end() {
	if fs != nil {
		fs.stopOnce.Do(func() { close(fs.stop) })
	}
}

// prepareFault checks f and that what it selects exists in a served
// document.
func prepareFault(f faults.Fault, vs *served, now time.Time) (faults.Fault, error) {
	f, err := f.Prepare(now)
	if err != nil {
		return f, err
	}
	switch {
	case f.Operation != "" && len(vs.operations(f.Operation)) == 0:
		return f, fmt.Errorf("%w: operation: no served document has an operation %q (give its operationId or \"METHOD /path/template\")", faults.ErrInvalid, f.Operation)
	case f.Tag != "" && !vs.hasTag(f.Tag):
		return f, fmt.Errorf("%w: tag: no operation of a served document has the tag %q", faults.ErrInvalid, f.Tag)
	}
	return f, nil
}

// prepareOverride checks o, that its operation exists, and, unless it is
// deliberate, that every served document that has the operation documents
// the answer it pins: its status, and its body against that status's
// schema.
func prepareOverride(o faults.Override, vs *served) (faults.Override, error) {
	o, err := o.Prepare()
	if err != nil {
		return o, err
	}
	ops := vs.operations(o.Operation)
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

// Rule is a fault or override added to a running fake (AddFault,
// AddOverride). A test removes it when it is done:
//
//	r, err := srv.AddFault(faults.Fault{Operation: "ListWorkflows", Status: 503, Times: 2})
//	if err != nil { ... }
//	defer r.Remove()
type Rule struct {
	store faults.Store
	id    string
}

// ID is the rule's id, as the admin API and the request journal show it.
func (r *Rule) ID() string { return r.id }

// Remove removes the rule. A rule already gone (spent, reset, removed) is
// not an error.
func (r *Rule) Remove() error {
	_, err := r.store.Remove(r.id)
	return err
}

// Hits is how many calls the rule has acted on; false once it is gone.
func (r *Rule) Hits() (int64, bool, error) {
	e, ok, err := faults.Lookup(r.store, r.id)
	return e.Hits, ok, err
}
