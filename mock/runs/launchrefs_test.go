package runs

import (
	"fmt"
	"testing"
	"time"
)

// TestLaunchRunsOnThePrimaryEnvironment: a launch that names no compute
// environment runs on the newest one of its context marked primary, else
// on the oldest live one; one whose deletion has finished is passed over,
// and environments of other contexts never count, however many there are.
func TestLaunchRunsOnThePrimaryEnvironment(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	const ws = "?workspaceId=2001"
	// Start from a workspace with no environment of its own.
	for _, ce := range list(f.OK("GET", "/compute-envs"+ws, "").Body, "computeEnvs") {
		f.OK("DELETE", "/compute-envs/"+fmt.Sprint(get(ce, "id"))+ws, "")
	}
	f.clk.Advance(time.Hour)
	create := func(ws string, primary bool) string {
		body := fmt.Sprintf(`{"computeEnv":{"name":"ce-%d","platform":"local-platform","config":{"workDir":"/tmp/w"},"primary":%t}}`, time.Now().UnixNano(), primary)
		id, _ := f.OK("POST", "/compute-envs"+ws, body).Body["computeEnvId"].(string)
		if id == "" {
			t.Fatalf("create in %q answered no computeEnvId", ws)
		}
		f.clk.Advance(time.Minute) // keep creation order apart
		return id
	}
	runsOn := func(ws string) string {
		t.Helper()
		id, _ := f.OK("POST", "/workflow/launch"+ws, `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`).Body["workflowId"].(string)
		return f.storedRun(id).ComputeEnvID
	}
	// Another context's environments, primary or not, are not candidates.
	for range 40 {
		create("", true)
	}
	oldest := create(ws, false)
	var later []string
	for range 20 {
		later = append(later, create(ws, false))
	}
	if got := runsOn(ws); got != oldest {
		t.Fatalf("no primary: runs on %s, want the oldest %s", got, oldest)
	}
	first := create(ws, true)
	newest := create(ws, true)
	create(ws, false)
	if got := runsOn(ws); got != newest {
		t.Fatalf("two primaries: runs on %s, want the newest %s", got, newest)
	}
	f.OK("DELETE", "/compute-envs/"+newest+ws, "")
	f.OK("DELETE", "/compute-envs/"+oldest+ws, "")
	f.clk.Advance(time.Hour) // both deletions finish
	if got := runsOn(ws); got != first {
		t.Fatalf("newest primary deleted: runs on %s, want %s", got, first)
	}
	f.OK("DELETE", "/compute-envs/"+first+ws, "")
	f.clk.Advance(time.Hour)
	if got := runsOn(ws); got != later[0] {
		t.Fatalf("no primary left, oldest deleted: runs on %q, want %s", got, later[0])
	}
}
