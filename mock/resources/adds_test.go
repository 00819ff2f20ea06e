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
	p := f.OK("PUT", base+"/add", `{"userNameOrEmail":"bob@example.com"}`).Body["participant"]
	for k, want := range map[string]any{"email": "bob@example.com", "type": "COLLABORATOR", "wspRole": "launch", "userName": nil, "firstName": nil} {
		if got := get(p, k); got != want {
			t.Errorf("added by e-mail: %s = %v, want %v", k, got, want)
		}
	}
	id := fmt.Sprint(get(p, "participantId"))
	f.Refused(apierror.Conflict, "PUT", base+"/add", `{"userNameOrEmail":"bob@example.com"}`)
	f.OK("PUT", base+"/"+id+"/role", `{"role":"maintain"}`)
	found := 0
	for _, e := range list(f.OK("GET", base, "").Body, "participants") {
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
	if l := list(f.OK("GET", base+"?search=bob@example.com", "").Body, "participants"); len(l) != 1 || get(l[0], "email") != "bob@example.com" {
		t.Errorf("a search by e-mail finds %v", l)
	}

	// A member of the organization who is not yet a participant (the
	// seeded members all are).
	m := f.OK("PUT", "/orgs/1001/members/add", `{"user":"carol@example.org"}`).Body["member"]
	added := f.OK("PUT", base+"/add", fmt.Sprintf(`{"memberId":%v}`, get(m, "memberId"))).Body["participant"]
	for k, mk := range map[string]string{"email": "email", "userName": "userName", "firstName": "firstName", "orgRole": "role"} {
		if get(added, k) != get(m, mk) {
			t.Errorf("added by memberId: %s = %v, the member's %s is %v", k, get(added, k), mk, get(m, mk))
		}
	}
	if get(added, "type") != "MEMBER" {
		t.Errorf("added by memberId: type %v, want MEMBER", get(added, "type"))
	}
}

// TestTeamMembersAreOrganizationMembers holds a team's members (which the
// published schema lists and adds at .../teams/{teamId}/members and
// removes at .../members/{memberId}/delete, with no describe) to what the
// Terraform provider's seqera_team_member reads back: the member added by
// e-mail is the organization's member of that e-mail, under its id, listed
// once and found by that e-mail; someone outside the organization cannot
// join (a Bad Request); a removed member leaves the team, not the organization.
func TestTeamMembersAreOrganizationMembers(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	m := f.OK("PUT", "/orgs/1001/members/add", `{"user":"ada@example.org"}`).Body["member"]
	memberID := fmt.Sprint(get(m, "memberId"))
	team := f.OK("POST", "/orgs/1001/teams", `{"team":{"name":"bioinformatics"}}`).Body
	base := fmt.Sprintf("/orgs/1001/teams/%v/members", get(team, "team.teamId"))
	if l := list(f.OK("GET", base, "").Body, "members"); len(l) != 0 {
		t.Errorf("a new team lists members nobody added: %v", l)
	}

	added := f.OK("POST", base, `{"userNameOrEmail":"ada@example.org"}`).Body["member"]
	if got := fmt.Sprint(get(added, "memberId")); got != memberID {
		t.Errorf("added to the team as member %s, the organization's member is %s", got, memberID)
	}
	if get(added, "email") != "ada@example.org" {
		t.Errorf("added to the team: email %v", get(added, "email"))
	}
	// Nobody wrote the member's names: null, here as in the organization;
	// the role is the organization member's own, copied, not made up.
	for _, k := range []string{"firstName", "lastName", "userName"} {
		if get(added, k) != nil {
			t.Errorf("added to the team: %s = %v, nobody wrote it", k, get(added, k))
		}
	}
	if get(added, "role") != get(m, "role") {
		t.Errorf("added to the team: role %v, the organization's member has %v", get(added, "role"), get(m, "role"))
	}
	f.Refused(apierror.Conflict, "POST", base, `{"userNameOrEmail":"ada@example.org"}`)
	f.Refused(apierror.BadRequest, "POST", base, `{"userNameOrEmail":"nobody@example.org"}`)

	l := list(f.OK("GET", base+"?search=ada@example.org", "").Body, "members")
	if len(l) != 1 || get(l[0], "email") != "ada@example.org" || fmt.Sprint(get(l[0], "memberId")) != memberID {
		t.Errorf("the team's members searched by e-mail: %v", l)
	}

	f.OK("DELETE", base+"/"+memberID+"/delete", "")
	if l := list(f.OK("GET", base, "").Body, "members"); len(l) != 0 {
		t.Errorf("after the removal the team lists %v", l)
	}
	f.Refused(apierror.Forbidden, "DELETE", base+"/"+memberID+"/delete", "")
	found := false
	for _, e := range list(f.OK("GET", "/orgs/1001/members", "").Body, "members") {
		found = found || fmt.Sprint(get(e, "memberId")) == memberID
	}
	if !found {
		t.Error("leaving the team took the member out of the organization")
	}
}
