package resources

import (
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
)

// Tokens: created ones list and delete; names are unique; delete-all
// leaves the configured (pinned) ones.
func TestTokens(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	before := len(list(f.OK("GET", "/tokens", "").Body, "tokens"))
	created := f.OK("POST", "/tokens", `{"name":"ci"}`).Body
	if v, _ := created["accessKey"].(string); v == "" {
		t.Fatalf("create answered %v", created)
	}
	if tok, ok, err := f.tokens.Lookup(created["accessKey"].(string)); err != nil || !ok || tok.Name != "ci" {
		t.Error("the created value does not authenticate")
	}
	if n := len(list(f.OK("GET", "/tokens", "").Body, "tokens")); n != before+1 {
		t.Errorf("%d tokens after a create, want %d", n, before+1)
	}
	f.Refused(apierror.Conflict, "POST", "/tokens", `{"name":"ci"}`)
	f.Refused(apierror.BadRequest, "POST", "/tokens", `{"name":"  "}`)
	f.Refused(apierror.BadRequest, "POST", "/tokens", `[1]`)
	id := fmt.Sprint(get(created, "token.id"))
	f.OK("DELETE", "/tokens/"+id, "")
	f.Refused(apierror.Forbidden, "DELETE", "/tokens/"+id, "")
	f.Refused(apierror.BadRequest, "DELETE", "/tokens/abc", "")

	f.OK("POST", "/tokens", `{"name":"a"}`)
	f.OK("POST", "/tokens", `{"name":"b"}`)
	f.OK("DELETE", "/tokens/delete-all", "")
	left, err := f.tokens.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range left {
		if !tok.Pinned {
			t.Errorf("delete-all left %s", tok.Name)
		}
	}
	if _, ok, _ := f.tokens.Lookup(auth.DevToken); !ok {
		t.Error("delete-all removed the dev token")
	}
}

// The seeded user answers user-info; without one the answer is synthesized.
func TestUserInfo(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	if name := get(f.OK("GET", "/user-info", "").Body, "user.userName"); name != "wmsmock" {
		t.Errorf("user-info: %v", name)
	}
	empty := newFixture(t, embeddedDoc(t), false)
	empty.OK("GET", "/user-info", "")
	if empty.Synthd != 1 {
		t.Error("user-info without a seeded user was not synthesized")
	}
}

// A generic collection: create, list, describe, update, delete, with
// unique names and 403 for what is not there.
func TestCollectionLifecycle(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	before := len(list(f.OK("GET", "/pipelines", "").Body, "pipelines"))
	created := f.OK("POST", "/pipelines", `{"name":"new-pipe","repository":"https://github.com/nf-core/viralrecon","description":"d"}`).Body
	id := fmt.Sprint(get(created, "pipeline.pipelineId"))
	if id == "<nil>" {
		t.Fatalf("create answered %v", created)
	}
	if got := list(f.OK("GET", "/pipelines", "").Body, "pipelines"); len(got) != before+1 || get(got[0], "name") != "new-pipe" {
		t.Errorf("after a create: %d pipelines, first %v; want the new one first", len(got), get(got[0], "name"))
	}
	if got := get(f.OK("GET", "/pipelines/"+id, "").Body, "pipeline.name"); got != "new-pipe" {
		t.Errorf("describe: %v", got)
	}
	f.Refused(apierror.Conflict, "POST", "/pipelines", `{"name":"new-pipe","repository":"r"}`)
	f.OK("PUT", "/pipelines/"+id, `{"name":"renamed","description":"e"}`)
	if got := get(f.OK("GET", "/pipelines/"+id, "").Body, "pipeline.name"); got != "renamed" {
		t.Errorf("after the update: %v", got)
	}
	if got := list(f.OK("GET", "/pipelines?search=renamed", "").Body, "pipelines"); len(got) != 1 {
		t.Errorf("search: %d", len(got))
	}
	f.OK("DELETE", "/pipelines/"+id, "")
	f.Refused(apierror.Forbidden, "GET", "/pipelines/"+id, "")
	f.Refused(apierror.Forbidden, "PUT", "/pipelines/"+id, `{"name":"x"}`)
	f.Refused(apierror.Forbidden, "DELETE", "/pipelines/"+id, "")
	f.Refused(apierror.Forbidden, "GET", "/pipelines/999999", "")
}
