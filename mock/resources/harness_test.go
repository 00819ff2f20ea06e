package resources

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/profile"
)

// These tests drive the package's handlers directly, without the server's
// pipeline: a call is routed by the test to its operation and handed over
// as the pipeline would hand it (authenticated, validated, body read).

var t0 = resourcestest.T0

// The shared test support's most used helpers, under short names.
var (
	get, list                 = resourcestest.Get, resourcestest.List
	embeddedDoc, publishedDoc = resourcestest.EmbeddedDoc, resourcestest.PublishedDoc
)

type result = resourcestest.Result

// fixture is the service over fresh stores, called through its handler
// table (resourcestest.Caller: Call, OK, Refused, Route, Handler).
type fixture struct {
	*resourcestest.Caller
	t      *testing.T
	doc    *spec.Document
	svc    *Service
	store  store.Store
	tokens auth.Store
	clk    *clock.Fake
	prof   *profile.Profile
}

type fixtureOption func(*fixture, *Deps)

func withProfile(p *profile.Profile) fixtureOption {
	return func(f *fixture, d *Deps) { f.prof, d.Profile = p, p }
}

// newFixture builds the service on doc over fresh stores, seeded with the
// embedded seed unless seed is false.
func newFixture(t *testing.T, doc *spec.Document, seed bool, opts ...fixtureOption) *fixture {
	t.Helper()
	e := resourcestest.NewEnv(t)
	f := &fixture{t: t, doc: doc, store: e.Store, tokens: e.Tokens, clk: e.Clock, prof: e.Profile}
	d := Deps{Store: f.store, Tokens: f.tokens, Clock: f.clk, Profile: f.prof}
	for _, o := range opts {
		o(f, &d)
	}
	if d.Gen == nil {
		d.Gen = synth.New(resourcestest.GenOptions(d.Profile, synth.WithSeed(1))...)
	}
	svc, err := Register(doc, d)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	f.Caller = e.Serve(t, doc, svc.Handlers())
	if seed {
		resourcestest.Seed(t, LoadSeed, svc.Seed)
	}
	return f
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

// heldRefs makes a generated body name what the fake holds: every field
// that names records of a held kind (computeEnvId, labelIds; writtenrefs.go)
// gets the id of a live record of that kind in the context ws (nil: the
// personal one), or is dropped where the context holds none, since the
// fake refuses a reference to nothing as the service does.
func (f *fixture) heldRefs(c *Collection, body map[string]any, ws *int64) {
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
func (f *fixture) heldIn(c *Collection, ws *int64) string {
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
