package mock_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/nfcli"
	"github.com/wmsmock/wmsmock/mock/clock"
)

// Nextflow's own commands for the service, replayed as its code makes
// them (internal/nfcli), on both documents with strict responses: "auth
// status" and "launch" with its polling.

func waitOn(clk *clock.Fake) func(time.Duration) { return func(d time.Duration) { clk.Advance(d) } }

// TestNextflowAuthStatus: "nextflow auth status" finds the service
// reachable (GET /service-info without a token), the token valid (its
// user), the default workspace among the user's workspaces with its
// roles, and the workspace's primary compute environment with its work
// directory.
func TestNextflowAuthStatus(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := strictServer(t, dc.doc(t))
			c := nfcli.Client{Send: replayClient(srv.Handler()), Token: devToken}
			st := c.AuthStatus("2001")
			for _, p := range st.Problems {
				t.Error(p)
			}
			if !st.Connection || st.UserName == "" || st.Workspace == nil || st.ComputeEnv == nil || st.WorkDir == "" {
				t.Errorf("auth status: connection %v, user %q, workspace %v, compute env %v, work dir %q",
					st.Connection, st.UserName, st.Workspace, st.ComputeEnv, st.WorkDir)
			}
			if name, _ := st.Workspace["workspaceName"].(string); name == "" {
				t.Errorf("the default workspace has no name: %v", st.Workspace)
			}
		})
	}
}

// TestNextflowLaunch: "nextflow launch -workspace <name>" launches in the
// workspace, polls the run every 2 s of the fake's clock to its final
// status, and prints a log that grows without ever changing what it
// printed, from the submission to the run's end as its describe shows it.
func TestNextflowLaunch(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			c := nfcli.Client{Send: replayClient(srv.Handler()), Token: devToken}
			st := c.AuthStatus("2001")
			ws, _ := st.Workspace["workspaceName"].(string)
			for _, run := range []struct{ name, final, last string }{
				{"nf_launch_ok", "SUCCEEDED", "Succeeded   : "},
				{"nf_launch_wmsmock-fail", "FAILED", "  Process `"},
			} {
				t.Run(run.final, func(t *testing.T) {
					got := c.Launch(nfcli.Launch{Pipeline: "https://github.com/nextflow-io/hello", Workspace: ws, RunName: run.name}, waitOn(clk))
					for _, p := range got.Problems {
						t.Error(p)
					}
					if got.Final != run.final || got.RunName != run.name {
						t.Fatalf("final status %q (statuses %v), run name %q; want %s, %s", got.Final, got.Statuses, got.RunName, run.final, run.name)
					}
					if !slices.Equal(got.Statuses, []string{"SUBMITTED", "RUNNING", run.final}) {
						t.Errorf("statuses %v", got.Statuses)
					}
					if len(got.Printed) < 5 || !strings.Contains(got.Printed[0], run.name) {
						t.Fatalf("printed %q", got.Printed)
					}
					if last := got.Printed[len(got.Printed)-1]; !strings.HasPrefix(last, run.last) {
						t.Errorf("the log ends %q, want a line starting %q: %q", last, run.last, got.Printed)
					}
					d := object(t, call(t, srv.Handler(), "GET", "/api/workflow/"+got.WorkflowID+"?workspaceId=2001", devToken, nil))
					wf, _ := d["workflow"].(map[string]any)
					submitted := 0
					for _, l := range got.Printed {
						if strings.Contains(l, "] Submitted process > ") {
							submitted++
						}
					}
					tasks := object(t, call(t, srv.Handler(), "GET", "/api/workflow/"+got.WorkflowID+"/tasks?workspaceId=2001&max=100", devToken, nil))
					if n, _ := tasks["total"].(float64); int(n) != submitted {
						t.Errorf("the log submitted %d tasks; the run lists %v", submitted, tasks["total"])
					}
					switch run.final {
					case "SUCCEEDED":
						if want := "Succeeded   : " + strconv.Itoa(submitted); got.Printed[len(got.Printed)-1] != want || wf["exitStatus"] != 0.0 {
							t.Errorf("log ends %q, want %q; exitStatus %v", got.Printed[len(got.Printed)-1], want, wf["exitStatus"])
						}
					case "FAILED":
						msg, _ := wf["errorMessage"].(string)
						if last := got.Printed[len(got.Printed)-1]; strings.TrimSpace(last) != msg || wf["exitStatus"] != 1.0 {
							t.Errorf("log ends %q; the run's errorMessage is %q, exitStatus %v", last, msg, wf["exitStatus"])
						}
					}
				})
			}
		})
	}
}

// TestSchedRunIDReadsBackAsWritten: Nextflow's observer writes a run's
// scheduler id once (TowerObserver: PATCH /workflow/{id} with
// {"schedRunId": ...}); the answer and every later describe show exactly
// that, and a run nobody wrote it for shows null.
func TestSchedRunIDReadsBackAsWritten(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			h := srv.Handler()
			l := object(t, ok(t, h, call(t, h, "POST", "/api/workflow/launch?workspaceId=2001", devToken,
				[]byte(`{"launch":{"pipeline":"https://github.com/nextflow-io/hello","computeEnvId":"4Gt7Ws2KpQ9vBn"}}`)), 200, "launch"))
			id, _ := l["workflowId"].(string)
			read := func() any {
				return object(t, ok(t, h, call(t, h, "GET", "/api/workflow/"+id+"?workspaceId=2001", devToken, nil), 200, "describe"))["schedRunId"]
			}
			if v := read(); v != nil {
				t.Errorf("before any write schedRunId is %v, want null", v)
			}
			w := object(t, ok(t, h, call(t, h, "PATCH", "/api/workflow/"+id+"?workspaceId=2001", devToken, []byte(`{"schedRunId":"sched-42"}`)), 200, "update"))
			if w["schedRunId"] != "sched-42" {
				t.Errorf("the update answers schedRunId %v", w["schedRunId"])
			}
			for range 3 {
				clk.Advance(time.Minute)
				if v := read(); v != "sched-42" {
					t.Fatalf("describe shows schedRunId %v, want what was written", v)
				}
			}
		})
	}
}
