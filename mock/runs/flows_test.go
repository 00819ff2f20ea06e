package runs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/resources"
)

// A launched run follows the fake's clock through its statuses, shows its
// work in progress and tasks, can be cancelled once, and is gone after a
// delete.
func TestWorkflowLifecycle(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	launched := f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","revision":"3.14.0","runName":"first_run","configProfiles":["test"],"paramsText":"{\"a\":1}"}}`)
	id, _ := launched.Body["workflowId"].(string)
	if id == "" {
		t.Fatalf("launch answered %s", launched.Raw)
	}
	status := func() string { return fmt.Sprint(get(f.OK("GET", "/workflow/"+id, "").Body, "workflow.status")) }
	if s := status(); s != "SUBMITTED" {
		t.Fatalf("just launched: %s", s)
	}
	d := f.OK("GET", "/workflow/"+id, "").Body
	for path, want := range map[string]any{
		"workflow.id": id, "workflow.runName": "first_run", "workflow.projectName": "nf-core/rnaseq",
		"workflow.revision": "3.14.0", "workflow.repository": "https://github.com/nf-core/rnaseq",
	} {
		if got := get(d, path); got != nil && got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	f.clk.Advance(90 * time.Second)
	if s := status(); s != "RUNNING" {
		t.Fatalf("after 90s: %s", s)
	}
	prog := f.OK("GET", "/workflow/"+id+"/progress", "").Body
	if get(prog, "progress") == nil {
		t.Errorf("progress answer: %v", prog)
	}
	tasks := f.OK("GET", "/workflow/"+id+"/tasks", "").Body
	if len(list(tasks, "tasks")) == 0 {
		t.Errorf("a running run lists no tasks: %v", tasks)
	}
	f.clk.Advance(time.Hour)
	if s := status(); s != "SUCCEEDED" {
		t.Fatalf("after an hour: %s", s)
	}

	// A second run is cancelled while it runs; a finished run cannot be.
	second, _ := f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`).Body["workflowId"].(string)
	f.clk.Advance(time.Minute)
	f.OK("POST", "/workflow/"+second+"/cancel", "")
	if s := get(f.OK("GET", "/workflow/"+second, "").Body, "workflow.status"); s != "CANCELLED" {
		t.Errorf("cancelled run: %v", s)
	}
	// Cancelling a run that has ended is accepted and changes nothing.
	f.OK("POST", "/workflow/"+id+"/cancel", "")
	if s := status(); s != "SUCCEEDED" {
		t.Errorf("a finished run after a cancel: %s", s)
	}

	// Deleted: gone for every operation.
	f.OK("DELETE", "/workflow/"+id, "")
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+id, "")
	f.Refused(apierror.Forbidden, "DELETE", "/workflow/"+id, "")
	f.Refused(apierror.Forbidden, "POST", "/workflow/"+id+"/cancel", "")
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+id+"/progress", "")
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+id+"/tasks", "")
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+id+"/log", "")
	// The log of an existing run is the run's own (workflow.Run.LogAt),
	// not a synthesized one.
	before := f.Synthd
	lg, _ := f.OK("GET", "/workflow/"+second+"/log", "").Body["log"].(map[string]any)
	if entries, _ := lg["entries"].([]any); f.Synthd != before || len(entries) == 0 {
		t.Errorf("the log of an existing run: %v (synthesized %d times)", lg, f.Synthd-before)
	}

	f.Refused(apierror.BadRequest, "POST", "/workflow/launch", `{"launch":{}}`)
	f.Refused(apierror.BadRequest, "POST", "/workflow/launch", `{"launch":`)
}

// The seeded runs list newest first, in pages, filtered by search, and per
// workspace.
func TestWorkflowList(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	all := f.OK("GET", "/workflow", "").Body
	runs := list(all, "workflows")
	total, _ := get(all, "totalSize").(float64)
	if len(runs) == 0 || int(total) != len(runs) {
		t.Fatalf("list: %d runs, totalSize %v", len(runs), get(all, "totalSize"))
	}
	page := list(f.OK("GET", "/workflow?max=2&offset=1", "").Body, "workflows")
	if len(page) != 2 || get(page[0], "workflow.id") != get(runs[1], "workflow.id") {
		t.Errorf("page max=2 offset=1: %d runs, first %v; want the list's 2nd", len(page), get(page[0], "workflow.id"))
	}
	found := list(f.OK("GET", "/workflow?search=happy_turing", "").Body, "workflows")
	if len(found) != 1 || get(found[0], "workflow.runName") != "happy_turing" {
		t.Errorf("search by run name: %v", found)
	}
	if n := len(list(f.OK("GET", "/workflow?search=no-such-run", "").Body, "workflows")); n != 0 {
		t.Errorf("search for nothing: %d runs", n)
	}
	f.Refused(apierror.BadRequest, "GET", "/workflow?max=-1", "")
	f.Refused(apierror.BadRequest, "GET", "/workflow?offset=x", "")
	f.Refused(apierror.BadRequest, "GET", "/workflow?workspaceId=abc", "")

	// Each seeded status reads as seeded.
	seen := map[string]bool{}
	for _, r := range runs {
		seen[fmt.Sprint(get(r, "workflow.status"))] = true
	}
	for _, s := range []string{"SUBMITTED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"} {
		if !seen[s] {
			t.Errorf("no seeded run lists as %s (saw %v)", s, seen)
		}
	}
}

// The admin API's status forcing works on stored runs.
func TestSetWorkflowStatus(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	id, _ := f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"p"}}`).Body["workflowId"].(string)
	now := f.clk.Now()
	if err := SetWorkflowStatus(f.store, id, "FAILED", "", now); err != nil {
		t.Fatal(err)
	}
	if s, err := WorkflowStatus(f.store, id, now); err != nil || s != "FAILED" {
		t.Errorf("after forcing FAILED: %s, %v", s, err)
	}
	if err := SetWorkflowStatus(f.store, id, "DONE", "", now); err == nil {
		t.Error("an unknown status was accepted")
	}
	if err := SetWorkflowStatus(f.store, "nope", "FAILED", "", now); err == nil {
		t.Error("a missing run was changed")
	}
	if _, err := WorkflowStatus(f.store, "nope", now); err == nil {
		t.Error("a missing run has a status")
	}
}

func TestProjectNameAndRunNames(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	seen := map[string]bool{}
	for i := range 5 {
		id, _ := f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`).Body["workflowId"].(string)
		name := fmt.Sprint(get(f.OK("GET", "/workflow/"+id, "").Body, "workflow.runName"))
		if name == "" || !strings.Contains(name, "_") {
			t.Errorf("launch %d without a run name got %q", i, name)
		}
		seen[name] = true
	}
	if len(seen) < 2 {
		t.Errorf("every run got the same name: %v", seen)
	}
}

// TestLaunchChecksItsReferences: a launch naming a compute environment or
// workspace the caller cannot see gets the missing-resource reply (an
// environment of another context is as missing as one that never
// existed); a launch in the seeded workspace on its environment, or naming
// none (the workspace's primary one), is accepted.
func TestLaunchChecksItsReferences(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	const wsCE, personalCE = "4Gt7Ws2KpQ9vBn", "5Fq2Xw8RtLmN3p"
	launch := func(ce string) string {
		if ce == "" {
			return `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`
		}
		return `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","computeEnvId":"` + ce + `"}}`
	}
	seeded, _ := f.store.List(resources.WorkflowsCollection)
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch", launch("NoSuchEnv00001"))
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001", launch("NoSuchEnv00001"))
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001", launch(personalCE))
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch", launch(wsCE))
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=999999", launch(""))
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001&sourceWorkspaceId=999999", launch(wsCE))
	if recs, _ := f.store.List(resources.WorkflowsCollection); len(recs) != len(seeded) {
		t.Fatalf("refused launches stored %d runs", len(recs)-len(seeded))
	}

	for _, tc := range []struct{ query, ce, want string }{
		{"?workspaceId=2001", wsCE, wsCE},
		{"?workspaceId=2001", "", wsCE},
		{"", "", personalCE},
		{"", personalCE, personalCE},
	} {
		id, _ := f.OK("POST", "/workflow/launch"+tc.query, launch(tc.ce)).Body["workflowId"].(string)
		f.OK("GET", "/workflow/"+id+tc.query, "")
		if got := f.storedRun(id).ComputeEnvID; got != tc.want {
			t.Errorf("launch %s naming %q runs on %v, want %s", tc.query, tc.ce, got, tc.want)
		}
	}
	// The environment was deleted: launching on it is refused again.
	f.OK("DELETE", "/compute-envs/"+wsCE+"?workspaceId=2001", "")
	f.clk.Advance(time.Hour)
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001", launch(wsCE))
}

// TestProgressAgreesWithStatus: a seeded SUCCEEDED run shows its tasks
// succeeded (not all counters zero) and none pending, running or failed.
func TestProgressAgreesWithStatus(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	p := f.OK("GET", "/workflow/3cSucceeded003/progress", "").Body
	num := func(path string) float64 { n, _ := get(p, path).(float64); return n }
	if num("progress.workflowProgress.succeeded") <= 0 {
		t.Errorf("a SUCCEEDED run shows no succeeded task: %v", p)
	}
	for _, k := range []string{"pending", "running", "failed"} {
		if n := num("progress.workflowProgress." + k); n != 0 {
			t.Errorf("a SUCCEEDED run shows %v %s tasks", n, k)
		}
	}
}
