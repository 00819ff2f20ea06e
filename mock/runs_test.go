package mock_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/nftrace"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// A run's parts agree (issue 27): its status, dates, duration, head job
// and progress counters tell one story, whichever answer shows it.

var (
	runStatuses   = []string{"SUBMITTED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "UNKNOWN"}
	finalStatuses = runStatuses[2:]
)

// runContradictions lists what a run's answer says against itself. The
// run is the last of scopes; the one before it, when there is one, holds
// its progress and head job.
func runContradictions(run map[string]any, scopes []map[string]any) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	status, _ := run["status"].(string)
	if !slices.Contains(runStatuses, status) {
		return []string{fmt.Sprintf("status %q is no run status", status)}
	}
	final := slices.Contains(finalStatuses, status)
	date := func(k string) *time.Time {
		s, ok := run[k].(string)
		if !ok {
			return nil
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			bad("%s %q is no date", k, s)
			return nil
		}
		return &t
	}
	submit, start, complete := date("submit"), date("start"), date("complete")
	switch {
	case submit == nil:
		bad("no submit date")
	case start != nil && start.Before(*submit):
		bad("started %s before its submission %s", run["start"], run["submit"])
	}
	if start != nil && complete != nil && complete.Before(*start) {
		bad("completed %s before it started %s", run["complete"], run["start"])
	}
	if status == "SUBMITTED" && (start != nil || complete != nil) {
		bad("SUBMITTED with a start (%v) or completion (%v)", run["start"], run["complete"])
	}
	if status == "RUNNING" && (start == nil || complete != nil) {
		bad("RUNNING with start %v and completion %v", run["start"], run["complete"])
	}
	if final && status != "UNKNOWN" && complete == nil {
		bad("%s without a completion date", status)
	}
	d, hasD := number(run["duration"])
	switch {
	// The dates are to the second; the duration, to the millisecond.
	case start != nil && complete != nil && (!hasD || math.Abs(d-float64(complete.Sub(*start).Milliseconds())) >= 1000):
		bad("duration %v where start to completion is %d ms", run["duration"], complete.Sub(*start).Milliseconds())
	case (start == nil || complete == nil) && hasD:
		bad("duration %v without both a start and a completion", run["duration"])
	}
	switch success := run["success"]; {
	case status == "SUCCEEDED" && success != true:
		bad("SUCCEEDED with success %v", success)
	case (status == "FAILED" || status == "CANCELLED") && success == true:
		bad("%s with success true", status)
	case !final && success != nil:
		bad("%s with success %v", status, success)
	}
	job, _ := run["jobInfo"].(map[string]any)
	if len(scopes) > 1 && job == nil {
		job, _ = scopes[len(scopes)-2]["jobInfo"].(map[string]any) // the describe answer's
	}
	if job != nil {
		js, _ := job["status"].(string)
		code, hasCode := number(job["exitCode"])
		switch status {
		case "SUBMITTED", "RUNNING":
			if js == "SUCCEEDED" || js == "FAILED" || hasCode {
				bad("%s with a head job %s (exit code %v)", status, js, job["exitCode"])
			}
		case "SUCCEEDED":
			if js != "SUCCEEDED" || hasCode && code != 0 {
				bad("SUCCEEDED with a head job %s (exit code %v)", js, job["exitCode"])
			}
		case "FAILED":
			if js != "FAILED" || hasCode && code == 0 {
				bad("FAILED with a head job %s (exit code %v)", js, job["exitCode"])
			}
		case "CANCELLED":
			if js == "SUCCEEDED" {
				bad("CANCELLED with a head job SUCCEEDED")
			}
		}
	}
	if len(scopes) < 2 {
		return out
	}
	prog, _ := scopes[len(scopes)-2]["progress"].(map[string]any)
	wp, _ := prog["workflowProgress"].(map[string]any)
	if wp == nil {
		return out
	}
	count := func(k string) float64 { n, _ := number(wp[k]); return n }
	running, pending, submitted := count("running"), count("pending"), count("submitted")
	succeeded, failed := count("succeeded"), count("failed")
	switch {
	case status == "SUBMITTED" && running+succeeded+failed > 0:
		bad("SUBMITTED with tasks done or running (%v running, %v succeeded, %v failed)", running, succeeded, failed)
	case final && running+pending+submitted > 0:
		bad("%s with tasks still to do (%v running, %v pending, %v submitted)", status, running, pending, submitted)
	case status == "SUCCEEDED" && succeeded == 0:
		bad("SUCCEEDED with no task succeeded")
	case status == "FAILED" && failed == 0:
		bad("FAILED with no task failed")
	}
	return out
}

func number(v any) (float64, bool) {
	n, ok := v.(float64)
	return n, ok
}

// checkRun reads run id through its describe call and the list, and
// reports what contradicts itself; it returns the status described.
func checkRun(t *testing.T, h http.Handler, refs refSet, id, when string) string {
	t.Helper()
	status := ""
	for _, target := range []string{"/api/workflow/" + id, "/api/workflow?search=" + id} {
		a := call(t, h, "GET", target, devToken, nil)
		if a.status != 200 {
			t.Errorf("%s: GET %s: %d %.200s", when, target, a.status, a.body)
			continue
		}
		var v any
		if err := json.Unmarshal(a.body, &v); err != nil {
			t.Fatal(err)
		}
		walkRefs(v, nil, refs, func(string, string, []map[string]any) {}, func(run map[string]any, scopes []map[string]any) {
			if run["id"] != id {
				return
			}
			if s, _ := run["status"].(string); strings.HasSuffix(target, id) {
				status = s
			}
			for _, p := range runContradictions(run, scopes) {
				t.Errorf("%s: GET %s: %s", when, target, p)
			}
		})
	}
	return status
}

// TestRunsAgreeThroughTheirLifecycle follows a launched run, a cancelled
// one and runs reported by a client through every step of their lives on
// the fake's clock: at each, the run agrees with itself in its describe
// answer and in the list.
func TestRunsAgreeThroughTheirLifecycle(t *testing.T) {
	onDocuments(t, "the embedded document runs the same handlers under -race", func(t *testing.T, doc *spec.Document) {
		srv, clk := strictServer(t, doc)
		h := srv.Handler()
		refs := references(doc)
		launch := func(name string) string {
			a := call(t, h, "POST", "/api/workflow/launch", devToken, []byte(`{"launch":{"pipeline":"https://github.com/nextflow-io/hello","runName":"`+name+`"}}`))
			var got struct{ WorkflowID string }
			if a.status != 200 || json.Unmarshal(a.body, &got) != nil || got.WorkflowID == "" {
				t.Fatalf("launch: %d %s", a.status, a.body)
			}
			return got.WorkflowID
		}
		t.Run("launched", func(t *testing.T) {
			id, cancelled := launch("lifecycle"), launch("cancelled")
			seen := map[string]bool{}
			for step := 0; step < 240 && !workflowFinal(seen); step++ {
				seen[checkRun(t, h, refs, id, fmt.Sprintf("after %d steps", step))] = true
				if step == 3 {
					if a := call(t, h, "POST", "/api/workflow/"+cancelled+"/cancel", devToken, nil); a.status >= 300 {
						t.Fatalf("cancel: %d %s", a.status, a.body)
					}
				}
				if step >= 3 {
					checkRun(t, h, refs, cancelled, fmt.Sprintf("cancelled, after %d steps", step))
				}
				clk.Advance(15 * time.Second)
			}
			seen[checkRun(t, h, refs, id, "at the end")] = true
			if !seen["SUBMITTED"] || !seen["RUNNING"] || !workflowFinal(seen) {
				t.Errorf("the run went through %v only", seen)
			}
		})
		t.Run("reported", func(t *testing.T) {
			send := replayClient(h)
			checked := 0
			watch := func(c nftrace.Call) (int, []byte, error) {
				status, body, err := send(c)
				if rest, ok := strings.CutPrefix(c.Path, "/trace/"); ok && rest != "create" {
					id := rest[:strings.Index(rest+"/", "/")]
					checkRun(t, h, refs, id, "after "+c.Step)
					checked++
				}
				return status, body, err
			}
			base := nftrace.Run{SessionID: "2f7d4c1e-8a4b-4f4e-9c1a-6b8e0d3f5a21", Zone: time.FixedZone("CET", 3600), Token: devToken}
			for _, fail := range []bool{false, true} {
				run := base
				run.RunName, run.Fail = fmt.Sprintf("reported_%v", fail), fail
				if _, problems := run.Replay(watch, clockOf(clk)); len(problems) > 0 {
					t.Fatalf("replay: %v", problems)
				}
			}
			if checked < 6 {
				t.Errorf("only %d steps of reported runs checked", checked)
			}
		})
	})
}

func workflowFinal(seen map[string]bool) bool {
	return slices.ContainsFunc(finalStatuses, func(s string) bool { return seen[s] })
}
