package runs

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock/resources"
)

// The runs the fake starts, launched or seeded, carry the seeded user's
// name as it is written in the seed (user.yaml), not a name of the
// fake's own; without a seeded user they carry the fake's name.
func TestRunsCarryTheSeededUser(t *testing.T) {
	doc := embeddedDoc(t)
	const launch = `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`
	f := newFixture(t, doc, false)
	err := f.svc.Seed(&resources.Seed{
		User:      map[string]any{"id": 7, "userName": "grace"},
		Workflows: []resources.WorkflowSeed{{ID: "4SeededRun0001", RunName: "seeded", Pipeline: "https://github.com/nextflow-io/hello"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	launched, _ := f.OK("POST", "/workflow/launch", launch).Body["workflowId"].(string)
	for _, id := range []string{"4SeededRun0001", launched} {
		if got := get(f.OK("GET", "/workflow/"+id, "").Body, "workflow.userName"); got != "grace" {
			t.Errorf("run %s: userName %v, want the seeded user's, grace", id, got)
		}
	}

	bare := newFixture(t, doc, false)
	id, _ := bare.OK("POST", "/workflow/launch", launch).Body["workflowId"].(string)
	if got := get(bare.OK("GET", "/workflow/"+id, "").Body, "workflow.userName"); got != "wmsmock" {
		t.Errorf("without a seeded user: userName %v, want wmsmock", got)
	}
}
