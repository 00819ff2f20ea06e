// Package resourcestest is what the tests of the stateful behaviour
// (mock/resources and the parts kept in packages of their own, such as
// mock/runs) share: a call routed straight to a handler table, as the
// server's pipeline would hand it over (authenticated, validated, body
// read), its decoded answer, and the documents and answer checks the tests
// judge by. It imports none of the behaviour, so that the kernel's own
// in-package tests can use it as the parts' tests do.
package resourcestest

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
	"github.com/wmsmock/wmsmock/profile"
)

// T0 is the fake clock's start in these tests.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Caller calls the handlers of a table directly, without the server's
// pipeline: a call is routed by the test to its operation in Doc.
type Caller struct {
	T        testing.TB
	Doc      *spec.Document
	Handlers map[*spec.Operation]handler.Func
	// Now is the time a call is made at (the test's fake clock).
	Now func() time.Time
	// Synthd counts the calls a handler left to synthesis
	// (handler.ErrSynthesize).
	Synthd int
}

// Handler is op's handler (nil without one) as the server runs it: a call
// it leaves to synthesis is counted (Synthd) and answered with an empty
// object.
func (c *Caller) Handler(op *spec.Operation) handler.Func {
	h := c.Handlers[op]
	if h == nil {
		return nil
	}
	return func(req *handler.Request) (*handler.Response, error) {
		resp, err := h(req)
		if errors.Is(err, handler.ErrSynthesize) {
			c.Synthd++
			return handler.JSON(req.Op.Success.Status, map[string]any{}), nil
		}
		return resp, err
	}
}

// Route finds the operation a call addresses: the template with the most
// literal segments that matches.
func (c *Caller) Route(method, path string) (*spec.Operation, map[string]string) {
	c.T.Helper()
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *spec.Operation
	var bestVars map[string]string
	bestLiterals := -1
	for _, op := range c.Doc.Operations {
		if op.Method != method {
			continue
		}
		tsegs := strings.Split(strings.Trim(op.Path, "/"), "/")
		if len(tsegs) != len(segs) {
			continue
		}
		vars, literals := map[string]string{}, 0
		for i, ts := range tsegs {
			if strings.HasPrefix(ts, "{") && strings.HasSuffix(ts, "}") {
				vars[ts[1:len(ts)-1]] = segs[i]
				continue
			}
			if ts != segs[i] {
				vars = nil
				break
			}
			literals++
		}
		if vars != nil && literals > bestLiterals {
			best, bestVars, bestLiterals = op, vars, literals
		}
	}
	if best == nil {
		c.T.Fatalf("no operation %s %s", method, path)
	}
	return best, bestVars
}

// Result is a handler's answer, decoded.
type Result struct {
	Status int
	Body   map[string]any
	Raw    []byte
	Err    error
}

// Kind is the answer an error became (0 when the call succeeded or failed
// with an error that is not an answer).
func (r Result) Kind() apierror.Kind {
	var ae *apierror.Error
	if errors.As(r.Err, &ae) {
		return ae.Kind
	}
	return 0
}

// Call makes a call (target is a path with its query) with body ("" for
// none) and decodes its answer; the test fails where no handler takes it.
func (c *Caller) Call(method, target, body string) Result {
	c.T.Helper()
	path, rawQuery, _ := strings.Cut(target, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		c.T.Fatal(err)
	}
	op, vars := c.Route(method, path)
	h := c.Handler(op)
	if h == nil {
		c.T.Fatalf("%s %s (%s) has no handler in this package", method, path, op.ID)
	}
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	req := &handler.Request{HTTP: httptest.NewRequest(method, target, nil), Version: "1", Op: op, PathParams: vars,
		Query: q, Body: b, TokenID: 1, Now: c.Now(), Key: method + " " + target + "#" + body}
	resp, err := h(req)
	if err != nil {
		return Result{Err: err}
	}
	out := Result{Status: resp.Status}
	switch {
	case resp.Raw != nil:
		out.Raw = resp.Raw
	case resp.Body != nil:
		raw, err := json.Marshal(resp.Body)
		if err != nil {
			c.T.Fatalf("%s %s: encoding the answer: %v", method, target, err)
		}
		out.Raw = raw
	}
	if out.Raw != nil && spec.IsJSON(resp.MediaType) {
		if err := json.Unmarshal(out.Raw, &out.Body); err != nil {
			c.T.Fatalf("%s %s: the answer is not a JSON object: %v", method, target, err)
		}
	}
	return out
}

// OK calls and fails the test unless the call succeeded.
func (c *Caller) OK(method, target, body string) Result {
	c.T.Helper()
	r := c.Call(method, target, body)
	if r.Err != nil {
		c.T.Fatalf("%s %s: %v", method, target, r.Err)
	}
	return r
}

// Refused calls and fails the test unless the call was answered as kind.
func (c *Caller) Refused(kind apierror.Kind, method, target, body string) Result {
	c.T.Helper()
	r := c.Call(method, target, body)
	if r.Kind() != kind {
		c.T.Fatalf("%s %s: %v (status %d), want a %v answer", method, target, r.Err, r.Status, kind)
	}
	return r
}

// Get reads a dotted path ("workflow.status") out of a decoded body.
func Get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// List is the list at a dotted path (nil where there is none).
func List(v any, path string) []any {
	l, _ := Get(v, path).([]any)
	return l
}

// GenOptions are opts, and the service's nulls where the profile sends
// them, as the server makes its generator.
func GenOptions(p *profile.Profile, opts ...synth.Option) []synth.Option {
	if p.Answers.WithNulls() {
		opts = append(opts, synth.WithNulls())
	}
	return opts
}

// AnswerCheck judges answers as the server does under profile p: the
// document's validator, taking the service's nulls where p sends them.
func AnswerCheck(doc *spec.Document, p *profile.Profile) func(*base.Schema, []byte) []string {
	opts := []validate.Option{validate.WithRegexpEngine(synth.RegexpEngine)}
	if p.Answers.WithNulls() {
		opts = append(opts, validate.WithNulls())
	}
	if p.Answers.ObjectsAsAny {
		opts = append(opts, validate.WithAnyObjects())
	}
	return validate.New(doc, "", opts...).Answer
}

// EmbeddedDoc is the embedded document (fixtures).
func EmbeddedDoc(tb testing.TB) *spec.Document {
	tb.Helper()
	doc, err := spec.Load(fixtures.OpenAPI())
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// PublishedDoc loads the service's published schema, or skips.
func PublishedDoc(tb testing.TB) *spec.Document {
	tb.Helper()
	doc, err := spec.LoadFile(testenv.PublishedSpec(tb, ""))
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// PathParams reads the path parameters of a call made for op, unescaped
// as the pipeline hands them over.
func PathParams(op *spec.Operation, path string) map[string]string {
	vars := map[string]string{}
	tsegs := strings.Split(strings.Trim(op.Path, "/"), "/")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, ts := range tsegs {
		if i < len(segs) && strings.HasPrefix(ts, "{") {
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				v = segs[i]
			}
			vars[strings.Trim(ts, "{}")] = v
		}
	}
	return vars
}

// Encode is a handler's answer as the wire carries it.
func Encode(tb testing.TB, resp *handler.Response) []byte {
	tb.Helper()
	if resp.Raw != nil {
		return resp.Raw
	}
	b, err := json.Marshal(resp.Body)
	if err != nil {
		tb.Fatalf("encoding: %v", err)
	}
	return b
}
