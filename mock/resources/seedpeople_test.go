package resources

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSeededPeopleHangTogether holds the seeded account's people to one
// identity each: the organization's first member is the caller that
// user-info shows, as owner; every other member is someone else, whose
// e-mail is made from their user name; a participant of type MEMBER and a
// team's member are organization members, with that member's name and
// e-mail, and a member participant names no team.
func TestSeededPeopleHangTogether(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	user := f.OK("GET", "/user-info", "").Body["user"]
	members := list(f.OK("GET", "/orgs/1001/members", "").Body, "members")
	if len(members) < 2 {
		t.Fatalf("the seeded organization has %d members, want at least 2", len(members))
	}
	byID := map[string]any{}
	for _, m := range members {
		byID[fmt.Sprint(get(m, "memberId"))] = m
	}
	caller := 0
	for i, m := range members {
		if get(m, "userId") == get(user, "id") {
			caller = i
		}
	}
	for mk, uk := range map[string]string{"userId": "id", "userName": "userName", "email": "email", "firstName": "firstName", "lastName": "lastName"} {
		if get(members[caller], mk) != get(user, uk) {
			t.Errorf("the caller's membership: %s = %v, user-info says %v", mk, get(members[caller], mk), get(user, uk))
		}
	}
	if get(members[caller], "role") != "owner" {
		t.Errorf("the caller's role in the seeded organization: %v, want owner", get(members[caller], "role"))
	}
	seen := map[string]bool{}
	for i, m := range members {
		email, name := fmt.Sprint(get(m, "email")), fmt.Sprint(get(m, "userName"))
		uid := "user " + fmt.Sprint(get(m, "userId"))
		if get(m, "userId") == nil {
			uid = "" // not known: the fake describes one user
		}
		if seen[email] || uid != "" && seen[uid] {
			t.Errorf("member %v shares an e-mail or user id with another", m)
		}
		seen[email], seen[uid] = true, uid != ""
		if i != caller && !strings.HasPrefix(email, name+"@") {
			t.Errorf("member %v: e-mail %s is not made from user name %s", get(m, "memberId"), email, name)
		}
	}

	sameAsMember := func(what string, e any) {
		m, ok := byID[fmt.Sprint(get(e, "memberId"))]
		if !ok {
			t.Errorf("%s names member %v, who is not in the organization", what, get(e, "memberId"))
			return
		}
		for _, k := range []string{"email", "userName", "firstName", "lastName"} {
			if get(e, k) != get(m, k) {
				t.Errorf("%s: %s = %v, the member's is %v", what, k, get(e, k), get(m, k))
			}
		}
	}
	parts := list(f.OK("GET", "/orgs/1001/workspaces/2001/participants", "").Body, "participants")
	if len(parts) == 0 {
		t.Fatal("the seeded workspace has no participants")
	}
	for _, p := range parts {
		if get(p, "type") != "MEMBER" {
			continue
		}
		sameAsMember("participant "+fmt.Sprint(get(p, "participantId")), p)
		if get(p, "teamId") != nil || get(p, "teamName") != nil {
			t.Errorf("member participant %v names team %v", get(p, "participantId"), get(p, "teamName"))
		}
	}
	teams := 0
	for _, team := range list(f.OK("GET", "/orgs/1001/teams", "").Body, "teams") {
		for _, m := range list(f.OK("GET", fmt.Sprintf("/orgs/1001/teams/%v/members", get(team, "teamId")), "").Body, "members") {
			teams++
			sameAsMember(fmt.Sprintf("team %v member", get(team, "teamId")), m)
		}
	}
	if teams == 0 {
		t.Error("no seeded team has members")
	}
}

// TestSeededDatesFallInLife holds a seeded item's made-up dates to its
// life: a compute environment is not last used before it was created.
func TestSeededDatesFallInLife(t *testing.T) {
	f := newFixture(t, publishedDoc(t), true)
	for _, e := range list(f.OK("GET", "/compute-envs?workspaceId=2001", "").Body, "computeEnvs") {
		ce := f.OK("GET", fmt.Sprintf("/compute-envs/%v?workspaceId=2001", get(e, "id")), "").Body["computeEnv"]
		created, err := time.Parse(time.RFC3339, fmt.Sprint(get(ce, "dateCreated")))
		if err != nil {
			t.Fatalf("compute environment %v: dateCreated %v", get(e, "id"), get(ce, "dateCreated"))
		}
		for _, k := range []string{"lastUsed", "lastUpdated"} {
			if at, err := time.Parse(time.RFC3339, fmt.Sprint(get(ce, k))); err == nil && at.Before(created) {
				t.Errorf("compute environment %v: %s %s is before it was created (%s)", get(e, "id"), k, get(ce, k), get(ce, "dateCreated"))
			}
		}
	}
}
