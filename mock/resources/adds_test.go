package resources

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/mock/apierror"
)

// A participant added by e-mail is that person, with the default role the
// service gives, and is in the participants list afterwards, once; a
// second add of the same is a conflict; a role set reads back; a member
// added by id is that member, as the members list shows them.
func TestParticipantsAddAndRole(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	const base = "/orgs/1001/workspaces/2001/participants"
	p := f.ok("PUT", base+"/add", `{"userNameOrEmail":"bob@example.com"}`).body["participant"]
	for k, want := range map[string]any{"email": "bob@example.com", "type": "COLLABORATOR", "wspRole": "launch", "userName": nil, "firstName": nil} {
		if got := get(p, k); got != want {
			t.Errorf("added by e-mail: %s = %v, want %v", k, got, want)
		}
	}
	id := fmt.Sprint(get(p, "participantId"))
	f.refused(apierror.Conflict, "PUT", base+"/add", `{"userNameOrEmail":"bob@example.com"}`)
	f.ok("PUT", base+"/"+id+"/role", `{"role":"maintain"}`)
	found := 0
	for _, e := range list(f.ok("GET", base, "").body, "participants") {
		if get(e, "email") == "bob@example.com" {
			found++
			if get(e, "wspRole") != "maintain" || fmt.Sprint(get(e, "participantId")) != id {
				t.Errorf("listed as %v, want participant %s with role maintain", e, id)
			}
		}
	}
	if found != 1 {
		t.Errorf("the participant added by e-mail is listed %d times, want once", found)
	}
	// Found again by e-mail, as the Terraform provider looks it up.
	if l := list(f.ok("GET", base+"?search=bob@example.com", "").body, "participants"); len(l) != 1 || get(l[0], "email") != "bob@example.com" {
		t.Errorf("a search by e-mail finds %v", l)
	}

	members := list(f.ok("GET", "/orgs/1001/members", "").body, "members")
	if len(members) == 0 {
		t.Fatal("the seeded organization has no members")
	}
	m := members[0]
	added := f.ok("PUT", base+"/add", fmt.Sprintf(`{"memberId":%v}`, get(m, "memberId"))).body["participant"]
	for k, mk := range map[string]string{"email": "email", "userName": "userName", "firstName": "firstName", "orgRole": "role"} {
		if get(added, k) != get(m, mk) {
			t.Errorf("added by memberId: %s = %v, the member's %s is %v", k, get(added, k), mk, get(m, mk))
		}
	}
	if get(added, "type") != "MEMBER" {
		t.Errorf("added by memberId: type %v, want MEMBER", get(added, "type"))
	}
}
