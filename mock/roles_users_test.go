package mock_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// TestRolesAndUsersAnswerForWhatAnswersName checks, on the published
// schema, that the role names answers show are roles the fake lists and
// describes (the WspRole enum's predefined roles), and that the user every
// userId names describes as /user-info shows it, with the id asked for,
// while another id names nobody.
func TestRolesAndUsersAnswerForWhatAnswersName(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("first calls on the published schema: .ci/run runs it without -race")
	}
	doc := published(t)
	srv, _ := newServer(t, doc)
	h := srv.Handler()
	getJSON := func(target string) (int, map[string]any) {
		t.Helper()
		a := call(t, h, "GET", "/api"+target, devToken, nil)
		var v map[string]any
		if a.status == 200 {
			if err := json.Unmarshal(a.body, &v); err != nil {
				t.Fatalf("GET %s: %v", target, err)
			}
		}
		return a.status, v
	}

	proxy, ok := doc.Model.Components.Schemas.Get("WspRole")
	if !ok {
		t.Fatal("the published schema has no WspRole")
	}
	var predefined []string
	for _, n := range proxy.Schema().Enum {
		predefined = append(predefined, n.Value)
	}
	st, v := getJSON("/roles?orgId=1001&max=100")
	if st != 200 {
		t.Fatalf("GET /roles: %d", st)
	}
	listed := map[string]bool{}
	for _, e := range v["roles"].([]any) {
		r := e.(map[string]any)
		listed[fmt.Sprint(r["name"])] = r["isPredefined"] == true
	}
	for _, name := range predefined {
		if !listed[name] {
			t.Errorf("GET /roles does not list the predefined role %q (lists %v)", name, listed)
		}
		st, d := getJSON("/roles/" + name + "?orgId=1001")
		role, _ := d["role"].(map[string]any)
		if st != 200 || role["name"] != name {
			t.Errorf("GET /roles/%s: %d, describes %v", name, st, role["name"])
		}
	}
	st, v = getJSON("/orgs/1001/workspaces/2001/participants")
	if st != 200 {
		t.Fatalf("GET participants: %d", st)
	}
	shown := 0
	for _, e := range v["participants"].([]any) {
		if r, ok := e.(map[string]any)["wspRole"].(string); ok {
			shown++
			if _, ok := listed[r]; !ok || !slices.Contains(predefined, r) {
				t.Errorf("a participant's wspRole %q is no role /roles lists", r)
			}
		}
	}
	if shown == 0 {
		t.Error("no participant shows a wspRole")
	}

	_, info := getJSON("/user-info")
	id := fmt.Sprint(info["user"].(map[string]any)["id"])
	st, d := getJSON("/users/" + id)
	if got := fmt.Sprint(d["user"].(map[string]any)["id"]); st != 200 || got != id {
		t.Errorf("GET /users/%s: %d, describes user %s", id, st, got)
	}
	for _, k := range []string{"userName", "email", "firstName", "lastName"} {
		if want, got := info["user"].(map[string]any)[k], d["user"].(map[string]any)[k]; got != want {
			t.Errorf("GET /users/%s shows %s %v, /user-info %v", id, k, got, want)
		}
	}
	if a := call(t, h, "GET", "/api/users/9"+id, devToken, nil); a.status == 200 {
		t.Errorf("GET /users/9%s describes a user the fake does not hold: %.150s", id, a.body)
	}
}
