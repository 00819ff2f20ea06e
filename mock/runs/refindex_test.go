package runs

import "testing"

// TestLaunchedRunsAreTargets: a launched run is a target of workflowId at
// once, a deleted one is not. (That a launch does not wait for the index's
// readers is mock/refs' TestFrequentCreatesDoNotWaitForReaders.)
func TestLaunchedRunsAreTargets(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	f.OK("GET", "/workflow", "") // the index is built
	launch := func() string {
		id, _ := f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`).Body["workflowId"].(string)
		return id
	}
	ids := [2]string{launch(), launch()}
	held := func(id string) bool { return f.refs.Holds("workflowId", id) }
	if !held(ids[0]) || !held(ids[1]) {
		t.Fatal("a launched run is not a target")
	}
	f.OK("DELETE", "/workflow/"+ids[1]+"?force=true", "")
	if !held(ids[0]) || held(ids[1]) {
		t.Fatalf("after a delete: kept run held %v, deleted run held %v", held(ids[0]), held(ids[1]))
	}
}
