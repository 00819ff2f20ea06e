package resources

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// A launched run follows the fake's clock through its statuses, shows its
// work in progress and tasks, can be cancelled once, and is gone after a
// delete.
func TestWorkflowLifecycle(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	launched := f.ok("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","revision":"3.14.0","runName":"first_run","configProfiles":["test"],"paramsText":"{\"a\":1}"}}`)
	id, _ := launched.body["workflowId"].(string)
	if id == "" {
		t.Fatalf("launch answered %s", launched.raw)
	}
	status := func() string { return fmt.Sprint(get(f.ok("GET", "/workflow/"+id, "").body, "workflow.status")) }
	if s := status(); s != "SUBMITTED" {
		t.Fatalf("just launched: %s", s)
	}
	d := f.ok("GET", "/workflow/"+id, "").body
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
	prog := f.ok("GET", "/workflow/"+id+"/progress", "").body
	if get(prog, "progress") == nil {
		t.Errorf("progress answer: %v", prog)
	}
	tasks := f.ok("GET", "/workflow/"+id+"/tasks", "").body
	if len(list(tasks, "tasks")) == 0 {
		t.Errorf("a running run lists no tasks: %v", tasks)
	}
	f.clk.Advance(time.Hour)
	if s := status(); s != "SUCCEEDED" {
		t.Fatalf("after an hour: %s", s)
	}

	// A second run is cancelled while it runs; a finished run cannot be.
	second, _ := f.ok("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`).body["workflowId"].(string)
	f.clk.Advance(time.Minute)
	f.ok("POST", "/workflow/"+second+"/cancel", "")
	if s := get(f.ok("GET", "/workflow/"+second, "").body, "workflow.status"); s != "CANCELLED" {
		t.Errorf("cancelled run: %v", s)
	}
	// Cancelling a run that has ended is accepted and changes nothing.
	f.ok("POST", "/workflow/"+id+"/cancel", "")
	if s := status(); s != "SUCCEEDED" {
		t.Errorf("a finished run after a cancel: %s", s)
	}

	// Deleted: gone for every operation.
	f.ok("DELETE", "/workflow/"+id, "")
	f.refused(apierror.Forbidden, "GET", "/workflow/"+id, "")
	f.refused(apierror.Forbidden, "DELETE", "/workflow/"+id, "")
	f.refused(apierror.Forbidden, "POST", "/workflow/"+id+"/cancel", "")
	f.refused(apierror.Forbidden, "GET", "/workflow/"+id+"/progress", "")
	f.refused(apierror.Forbidden, "GET", "/workflow/"+id+"/tasks", "")
	f.refused(apierror.Forbidden, "GET", "/workflow/"+id+"/log", "")
	// The log of an existing run is the run's own (workflow.Run.LogAt),
	// not a synthesized one.
	before := f.synthd
	lg, _ := f.ok("GET", "/workflow/"+second+"/log", "").body["log"].(map[string]any)
	if entries, _ := lg["entries"].([]any); f.synthd != before || len(entries) == 0 {
		t.Errorf("the log of an existing run: %v (synthesized %d times)", lg, f.synthd-before)
	}

	f.refused(apierror.BadRequest, "POST", "/workflow/launch", `{"launch":{}}`)
	f.refused(apierror.BadRequest, "POST", "/workflow/launch", `{"launch":`)
}

// The seeded runs list newest first, in pages, filtered by search, and per
// workspace.
func TestWorkflowList(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	all := f.ok("GET", "/workflow", "").body
	runs := list(all, "workflows")
	total, _ := get(all, "totalSize").(float64)
	if len(runs) == 0 || int(total) != len(runs) {
		t.Fatalf("list: %d runs, totalSize %v", len(runs), get(all, "totalSize"))
	}
	page := list(f.ok("GET", "/workflow?max=2&offset=1", "").body, "workflows")
	if len(page) != 2 || get(page[0], "workflow.id") != get(runs[1], "workflow.id") {
		t.Errorf("page max=2 offset=1: %d runs, first %v; want the list's 2nd", len(page), get(page[0], "workflow.id"))
	}
	found := list(f.ok("GET", "/workflow?search=happy_turing", "").body, "workflows")
	if len(found) != 1 || get(found[0], "workflow.runName") != "happy_turing" {
		t.Errorf("search by run name: %v", found)
	}
	if n := len(list(f.ok("GET", "/workflow?search=no-such-run", "").body, "workflows")); n != 0 {
		t.Errorf("search for nothing: %d runs", n)
	}
	f.refused(apierror.BadRequest, "GET", "/workflow?max=-1", "")
	f.refused(apierror.BadRequest, "GET", "/workflow?offset=x", "")
	f.refused(apierror.BadRequest, "GET", "/workflow?workspaceId=abc", "")

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
	id, _ := f.ok("POST", "/workflow/launch", `{"launch":{"pipeline":"p"}}`).body["workflowId"].(string)
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

// Tokens: created ones list and delete; names are unique; delete-all
// leaves the configured (pinned) ones.
func TestTokens(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	before := len(list(f.ok("GET", "/tokens", "").body, "tokens"))
	created := f.ok("POST", "/tokens", `{"name":"ci"}`).body
	if v, _ := created["accessKey"].(string); v == "" {
		t.Fatalf("create answered %v", created)
	}
	if tok, ok, err := f.tokens.Lookup(created["accessKey"].(string)); err != nil || !ok || tok.Name != "ci" {
		t.Error("the created value does not authenticate")
	}
	if n := len(list(f.ok("GET", "/tokens", "").body, "tokens")); n != before+1 {
		t.Errorf("%d tokens after a create, want %d", n, before+1)
	}
	f.refused(apierror.Conflict, "POST", "/tokens", `{"name":"ci"}`)
	f.refused(apierror.BadRequest, "POST", "/tokens", `{"name":"  "}`)
	f.refused(apierror.BadRequest, "POST", "/tokens", `[1]`)
	id := fmt.Sprint(get(created, "token.id"))
	f.ok("DELETE", "/tokens/"+id, "")
	f.refused(apierror.Forbidden, "DELETE", "/tokens/"+id, "")
	f.refused(apierror.BadRequest, "DELETE", "/tokens/abc", "")

	f.ok("POST", "/tokens", `{"name":"a"}`)
	f.ok("POST", "/tokens", `{"name":"b"}`)
	f.ok("DELETE", "/tokens/delete-all", "")
	left, err := f.tokens.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range left {
		if !tok.Pinned {
			t.Errorf("delete-all left %s", tok.Name)
		}
	}
	if _, ok, _ := f.tokens.Lookup(auth.DevToken); !ok {
		t.Error("delete-all removed the dev token")
	}
}

// The seeded user answers user-info; without one the answer is synthesized.
func TestUserInfo(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	if name := get(f.ok("GET", "/user-info", "").body, "user.userName"); name != "wmsmock" {
		t.Errorf("user-info: %v", name)
	}
	empty := newFixture(t, embeddedDoc(t), false)
	empty.ok("GET", "/user-info", "")
	if empty.synthd != 1 {
		t.Error("user-info without a seeded user was not synthesized")
	}
}

// A generic collection: create, list, describe, update, delete, with
// unique names and 403 for what is not there.
func TestCollectionLifecycle(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	before := len(list(f.ok("GET", "/pipelines", "").body, "pipelines"))
	created := f.ok("POST", "/pipelines", `{"name":"new-pipe","repository":"https://github.com/nf-core/viralrecon","description":"d"}`).body
	id := fmt.Sprint(get(created, "pipeline.pipelineId"))
	if id == "<nil>" {
		t.Fatalf("create answered %v", created)
	}
	if got := list(f.ok("GET", "/pipelines", "").body, "pipelines"); len(got) != before+1 || get(got[0], "name") != "new-pipe" {
		t.Errorf("after a create: %d pipelines, first %v; want the new one first", len(got), get(got[0], "name"))
	}
	if got := get(f.ok("GET", "/pipelines/"+id, "").body, "pipeline.name"); got != "new-pipe" {
		t.Errorf("describe: %v", got)
	}
	f.refused(apierror.Conflict, "POST", "/pipelines", `{"name":"new-pipe","repository":"r"}`)
	f.ok("PUT", "/pipelines/"+id, `{"name":"renamed","description":"e"}`)
	if got := get(f.ok("GET", "/pipelines/"+id, "").body, "pipeline.name"); got != "renamed" {
		t.Errorf("after the update: %v", got)
	}
	if got := list(f.ok("GET", "/pipelines?search=renamed", "").body, "pipelines"); len(got) != 1 {
		t.Errorf("search: %d", len(got))
	}
	f.ok("DELETE", "/pipelines/"+id, "")
	f.refused(apierror.Forbidden, "GET", "/pipelines/"+id, "")
	f.refused(apierror.Forbidden, "PUT", "/pipelines/"+id, `{"name":"x"}`)
	f.refused(apierror.Forbidden, "DELETE", "/pipelines/"+id, "")
	f.refused(apierror.Forbidden, "GET", "/pipelines/999999", "")
}

// Compute environments are created and deleted over time, on the
// profile's clock; once deleted, describe answers the environment as
// DELETED (or, with compute_envs.after_delete: missing, the missing
// reply), and nothing else sees it.
func TestComputeEnvLifecycle(t *testing.T) {
	for _, after := range []string{profile.AfterDeleteDeleted, profile.AfterDeleteMissing} {
		t.Run(after, func(t *testing.T) {
			p := profile.Default()
			p.ComputeEnvs.AfterDelete = after
			computeEnvLifecycle(t, newFixture(t, embeddedDoc(t), true, withProfile(p)), "DELETED")
		})
	}
	// The 1.140.0 schema's status enum has no DELETED: a deleted
	// environment kept describable says the deletion was under way, never
	// a status from the start of its life.
	t.Run("1.140.0", func(t *testing.T) {
		doc, err := spec.LoadFile(testenv.PublishedSpec(t, "seqera-api-1.140.0.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		computeEnvLifecycle(t, newFixture(t, doc, true), "DELETING")
	})
}

func computeEnvLifecycle(t *testing.T, f *fixture, deleted string) {
	body := `{"computeEnv":{"name":"ce-new","platform":"aws-batch","config":{"region":"eu-west-1","workDir":"s3://b/w"}}}`
	created := f.call("POST", "/compute-envs", body)
	if created.err != nil {
		t.Fatalf("create: %v", created.err)
	}
	id := fmt.Sprint(created.body["computeEnvId"])
	status := func() string {
		return fmt.Sprint(get(f.ok("GET", "/compute-envs/"+id, "").body, "computeEnv.status"))
	}
	if s := status(); s != "CREATING" {
		t.Errorf("just created: %s", s)
	}
	f.clk.Advance(f.prof.ComputeEnvs.CreatingFor)
	if s := status(); s != "AVAILABLE" {
		t.Errorf("after creating_for: %s", s)
	}
	f.ok("DELETE", "/compute-envs/"+id, "")
	if s := status(); s != "DELETING" {
		t.Errorf("just deleted: %s", s)
	}
	f.clk.Advance(f.prof.ComputeEnvs.DeletingFor)
	if f.prof.ComputeEnvs.AfterDelete == profile.AfterDeleteMissing {
		f.refused(apierror.Forbidden, "GET", "/compute-envs/"+id, "")
	} else {
		ce := f.ok("GET", "/compute-envs/"+id, "").body
		if s, d := get(ce, "computeEnv.status"), get(ce, "computeEnv.deleted"); s != deleted || d != true {
			t.Errorf("deleted: status %v, deleted %v; want %s, true", s, d, deleted)
		}
	}
	f.refused(apierror.Forbidden, "DELETE", "/compute-envs/"+id, "")
	f.refused(apierror.Forbidden, "POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","computeEnvId":"`+id+`"}}`)
	for _, ce := range list(f.ok("GET", "/compute-envs", "").body, "computeEnvs") {
		if get(ce, "id") == id {
			t.Error("a deleted compute environment is still listed")
		}
	}
}

// Records in a workspace are found with its id and not without it.
func TestWorkspaces(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	personal := list(f.ok("GET", "/pipelines", "").body, "pipelines")
	inWS := list(f.ok("GET", "/pipelines?workspaceId=2001", "").body, "pipelines")
	if len(inWS) == 0 {
		t.Fatal("no seeded pipeline in workspace 2001")
	}
	for _, p := range personal {
		if get(p, "pipelineId") == get(inWS[0], "pipelineId") {
			t.Error("a workspace's pipeline is listed in the personal context")
		}
	}
	id := fmt.Sprint(get(inWS[0], "pipelineId"))
	f.ok("GET", "/pipelines/"+id+"?workspaceId=2001", "")
	f.refused(apierror.Forbidden, "GET", "/pipelines/"+id+"?workspaceId=9", "")

	wsRun, _ := f.ok("POST", "/workflow/launch?workspaceId=2001", `{"launch":{"pipeline":"p"}}`).body["workflowId"].(string)
	f.ok("GET", "/workflow/"+wsRun+"?workspaceId=2001", "")
	f.refused(apierror.Forbidden, "GET", "/workflow/"+wsRun+"?workspaceId=9", "")
	if orgs := list(f.ok("GET", "/orgs", "").body, "organizations"); len(orgs) == 0 {
		t.Log("no seeded organization in this document's seed")
	}
}

func TestProjectNameAndRunNames(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	seen := map[string]bool{}
	for i := range 5 {
		id, _ := f.ok("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`).body["workflowId"].(string)
		name := fmt.Sprint(get(f.ok("GET", "/workflow/"+id, "").body, "workflow.runName"))
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
	seeded, _ := f.store.List(WorkflowsCollection)
	f.refused(apierror.Forbidden, "POST", "/workflow/launch", launch("NoSuchEnv00001"))
	f.refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001", launch("NoSuchEnv00001"))
	f.refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001", launch(personalCE))
	f.refused(apierror.Forbidden, "POST", "/workflow/launch", launch(wsCE))
	f.refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=999999", launch(""))
	f.refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001&sourceWorkspaceId=999999", launch(wsCE))
	if recs, _ := f.store.List(WorkflowsCollection); len(recs) != len(seeded) {
		t.Fatalf("refused launches stored %d runs", len(recs)-len(seeded))
	}

	for _, tc := range []struct{ query, ce, want string }{
		{"?workspaceId=2001", wsCE, wsCE},
		{"?workspaceId=2001", "", wsCE},
		{"", "", personalCE},
		{"", personalCE, personalCE},
	} {
		id, _ := f.ok("POST", "/workflow/launch"+tc.query, launch(tc.ce)).body["workflowId"].(string)
		f.ok("GET", "/workflow/"+id+tc.query, "")
		if got := f.storedRun(id).ComputeEnvID; got != tc.want {
			t.Errorf("launch %s naming %q runs on %v, want %s", tc.query, tc.ce, got, tc.want)
		}
	}
	// The environment was deleted: launching on it is refused again.
	f.ok("DELETE", "/compute-envs/"+wsCE+"?workspaceId=2001", "")
	f.clk.Advance(time.Hour)
	f.refused(apierror.Forbidden, "POST", "/workflow/launch?workspaceId=2001", launch(wsCE))
}

// TestProgressAgreesWithStatus: a seeded SUCCEEDED run shows its tasks
// succeeded (not all counters zero) and none pending, running or failed.
func TestProgressAgreesWithStatus(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	p := f.ok("GET", "/workflow/3cSucceeded003/progress", "").body
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
