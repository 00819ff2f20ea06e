package resources_test

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/datasets"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/runs"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/studios"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/profile"
)

// The tests in package resources_test judge the kernel as the server
// builds it, with its parts (mock/runs, mock/studios, mock/datasets)
// registered: they make run, studio and dataset calls in passing, which
// the kernel alone leaves to its generic collections. The kernel's own tests, in package resources,
// run without the parts.

// The shared test support, under the names these tests use.
var (
	get         = resourcestest.Get
	list        = resourcestest.List
	answerCheck = resourcestest.AnswerCheck
	embeddedDoc = resourcestest.EmbeddedDoc
)

// fixture is the service with its parts over fresh stores.
type fixture struct {
	*resourcestest.Caller
	clk  *clock.Fake
	prof *profile.Profile
}

type fixtureOption func(*fixture, *resources.Deps)

func withProfile(p *profile.Profile) fixtureOption {
	return func(f *fixture, d *resources.Deps) { f.prof, d.Profile = p, p }
}

// newFixture builds the service on doc, the parts registered, seeded
// with the embedded seed.
func newFixture(t *testing.T, doc *spec.Document, opts ...fixtureOption) *fixture {
	t.Helper()
	e := resourcestest.NewEnv(t)
	f := &fixture{clk: e.Clock, prof: e.Profile}
	d := resources.Deps{Store: e.Store, Tokens: e.Tokens, Clock: f.clk, Profile: f.prof, Parts: []resources.Part{runs.Register, studios.Register, (&datasets.Part{}).Register}}
	for _, o := range opts {
		o(f, &d)
	}
	d.Gen = synth.New(resourcestest.GenOptions(d.Profile, synth.WithSeed(1))...)
	svc, err := resources.Register(doc, d)
	if err != nil {
		t.Fatal(err)
	}
	f.Caller = e.Serve(t, doc, svc.Handlers())
	resourcestest.Seed(t, resources.LoadSeed, svc.Seed)
	return f
}
