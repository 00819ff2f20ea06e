package studios

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/profile"
)

// These tests drive the service with the studios part registered, calling
// its handlers directly (mock/resources/resourcestest), without the
// server's pipeline.

var t0 = resourcestest.T0

// The shared test support and the kernel's helpers, under the names the
// tests use.
var (
	get, list                 = resourcestest.Get, resourcestest.List
	embeddedDoc, publishedDoc = resourcestest.EmbeddedDoc, resourcestest.PublishedDoc
	Stamp, SuccessSchema      = resources.Stamp, resources.SuccessSchema
)

type result = resourcestest.Result

// fixture is the service, studios included, over fresh stores.
type fixture struct {
	*resourcestest.Caller
	t    *testing.T
	doc  *spec.Document
	clk  *clock.Fake
	prof *profile.Profile
}

// newFixture builds the service on doc with the studios part over fresh
// stores, seeded with the embedded seed unless seed is false.
func newFixture(t *testing.T, doc *spec.Document, seed bool) *fixture {
	t.Helper()
	e := resourcestest.NewEnv(t)
	f := &fixture{t: t, doc: doc, clk: e.Clock, prof: e.Profile}
	d := resources.Deps{Store: e.Store, Tokens: e.Tokens, Clock: f.clk, Profile: f.prof, Parts: []resources.Part{Register}}
	d.Gen = synth.New(resourcestest.GenOptions(d.Profile, synth.WithSeed(1))...)
	svc, err := resources.Register(doc, d)
	if err != nil {
		t.Fatal(err)
	}
	f.Caller = e.Serve(t, doc, svc.Handlers())
	if seed {
		resourcestest.Seed(t, resources.LoadSeed, svc.Seed)
	}
	return f
}
