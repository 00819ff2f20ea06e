package mock_test

import (
	"fmt"
	"testing"
)

// TestStudioStartedAndStopped runs, through the whole server with strict
// answers, what Seqera's Node-RED nodes do with a studio: create it with
// the body their add node sends, poll its statusInfo.status as their
// monitor node does until it is running, stop it and poll until it is
// stopped, moving time with the control API; then read the checkpoint the
// stop saved, start it again and delete it.
func TestStudioStartedAndStopped(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := strictServer(t, dc.doc(t))
			h := srv.Handler()
			ces := object(t, ok(t, h, call(t, h, "GET", "/api/compute-envs", devToken, nil), 200, "compute envs"))["computeEnvs"].([]any)
			ce := ces[0].(map[string]any)["id"]
			body := fmt.Sprintf(`{"name":"node-red-studio","dataStudioToolUrl":"cr.example/jupyter:1","computeEnvId":%q,"configuration":{"gpu":0,"cpu":2,"memory":8192,"mountData":[]},"isPrivate":false,"spot":false}`, ce)
			created := object(t, ok(t, h, call(t, h, "POST", "/api/studios?autoStart=true", devToken, []byte(body)), 200, "create"))
			id, _ := path(created, "studio", "sessionId").(string)
			poll := func() string {
				t.Helper()
				d := object(t, ok(t, h, call(t, h, "GET", "/api/studios/"+id, devToken, nil), 200, "describe"))
				s, _ := path(d, "statusInfo", "status").(string)
				return s
			}
			advance := func(by string) {
				t.Helper()
				if a := adminCall(t, h, "POST", "/_mock/admin/clock/advance?by="+by, "", nil); a.status != 200 {
					t.Fatalf("clock advance: %d %s", a.status, a.body)
				}
			}
			var seen []string
			note := func(s string) {
				if len(seen) == 0 || seen[len(seen)-1] != s {
					seen = append(seen, s)
				}
			}
			for range 10 {
				if note(poll()); seen[len(seen)-1] == "running" {
					break
				}
				advance("5s")
			}
			stop := object(t, ok(t, h, call(t, h, "PUT", "/api/studios/"+id+"/stop", devToken, nil), 200, "stop"))
			if stop["jobSubmitted"] != true {
				t.Errorf("stop of a running studio: %v", stop)
			}
			for range 10 {
				if note(poll()); seen[len(seen)-1] == "stopped" {
					break
				}
				advance("5s")
			}
			if got := fmt.Sprint(seen); got != "[starting running stopping stopped]" {
				t.Errorf("statuses polled: %s, want [starting running stopping stopped]", got)
			}
			cps := object(t, ok(t, h, call(t, h, "GET", "/api/studios/"+id+"/checkpoints", devToken, nil), 200, "checkpoints"))["checkpoints"].([]any)
			if len(cps) != 1 || cps[0].(map[string]any)["status"] != "finalized" {
				t.Errorf("checkpoints after the stop: %v", cps)
			}
			// tower-cli's "studios start" sends the studio's configuration
			// back, with what it overrides.
			again := `{"configuration":{"gpu":0,"cpu":4,"memory":8192,"mountData":[]},"description":"again"}`
			start := object(t, ok(t, h, call(t, h, "PUT", "/api/studios/"+id+"/start", devToken, []byte(again)), 200, "start"))
			if start["jobSubmitted"] != true || path(start, "statusInfo", "status") != "starting" {
				t.Errorf("start of a stopped studio: %v", start)
			}
			// Deleted while it starts (the Terraform provider deletes its
			// studios as they are).
			ok(t, h, call(t, h, "DELETE", "/api/studios/"+id, devToken, nil), 204, "delete")
			if a := call(t, h, "GET", "/api/studios/"+id, devToken, nil); a.status != 403 {
				t.Errorf("describe after delete: %d", a.status)
			}
		})
	}
}
