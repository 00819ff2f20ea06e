package mock_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
)

// TestLaunchByPipelineName: Seqera's Node-RED launch node, given a
// pipeline's name, finds it (GET /pipelines?search=), reads its launch
// settings (GET /pipelines/{id}/launch), turns the compute environment
// into its id and launches with them: on both documents, every answer
// held to the document, and the run launched is the pipeline's.
func TestLaunchByPipelineName(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := newServer(t, dc.doc(t), mock.WithStrictResponses())
			h := srv.Handler()
			_, _, ws := heldWorkspace(t, srv)
			var ces struct{ ComputeEnvs []struct{ ID string } }
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/compute-envs?workspaceId=%d", ws), devToken, nil), 200, "compute environments").body, &ces)
			if len(ces.ComputeEnvs) == 0 {
				t.Fatal("the workspace holds no compute environment")
			}
			ce := ces.ComputeEnvs[0].ID
			body := fmt.Sprintf(`{"name":"nodered-pipe","launch":{"pipeline":"https://github.com/nf-core/sarek","computeEnvId":%q,"workDir":"s3://bucket/sarek","revision":"3.4.0"}}`, ce)
			ok(t, h, call(t, h, "POST", fmt.Sprintf("/api/pipelines?workspaceId=%d", ws), devToken, []byte(body)), 200, "create the pipeline")

			var found struct{ Pipelines []struct{ PipelineID int64 } }
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/pipelines?workspaceId=%d&search=%s", ws, url.QueryEscape("nodered-pipe")), devToken, nil), 200, "search").body, &found)
			if len(found.Pipelines) != 1 {
				t.Fatalf("the search found %d pipelines, want the one", len(found.Pipelines))
			}
			var lp struct{ Launch map[string]any }
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/pipelines/%d/launch?workspaceId=%d", found.Pipelines[0].PipelineID, ws), devToken, nil), 200, "the launch settings").body, &lp)
			l := lp.Launch
			cev, _ := l["computeEnv"].(map[string]any)
			if l["pipeline"] != "https://github.com/nf-core/sarek" || l["revision"] != "3.4.0" || cev == nil || cev["id"] != ce {
				t.Fatalf("launch settings %v: not the pipeline's", l)
			}
			// The launch is a copy of the compute environment it names,
			// as its describe shows it; what nobody wrote is null.
			var described struct{ ComputeEnv map[string]any }
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/compute-envs/%s?workspaceId=%d", ce, ws), devToken, nil), 200, "describe the compute environment").body, &described)
			if described.ComputeEnv["name"] == nil {
				t.Fatalf("the compute environment's describe has no name: %v", described.ComputeEnv)
			}
			for _, k := range []string{"name", "platform", "status"} {
				if cev[k] != described.ComputeEnv[k] {
					t.Errorf("the launch's computeEnv.%s is %v; its describe says %v", k, cev[k], described.ComputeEnv[k])
				}
			}
			for _, k := range []string{"configText", "preRunScript", "paramsText"} {
				if v, has := l[k]; !has || v != nil {
					t.Errorf("launch.%s = %v (present %v), written by nobody: want null", k, v, has)
				}
			}
			// What the node sends: the settings as they came, nulls and
			// all, with the compute environment as its id.
			l["computeEnvId"] = cev["id"]
			delete(l, "computeEnv")
			launch, _ := json.Marshal(map[string]any{"launch": l})
			var started struct{ WorkflowID string }
			decode(t, ok(t, h, call(t, h, "POST", fmt.Sprintf("/api/workflow/launch?workspaceId=%d", ws), devToken, launch), 200, "launch").body, &started)
			var wf struct {
				Workflow struct{ ProjectName, Revision string }
			}
			decode(t, ok(t, h, call(t, h, "GET", fmt.Sprintf("/api/workflow/%s?workspaceId=%d", started.WorkflowID, ws), devToken, nil), 200, "describe the run").body, &wf)
			if wf.Workflow.Revision != "3.4.0" {
				t.Errorf("the run launched has revision %q, want the pipeline's 3.4.0", wf.Workflow.Revision)
			}
		})
	}
}
