package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
	"github.com/wmsmock/wmsmock/profile"
)

// These tests drive the package's handlers directly, without the server's
// pipeline: a call is routed by the test to its operation and handed over
// as the pipeline would hand it (authenticated, validated, body read).

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	t      *testing.T
	doc    *spec.Document
	svc    *Service
	store  store.Store
	tokens auth.Store
	clk    *clock.Fake
	prof   *profile.Profile
	synthd int // calls left to synthesis (handler.ErrSynthesize)
}

type fixtureOption func(*fixture, *Deps)

func withProfile(p *profile.Profile) fixtureOption {
	return func(f *fixture, d *Deps) { f.prof, d.Profile = p, p }
}

func embeddedDoc(t testing.TB) *spec.Document {
	t.Helper()
	doc, err := spec.Load(fixtures.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// newFixture builds the service on doc over fresh stores, seeded with the
// embedded seed unless seed is false.
func newFixture(t *testing.T, doc *spec.Document, seed bool, opts ...fixtureOption) *fixture {
	t.Helper()
	f := &fixture{t: t, doc: doc, store: store.NewMemory(), clk: clock.NewFake(t0), prof: profile.Default()}
	f.tokens = auth.NewMemory(auth.WithClock(f.clk))
	if err := auth.Seed(f.tokens, auth.Fixtures()...); err != nil {
		t.Fatal(err)
	}
	d := Deps{Store: f.store, Tokens: f.tokens, Clock: f.clk, Profile: f.prof}
	for _, o := range opts {
		o(f, &d)
	}
	if d.Gen == nil {
		d.Gen = synth.New(genOptions(d.Profile, synth.WithSeed(1))...)
	}
	svc, err := Register(doc, d)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	if seed {
		s, err := LoadSeed(fixtures.Seed())
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Seed(s); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// handler is op's handler (nil without one) as the server runs it: a call
// it leaves to synthesis (handler.ErrSynthesize) is counted (synthd) and
// answered with an empty object.
func (f *fixture) handler(op *spec.Operation) handler.Func {
	h := f.svc.Handlers()[op]
	if h == nil {
		return nil
	}
	return func(req *handler.Request) (*handler.Response, error) {
		resp, err := h(req)
		if errors.Is(err, handler.ErrSynthesize) {
			f.synthd++
			return handler.JSON(req.Op.Success.Status, map[string]any{}), nil
		}
		return resp, err
	}
}

// route finds the operation a call addresses: the template with the most
// literal segments that matches.
func (f *fixture) route(method, path string) (*spec.Operation, map[string]string) {
	f.t.Helper()
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *spec.Operation
	var bestVars map[string]string
	bestLiterals := -1
	for _, op := range f.doc.Operations {
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
		f.t.Fatalf("no operation %s %s", method, path)
	}
	return best, bestVars
}

// result is a handler's answer, decoded.
type result struct {
	status int
	body   map[string]any
	raw    []byte
	err    error
}

// kind is the answer an error became (0 when the call succeeded or failed
// with an error that is not an answer).
func (r result) kind() apierror.Kind {
	var ae *apierror.Error
	if errors.As(r.err, &ae) {
		return ae.Kind
	}
	return 0
}

func (f *fixture) call(method, target, body string) result {
	f.t.Helper()
	path, rawQuery, _ := strings.Cut(target, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		f.t.Fatal(err)
	}
	op, vars := f.route(method, path)
	h := f.handler(op)
	if h == nil {
		f.t.Fatalf("%s %s (%s) has no handler in this package", method, path, op.ID)
	}
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	req := &handler.Request{HTTP: httptest.NewRequest(method, target, nil), Version: "1", Op: op, PathParams: vars,
		Query: q, Body: b, TokenID: 1, Now: f.clk.Now(), Key: method + " " + target + "#" + body}
	resp, err := h(req)
	if err != nil {
		return result{err: err}
	}
	out := result{status: resp.Status}
	switch {
	case resp.Raw != nil:
		out.raw = resp.Raw
	case resp.Body != nil:
		raw, err := json.Marshal(resp.Body)
		if err != nil {
			f.t.Fatalf("%s %s: encoding the answer: %v", method, target, err)
		}
		out.raw = raw
	}
	if out.raw != nil && spec.IsJSON(resp.MediaType) {
		if err := json.Unmarshal(out.raw, &out.body); err != nil {
			f.t.Fatalf("%s %s: the answer is not a JSON object: %v", method, target, err)
		}
	}
	return out
}

// ok calls and fails the test unless the call succeeded.
func (f *fixture) ok(method, target, body string) result {
	f.t.Helper()
	r := f.call(method, target, body)
	if r.err != nil {
		f.t.Fatalf("%s %s: %v", method, target, r.err)
	}
	return r
}

// refused calls and fails the test unless the call was answered as kind.
func (f *fixture) refused(kind apierror.Kind, method, target, body string) result {
	f.t.Helper()
	r := f.call(method, target, body)
	if r.kind() != kind {
		f.t.Fatalf("%s %s: %v (status %d), want a %v answer", method, target, r.err, r.status, kind)
	}
	return r
}

// get reads a dotted path ("workflow.status") out of a decoded body.
func get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func list(v any, path string) []any {
	l, _ := get(v, path).([]any)
	return l
}

// genOptions are opts, and the service's nulls where the profile sends
// them, as the server makes its generator.
func genOptions(p *profile.Profile, opts ...synth.Option) []synth.Option {
	if p.Answers.WithNulls() {
		opts = append(opts, synth.WithNulls())
	}
	return opts
}

// answerCheck judges answers as the server does under profile p: the
// document's validator, taking the service's nulls where p sends them.
func answerCheck(doc *spec.Document, p *profile.Profile) func(*base.Schema, []byte) []string {
	opts := []validate.Option{validate.WithRegexpEngine(synth.RegexpEngine)}
	if p.Answers.WithNulls() {
		opts = append(opts, validate.WithNulls())
	}
	if p.Answers.ObjectsAsAny {
		opts = append(opts, validate.WithAnyObjects())
	}
	return validate.New(doc, "", opts...).Answer
}

// storedRun reads a run as the store holds it.
func (f *fixture) storedRun(id string) *workflow.Run {
	f.t.Helper()
	r, err := f.store.Get(WorkflowsCollection, id)
	if err != nil {
		f.t.Fatal(err)
	}
	wf, err := decodeWorkflow(r)
	if err != nil {
		f.t.Fatal(err)
	}
	return wf
}

// seedWorkspace adds a workspace with this id to the seeded organization,
// as a seed file would (the embedded document cannot create one).
func (f *fixture) seedWorkspace(id int64) {
	f.t.Helper()
	err := f.svc.Seed(&Seed{Collections: map[string][]map[string]any{
		"/orgs/1001/workspaces": {{"id": id, "name": fmt.Sprintf("workspace-%d", id)}},
	}})
	if err != nil {
		f.t.Fatal(err)
	}
}

// publishedDoc loads the service's published schema, or skips.
func publishedDoc(tb testing.TB) *spec.Document {
	tb.Helper()
	doc, err := spec.LoadFile(testenv.PublishedSpec(tb, ""))
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// heldRefs makes a generated body name what the fake holds: every field
// that names records of a held kind (computeEnvId, labelIds; writtenrefs.go)
// gets the id of a live record of that kind in the context ws (nil: the
// personal one), or is dropped where the context holds none, since the
// fake refuses a reference to nothing as the service does.
func (f *fixture) heldRefs(c *collection, body map[string]any, ws *int64) {
	var walk func(m map[string]any, depth int)
	walk = func(m map[string]any, depth int) {
		for k, v := range m {
			if inner, ok := v.(map[string]any); ok && depth < 3 {
				walk(inner, depth+1)
				continue
			}
			named := f.svc.writtenRef(c, k)
			if named == nil || v == nil {
				continue
			}
			id := f.heldIn(named, ws)
			switch {
			case id == "":
				delete(m, k)
			case strings.HasSuffix(k, "Ids"):
				m[k] = []any{named.idValue(id)}
			default:
				m[k] = named.idValue(id)
			}
		}
	}
	walk(body, 0)
}

// heldIn finds a live record of collection c in context ws, or "".
func (f *fixture) heldIn(c *collection, ws *int64) string {
	recs, _, err := f.svc.d.Store.Page(c.listPath, store.Query{Limit: 200})
	if err != nil {
		return ""
	}
	for _, r := range recs {
		if c.visible(r.ID, ws, f.clk.Now()) == nil {
			return r.ID
		}
	}
	return ""
}
