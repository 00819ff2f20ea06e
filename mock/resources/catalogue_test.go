package resources

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/catalogue"
)

// The service's own sets come from its catalogue: the permissions a role
// can grant (a custom role naming real ones is made, one naming another is
// refused), what each predefined role holds and says of itself, the
// platforms' names and regions; nothing there is a made-up word.
func TestCataloguesAreTheService(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	perms := list(f.OK("GET", "/roles/permissions?orgId=1001", "").Body, "permissions")
	var names []string
	for _, p := range perms {
		names = append(names, fmt.Sprint(get(p, "name")))
	}
	if len(perms) != len(catalogue.Permissions()) || !slices.Contains(names, "pipeline:read") || !slices.Contains(names, "workflow:execute") {
		t.Errorf("GET /roles/permissions lists %v", names)
	}
	f.OK("POST", "/roles?orgId=1001", `{"name":"runner","description":"Runs pipelines","permissions":["pipeline:read","workflow:execute"]}`)
	role := f.OK("GET", "/roles/runner?orgId=1001", "").Body
	if fmt.Sprint(get(role, "role.permissions")) != "[pipeline:read workflow:execute]" || get(role, "role.description") != "Runs pipelines" ||
		get(role, "role.isPredefined") != false {
		t.Errorf("the custom role reads back as %v", get(role, "role"))
	}
	f.Refused(apierror.BadRequest, "POST", "/roles?orgId=1001", `{"name":"odd","description":"x","permissions":["eager_kepler"]}`)

	view := f.OK("GET", "/roles/view?orgId=1001", "").Body
	if want, _ := catalogue.RoleDescription("view"); get(view, "role.description") != want {
		t.Errorf("role view: description %v, want %q", get(view, "role.description"), want)
	}
	if got := get(view, "role.permissions"); fmt.Sprint(got) != fmt.Sprint(catalogue.RolePermissions("view")) {
		t.Errorf("role view holds %v, want %v", got, catalogue.RolePermissions("view"))
	}
	for _, p := range list(f.OK("GET", "/platforms", "").Body, "platforms") {
		id := fmt.Sprint(get(p, "id"))
		if want := catalogue.PlatformName(id); fmt.Sprint(get(p, "name")) != want && !(want == "" && get(p, "name") == nil) {
			t.Errorf("platform %s: name %v, want %q", id, get(p, "name"), want)
		}
	}
	regions := list(f.OK("GET", "/platforms/aws-batch/regions", "").Body, "regions")
	if len(regions) != len(catalogue.Regions("aws-batch")) || get(regions[0], "id") != "us-east-1" {
		t.Errorf("aws-batch regions: %v", regions)
	}
}
