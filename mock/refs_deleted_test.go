package mock_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// TestDeletedItemsAreNotNamed creates items after start (compute
// environments and credentials, in the personal context and the seeded
// workspace), walks the account and finds answers naming them, deletes
// the named ones and a finished run the answers name most, lets a deleting
// item's time pass, and walks again: every reference still resolves, and
// none names a deleted item, though the first walk filled the answer
// caches.
func TestDeletedItemsAreNotNamed(t *testing.T) {
	onDocuments(t, "two whole-schema walks: .ci/run runs it without -race", deletedNotNamed)
}

// createdForRefs are items a test creates in both documents' shapes.
var createdForRefs = []struct{ path, body, idProp string }{
	{"/compute-envs", `{"computeEnv":{"name":"late-%d","platform":"aws-batch","config":{"region":"eu-west-1","workDir":"s3://b/w"}}}`, "computeEnvId"},
	{"/credentials", `{"credentials":{"name":"late-%d","provider":"aws","keys":{"accessKey":"AKIA","secretKey":"s"}}}`, "credentialsId"},
}

func deletedNotNamed(t *testing.T, doc *spec.Document) {
	srv, clk := newServer(t, doc, mock.WithStrictResponses())
	h := srv.Handler()
	created := map[string]map[string]string{} // param -> id -> the query that scopes it
	n := 0
	for _, c := range createdForRefs {
		for _, q := range []string{"", "?workspaceId=2001"} {
			for range 2 {
				n++
				a := call(t, h, "POST", "/api"+c.path+q, devToken, []byte(fmt.Sprintf(c.body, n)))
				var v map[string]any
				if a.status/100 != 2 || json.Unmarshal(a.body, &v) != nil || v[c.idProp] == nil {
					t.Fatalf("POST %s%s: %d %.200s", c.path, q, a.status, a.body)
				}
				if created[c.idProp] == nil {
					created[c.idProp] = map[string]string{}
				}
				created[c.idProp][fmt.Sprint(v[c.idProp])] = q
			}
		}
	}
	paths := references(doc).paths
	type ref struct{ param, id string }
	counts := map[ref]int{}
	walkAccount(t, doc, h, func(param, id, target string) { counts[ref{param, id}]++ })
	if t.Failed() {
		return
	}
	deleted := map[ref]bool{}
	for r := range counts {
		if q, ok := created[r.param][r.id]; ok {
			if a := call(t, h, "DELETE", "/api"+fillOne(paths[r.param], r.param, r.id)+q, devToken, nil); a.status/100 != 2 {
				t.Fatalf("DELETE %s %s: %d %.150s", r.param, r.id, a.status, a.body)
			}
			deleted[r] = true
		}
	}
	if len(deleted) == 0 {
		t.Fatalf("no answer names any of the items created after start: %v", created)
	}
	// The finished run answers name most.
	var run ref
	for r, c := range counts {
		if r.param == "workflowId" && (c > counts[run] || c == counts[run] && r.id < run.id) && strings.Contains(r.id, "Succeeded") {
			run = r
		}
	}
	if run.id != "" {
		if a := call(t, h, "DELETE", "/api/workflow/"+run.id, devToken, nil); a.status/100 == 2 {
			deleted[run] = true
		} else {
			t.Logf("DELETE /workflow/%s: %d %.150s", run.id, a.status, a.body)
		}
	}
	t.Logf("deleted %v", deleted)
	clk.Advance(time.Hour) // past a deleting compute environment's time
	walkAccount(t, doc, h, func(param, id, target string) {
		if deleted[ref{param, id}] {
			t.Errorf("%s = %s names a deleted item (%s)", param, id, target)
		}
	})
}

// fillOne puts id into the template's parameter param.
func fillOne(template, param, id string) string {
	return strings.Replace(template, "{"+param+"}", url.PathEscape(id), 1)
}
