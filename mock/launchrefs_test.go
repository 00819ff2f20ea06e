package mock_test

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock"
)

// TestLaunchReferencesOnBothDocuments: on the embedded document and the
// published schema, a launch naming an unknown compute environment or
// workspace, or the launch form of an unknown saved pipeline, gets the
// profile's missing-resource reply (403, empty body); a launch in the
// seeded workspace on its compute environment succeeds.
func TestLaunchReferencesOnBothDocuments(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc, mock.WithStrictResponses())
			h := srv.Handler()
			missing := func(method, target, body string) {
				t.Helper()
				var b []byte
				if body != "" {
					b = []byte(body)
				}
				if a := call(t, h, method, target, devToken, b); a.status != 403 || len(a.body) != 0 {
					t.Errorf("%s %s: %d %s, want the missing-resource reply", method, target, a.status, a.body)
				}
			}
			const pipeline = `"pipeline":"https://github.com/nf-core/rnaseq"`
			missing("POST", "/api/workflow/launch", `{"launch":{`+pipeline+`,"computeEnvId":"NoSuchEnv00001"}}`)
			missing("POST", "/api/workflow/launch?workspaceId=987654", `{"launch":{`+pipeline+`}}`)
			missing("POST", "/api/workflow/launch?workspaceId=2001", `{"launch":{`+pipeline+`,"computeEnvId":"5Fq2Xw8RtLmN3p"}}`)
			if _, _, ok := doc.Route("GET", "/pipelines/987654/launch"); ok {
				missing("GET", "/api/pipelines/987654/launch", "")
			}
			a := call(t, h, "POST", "/api/workflow/launch?workspaceId=2001", devToken, []byte(`{"launch":{`+pipeline+`,"computeEnvId":"4Gt7Ws2KpQ9vBn"}}`))
			if a.status != 200 {
				t.Fatalf("launch in the seeded workspace on its compute environment: %d %s", a.status, a.body)
			}
		})
	}
}
