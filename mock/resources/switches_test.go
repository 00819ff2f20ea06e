package resources

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/mock/apierror"
)

// TestComputeEnvSwitches holds the compute environment's switches to what
// the Terraform provider reads back: a disabled environment describes as
// DISABLED (seqera_compute_env_enabled reads enabled as status !=
// DISABLED) until it is enabled, and a disable unsets primary; primary
// moves from one environment to the next.
func TestComputeEnvSwitches(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	create := func(name string) string {
		body := fmt.Sprintf(`{"computeEnv":{"name":%q,"platform":"aws-batch","config":{"region":"eu-west-1","workDir":"s3://b/w"}}}`, name)
		return fmt.Sprint(f.OK("POST", "/compute-envs", body).Body["computeEnvId"])
	}
	a, b := create("ce-a"), create("ce-b")
	f.clk.Advance(f.prof.ComputeEnvs.CreatingFor)
	read := func(id string) (status, primary any) {
		ce := f.OK("GET", "/compute-envs/"+id, "").Body
		return get(ce, "computeEnv.status"), get(ce, "computeEnv.primary")
	}

	f.OK("POST", "/compute-envs/"+a+"/primary", `{}`)
	if _, p := read(a); p != true {
		t.Errorf("after primary: %s primary = %v, want true", a, p)
	}
	f.OK("POST", "/compute-envs/"+b+"/primary", `{}`)
	if _, p := read(a); p == true {
		t.Errorf("%s is still primary after %s was made primary", a, b)
	}
	if _, p := read(b); p != true {
		t.Errorf("after primary: %s primary = %v, want true", b, p)
	}

	f.OK("POST", "/compute-envs/"+b+"/disable", `{}`)
	if s, p := read(b); s != "DISABLED" || p == true {
		t.Errorf("disabled: status %v, primary %v; want DISABLED and not primary", s, p)
	}
	for _, e := range list(f.OK("GET", "/compute-envs", "").Body, "computeEnvs") {
		if fmt.Sprint(get(e, "id")) == b && get(e, "status") != "DISABLED" {
			t.Errorf("the list shows the disabled environment as %v", get(e, "status"))
		}
	}
	f.Refused(apierror.BadRequest, "POST", "/compute-envs/"+b+"/primary", `{}`)
	f.OK("POST", "/compute-envs/"+b+"/enable", `{}`)
	if s, _ := read(b); s != "AVAILABLE" {
		t.Errorf("enabled again: status %v, want AVAILABLE", s)
	}
	f.Refused(apierror.Forbidden, "POST", "/compute-envs/nosuchce/disable", `{}`)
}
