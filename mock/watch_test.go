package mock_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
)

// TestWatchURLShowsTheRun: the watchUrl the fake gives Nextflow (and which
// Nextflow prints for the user to open) answers the run as JSON to a
// browser without a token, for a personal run and one in a workspace;
// other methods, and other paths of that shape, are the API's unknown
// routes as before.
func TestWatchURLShowsTheRun(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	defer srv.Close()
	h := srv.Handler()
	for _, ws := range []string{"", "?workspaceId=2001"} {
		created := call(t, h, "POST", "/api/trace/create"+ws, mock.DevToken, []byte(`{"runName":"watched","sessionId":"s-1","projectName":"nextflow-io/hello"}`))
		var c struct {
			WorkflowID string `json:"workflowId"`
			WatchURL   string `json:"watchUrl"`
		}
		if err := json.Unmarshal(created.body, &c); err != nil || created.status != 200 || c.WatchURL == "" {
			t.Fatalf("trace/create%s: %d %s", ws, created.status, created.body)
		}
		u, err := url.Parse(c.WatchURL)
		if err != nil {
			t.Fatal(err)
		}
		a := call(t, h, "GET", u.Path, "", nil)
		var run struct {
			Workflow struct {
				ID      string `json:"id"`
				RunName string `json:"runName"`
			} `json:"workflow"`
		}
		if err := json.Unmarshal(a.body, &run); err != nil || a.status != http.StatusOK || run.Workflow.ID != c.WorkflowID || run.Workflow.RunName != "watched" {
			t.Errorf("GET %s (watchUrl of a run created with %q): %d %s", u.Path, ws, a.status, a.body)
		}
		if p := call(t, h, "POST", u.Path, "", nil); p.status != http.StatusForbidden {
			t.Errorf("POST %s: %d, want the unknown route's 403", u.Path, p.status)
		}
	}
	for _, p := range []string{"/user/x/watch/", "/user/x/watch/a/b", "/users/x/watch/abc", "/api/user/x/watch/abc"} {
		if a := call(t, h, "GET", p, "", nil); a.status != http.StatusForbidden {
			t.Errorf("GET %s: %d, want 403", p, a.status)
		}
	}
}

// TestJournalSaysWhyACallWasRefused: a 403 has no Error ID to look up, so
// the request journal says why the call was refused.
func TestJournalSaysWhyACallWasRefused(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	defer srv.Close()
	h := srv.Handler()
	if a := call(t, h, "GET", "/api/workflow", "", nil); a.status != http.StatusForbidden {
		t.Fatalf("a call without a token: %d", a.status)
	}
	j := adminCall(t, h, "GET", "/_mock/admin/requests?n=1", "", nil)
	var got struct {
		Requests []struct {
			Status  int    `json:"status"`
			Reason  string `json:"reason"`
			ErrorID string `json:"errorId"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(j.body, &got); err != nil || len(got.Requests) != 1 {
		t.Fatalf("journal: %v %s", err, j.body)
	}
	if r := got.Requests[0]; r.Status != http.StatusForbidden || r.ErrorID != "" || r.Reason != "forbidden: authentication failed: missing" {
		t.Errorf("journal entry %+v: want the 403 with its reason", r)
	}
}
