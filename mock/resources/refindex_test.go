package resources

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// pickIn is the computeEnvId a synthesized answer in workspace ws names.
func (f *fixture) pickIn(ws int64, generated string) any {
	v := map[string]any{"computeEnvId": generated}
	f.svc.SyncRefs() // as the synthesizer does before it fixes an answer
	f.svc.refs.Fix(v, ws)
	f.svc.CopyRecords(nil, v, f.clk.Now())
	return v["computeEnvId"]
}

// TestCreatedItemsAreNamedDeletedOnesNot creates a compute environment in a
// workspace that has none: answers in that workspace name the new compute
// environment, and once it is deleted, none does, neither through this
// service nor through a second one on the same store (a replica), whose
// index learns both changes from the store's generation.
func TestCreatedItemsAreNamedDeletedOnesNot(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	other := &fixture{t: t, doc: f.doc, store: f.store, tokens: f.tokens, clk: f.clk, prof: f.prof}
	replica, err := Register(f.doc, Deps{Store: f.store, Tokens: f.tokens, Clock: f.clk, Profile: f.prof,
		Gen: synth.New(resourcestest.GenOptions(f.prof, synth.WithSeed(1))...)})
	if err != nil {
		t.Fatal(err)
	}
	other.svc = replica
	other.Caller = &resourcestest.Caller{T: t, Doc: f.doc, Handlers: replica.Handlers(), Now: f.clk.Now}
	if err := replica.IndexRefs(); err != nil { // as a replica that finds the store seeded
		t.Fatal(err)
	}
	// A workspace with no compute environment yet.
	const wsID, ws = 2002, "2002"
	f.seedWorkspace(wsID)
	generated := []string{"a1b2c3", "zz", "4dXq9", "computeEnv-7", "x"}
	before := map[any]bool{}
	for _, g := range generated {
		before[f.pickIn(wsID, g)] = true
	}
	ce := f.OK("POST", "/compute-envs?workspaceId="+ws, `{"computeEnv":{"name":"new-ce","platform":"aws-batch","config":{"region":"eu-west-1"}}}`).Body["computeEnvId"]
	if ce == nil || before[ce] {
		t.Fatalf("the new compute environment's id %v is not new (named before: %v)", ce, before)
	}
	for _, fx := range []*fixture{f, other} {
		for _, g := range generated {
			if got := fx.pickIn(wsID, g); got != ce {
				t.Errorf("in workspace %s, the only compute environment there is %v, but an answer names %v", ws, ce, got)
			}
		}
	}
	other.OK("DELETE", "/compute-envs/"+fmt.Sprint(ce)+"?workspaceId="+ws, "")
	for _, fx := range []*fixture{other, f} {
		for _, g := range generated {
			if got := fx.pickIn(wsID, g); got == ce || got == nil {
				t.Errorf("after the delete, an answer in workspace %s names %v (deleted: %v)", ws, got, ce)
			}
		}
	}
}
