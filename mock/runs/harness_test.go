package runs

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/profile"
)

// These tests drive the service with the runs part registered, calling
// its handlers directly (mock/resources/resourcestest), without the
// server's pipeline.

// The shared test support's most used helpers, under short names.
var (
	get, list   = resourcestest.Get, resourcestest.List
	embeddedDoc = resourcestest.EmbeddedDoc
)

// fixture is the service, runs included, over fresh stores.
type fixture struct {
	*resourcestest.Caller
	t      *testing.T
	doc    *spec.Document
	svc    *resources.Service
	store  store.Store
	tokens auth.Store
	clk    *clock.Fake
	prof   *profile.Profile
	refs   *refs.Index // the service's index of the ids answers name
}

type fixtureOption func(*fixture, *resources.Deps)

func withProfile(p *profile.Profile) fixtureOption {
	return func(f *fixture, d *resources.Deps) { f.prof, d.Profile = p, p }
}

// newFixture builds the service on doc with the runs part over fresh
// stores, seeded with the embedded seed unless seed is false.
func newFixture(t *testing.T, doc *spec.Document, seed bool, opts ...fixtureOption) *fixture {
	t.Helper()
	e := resourcestest.NewEnv(t)
	f := &fixture{t: t, doc: doc, store: e.Store, tokens: e.Tokens, clk: e.Clock, prof: e.Profile}
	d := resources.Deps{Store: f.store, Tokens: f.tokens, Clock: f.clk, Profile: f.prof, Parts: []resources.Part{Register}}
	for _, o := range opts {
		o(f, &d)
	}
	if d.Gen == nil {
		d.Gen = synth.New(resourcestest.GenOptions(d.Profile, synth.WithSeed(1))...)
	}
	if d.Refs == nil {
		d.Refs = refs.New(d.Store)
	}
	f.refs = d.Refs
	svc, err := resources.Register(doc, d)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	f.Caller = e.Serve(t, doc, svc.Handlers())
	if seed {
		resourcestest.Seed(t, resources.LoadSeed, svc.Seed)
	}
	return f
}

// storedRun reads a run as the store holds it.
func (f *fixture) storedRun(id string) *workflow.Run {
	f.t.Helper()
	r, err := f.store.Get(resources.WorkflowsCollection, id)
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
	err := f.svc.Seed(&resources.Seed{Collections: map[string][]map[string]any{
		"/orgs/1001/workspaces": {{"id": id, "name": fmt.Sprintf("workspace-%d", id)}},
	}})
	if err != nil {
		f.t.Fatal(err)
	}
}
