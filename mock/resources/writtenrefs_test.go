package resources

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// A record a client writes names other records only as the fake holds
// them in the record's context: a compute environment in a pipeline's
// launch settings, the credentials of a compute environment, on create
// and on update; a name of nothing, or of a record of another workspace,
// is refused like any missing resource, and nothing is stored.
func TestWrittenReferencesNameHeldRecords(t *testing.T) {
	for name, load := range map[string]func(testing.TB) *spec.Document{"embedded": embeddedDoc, "published": publishedDoc} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, load(t), true)
			ce := list(f.OK("GET", "/compute-envs?workspaceId=2001", "").Body, "computeEnvs")
			if len(ce) == 0 {
				t.Fatal("no seeded compute environment in workspace 2001")
			}
			held := fmt.Sprint(get(ce[0], "id"))
			pipelines := func() int { return len(list(f.OK("GET", "/pipelines?workspaceId=2001", "").Body, "pipelines")) }
			before := pipelines()
			body := func(name, ce string) string {
				return `{"name":"` + name + `","launch":{"pipeline":"https://github.com/nf-core/rnaseq","computeEnvId":"` + ce + `"}}`
			}
			f.Refused(apierror.Forbidden, "POST", "/pipelines?workspaceId=2001", body("nowhere", "nosuchce"))
			f.Refused(apierror.Forbidden, "POST", "/pipelines", body("elsewhere", held)) // held in 2001, not in the personal context
			if n := pipelines(); n != before {
				t.Errorf("refused creates stored pipelines: %d listed, %d before", n, before)
			}
			made := f.OK("POST", "/pipelines?workspaceId=2001", body("here", held)).Body
			id := fmt.Sprint(get(made, "pipeline.pipelineId"))
			if got := get(made, "pipeline.computeEnv.id"); got != held {
				t.Errorf("the pipeline's compute environment is %v; want %s", got, held)
			}
			if !slices.ContainsFunc(f.doc.Operations, func(op *spec.Operation) bool { return op.Path == "/pipelines/{pipelineId}/launch" }) {
				f.Refused(apierror.Forbidden, "PUT", "/pipelines/"+id+"?workspaceId=2001", body("here", "nosuchce"))
				return // the document has no view of a pipeline's launch settings
			}
			// The launch's compute environment is a copy of the record it
			// names, and what nobody wrote in the launch reads null.
			launch := get(f.OK("GET", "/pipelines/"+id+"/launch?workspaceId=2001", "").Body, "launch")
			if got := get(launch, "computeEnv.id"); got != held {
				t.Errorf("the pipeline's launch runs on %v; want %s", got, held)
			}
			record := get(f.OK("GET", "/compute-envs/"+held+"?workspaceId=2001", "").Body, "computeEnv")
			for _, k := range []string{"name", "platform", "status"} {
				if get(launch, "computeEnv."+k) != get(record, k) {
					t.Errorf("the launch's computeEnv.%s = %v; the record's is %v", k, get(launch, "computeEnv."+k), get(record, k))
				}
			}
			for _, k := range []string{"revision", "runName", "resume", "sessionId", "paramsText"} {
				if v := get(launch, k); v != nil {
					t.Errorf("the launch's %s = %v, which nobody wrote", k, v)
				}
			}
			f.Refused(apierror.Forbidden, "PUT", "/pipelines/"+id+"?workspaceId=2001", body("here", "nosuchce"))
			if got := get(f.OK("GET", "/pipelines/"+id+"/launch?workspaceId=2001", "").Body, "launch.computeEnv.id"); got != held {
				t.Errorf("after a refused update the launch runs on %v; want %s", got, held)
			}
			// An empty id names nothing, like null: nothing to look up.
			f.OK("POST", "/pipelines?workspaceId=2001", body("unset", ""))
			f.Refused(apierror.Forbidden, "POST", "/compute-envs?workspaceId=2001",
				`{"computeEnv":{"name":"ce-x","platform":"aws-batch","credentialsId":"nosuchcreds","config":{"region":"eu-west-1","workDir":"s3://b/w"}}}`)
		})
	}
}
