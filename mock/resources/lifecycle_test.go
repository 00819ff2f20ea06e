package resources_test

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// Compute environments are created and deleted over time, on the
// profile's clock; once deleted, describe answers the environment as
// DELETED (or, with compute_envs.after_delete: missing, the missing
// reply), and nothing else sees it.
func TestComputeEnvLifecycle(t *testing.T) {
	for _, after := range []string{profile.AfterDeleteDeleted, profile.AfterDeleteMissing} {
		t.Run(after, func(t *testing.T) {
			p := profile.Default()
			p.ComputeEnvs.AfterDelete = after
			computeEnvLifecycle(t, newFixture(t, embeddedDoc(t), withProfile(p)), "DELETED")
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
		computeEnvLifecycle(t, newFixture(t, doc), "DELETING")
	})
}

func computeEnvLifecycle(t *testing.T, f *fixture, deleted string) {
	body := `{"computeEnv":{"name":"ce-new","platform":"aws-batch","config":{"region":"eu-west-1","workDir":"s3://b/w"}}}`
	created := f.Call("POST", "/compute-envs", body)
	if created.Err != nil {
		t.Fatalf("create: %v", created.Err)
	}
	id := fmt.Sprint(created.Body["computeEnvId"])
	status := func() string {
		return fmt.Sprint(get(f.OK("GET", "/compute-envs/"+id, "").Body, "computeEnv.status"))
	}
	if s := status(); s != "CREATING" {
		t.Errorf("just created: %s", s)
	}
	f.clk.Advance(f.prof.ComputeEnvs.CreatingFor)
	if s := status(); s != "AVAILABLE" {
		t.Errorf("after creating_for: %s", s)
	}
	f.OK("DELETE", "/compute-envs/"+id, "")
	if s := status(); s != "DELETING" {
		t.Errorf("just deleted: %s", s)
	}
	f.clk.Advance(f.prof.ComputeEnvs.DeletingFor)
	if f.prof.ComputeEnvs.AfterDelete == profile.AfterDeleteMissing {
		f.Refused(apierror.Forbidden, "GET", "/compute-envs/"+id, "")
	} else {
		ce := f.OK("GET", "/compute-envs/"+id, "").Body
		if s, d := get(ce, "computeEnv.status"), get(ce, "computeEnv.deleted"); s != deleted || d != true {
			t.Errorf("deleted: status %v, deleted %v; want %s, true", s, d, deleted)
		}
	}
	f.Refused(apierror.Forbidden, "DELETE", "/compute-envs/"+id, "")
	f.Refused(apierror.Forbidden, "POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","computeEnvId":"`+id+`"}}`)
	for _, ce := range list(f.OK("GET", "/compute-envs", "").Body, "computeEnvs") {
		if get(ce, "id") == id {
			t.Error("a deleted compute environment is still listed")
		}
	}
}

// Records in a workspace are found with its id and not without it.
func TestWorkspaces(t *testing.T) {
	f := newFixture(t, embeddedDoc(t))
	personal := list(f.OK("GET", "/pipelines", "").Body, "pipelines")
	inWS := list(f.OK("GET", "/pipelines?workspaceId=2001", "").Body, "pipelines")
	if len(inWS) == 0 {
		t.Fatal("no seeded pipeline in workspace 2001")
	}
	for _, p := range personal {
		if get(p, "pipelineId") == get(inWS[0], "pipelineId") {
			t.Error("a workspace's pipeline is listed in the personal context")
		}
	}
	id := fmt.Sprint(get(inWS[0], "pipelineId"))
	f.OK("GET", "/pipelines/"+id+"?workspaceId=2001", "")
	f.Refused(apierror.Forbidden, "GET", "/pipelines/"+id+"?workspaceId=9", "")

	wsRun, _ := f.OK("POST", "/workflow/launch?workspaceId=2001", `{"launch":{"pipeline":"p"}}`).Body["workflowId"].(string)
	f.OK("GET", "/workflow/"+wsRun+"?workspaceId=2001", "")
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+wsRun+"?workspaceId=9", "")
	if orgs := list(f.OK("GET", "/orgs", "").Body, "organizations"); len(orgs) == 0 {
		t.Log("no seeded organization in this document's seed")
	}
}
