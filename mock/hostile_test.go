package mock_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// launchRun starts a run on the embedded document and returns its id.
func launchRun(t *testing.T, h http.Handler, name string) string {
	t.Helper()
	a := call(t, h, "POST", "/api/workflow/launch", devToken,
		[]byte(`{"launch":{"pipeline":"https://github.com/nextflow-io/hello","runName":"`+name+`"}}`))
	if a.status != 200 {
		t.Fatalf("launch: %d %s", a.status, a.body)
	}
	var out struct{ WorkflowID string }
	if err := json.Unmarshal(a.body, &out); err != nil || out.WorkflowID == "" {
		t.Fatalf("launch answer %s: %v", a.body, err)
	}
	return out.WorkflowID
}

func runStatus(t *testing.T, h http.Handler, id string) string {
	t.Helper()
	a := call(t, h, "GET", "/api/workflow/"+id, devToken, nil)
	if a.status != 200 {
		t.Fatalf("describe %s: %d %s", id, a.status, a.body)
	}
	var out struct{ Workflow struct{ Status string } }
	if err := json.Unmarshal(a.body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Workflow.Status
}

// An encoded slash is part of its segment, never a separator: the escaped
// path is what the client sent, and routing on the decoded one would let
// "%2F" reach operations the client did not name.
func TestEncodedSlashIsNotASeparator(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	h := srv.Handler()
	id := launchRun(t, h, "encoded-slash")

	for _, tc := range []struct{ method, target string }{
		{"GET", "/api%2Fworkflow"},
		{"GET", "/api%2fworkflow"},
		{"POST", "/api/workflow/" + id + "%2Fcancel"},
		{"GET", "/api/workflow/" + id + "%2Fprogress"},
		{"DELETE", "/api/workflow/" + id + "%2F"},
		{"GET", "/_mock%2Fhealth"},
	} {
		a := call(t, h, tc.method, tc.target, devToken, nil)
		if a.status != 403 || len(a.body) != 0 {
			t.Errorf("%s %s = %d %.120q; want the unknown-route/missing-resource 403 with no body", tc.method, tc.target, a.status, a.body)
		}
	}
	if got := runStatus(t, h, id); got == "CANCELLED" {
		t.Fatalf("run was cancelled through an encoded slash")
	}
	// The plain paths still work, so the 403s above are about the escape.
	if a := call(t, h, "GET", "/api/workflow", devToken, nil); a.status != 200 {
		t.Fatalf("GET /api/workflow = %d", a.status)
	}
	if a := call(t, h, "POST", "/api/workflow/"+id+"/cancel", devToken, nil); a.status != 204 {
		t.Fatalf("cancel = %d %s", a.status, a.body)
	}
	if got := runStatus(t, h, id); got != "CANCELLED" {
		t.Fatalf("status after a real cancel = %s", got)
	}
}

// Escaped characters that are not slashes still decode into the
// parameter, so an id sent escaped finds its resource.
func TestEscapedParameterDecodes(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	h := srv.Handler()
	id := launchRun(t, h, "escaped-id")
	escaped := ""
	for _, c := range []byte(id) {
		escaped += "%" + string("0123456789ABCDEF"[c>>4]) + string("0123456789ABCDEF"[c&15])
	}
	if a := call(t, h, "GET", "/api/workflow/"+escaped, devToken, nil); a.status != 200 {
		t.Fatalf("GET of a fully escaped id = %d %s", a.status, a.body)
	}
}

// Two Authorization headers make a request ambiguous: it gets the
// unauthenticated reply whichever order the tokens come in, and is not
// served.
func TestTwoAuthorizationHeadersAreRefused(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	h := srv.Handler()
	id := launchRun(t, h, "two-auth")
	for _, order := range [][2]string{{devToken, "nobody-has-this"}, {"nobody-has-this", devToken}, {devToken, devToken}} {
		req := httptest.NewRequest("POST", "/api/workflow/"+id+"/cancel", nil)
		req.Header.Add("Authorization", "Bearer "+order[0])
		req.Header.Add("Authorization", "Bearer "+order[1])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 403 || rec.Body.Len() != 0 {
			t.Errorf("tokens %v: %d %q, want 403 with no body", order, rec.Code, rec.Body.String())
		}
	}
	if got := runStatus(t, h, id); got == "CANCELLED" {
		t.Fatal("a request with two Authorization headers cancelled the run")
	}
}

// A query that cannot be decoded is a Bad Request with an Error ID, not a
// query with the bad pair silently dropped.
func TestUndecodableQueryIsBadRequest(t *testing.T) {
	for _, d := range documents {
		t.Run(d.name, func(t *testing.T) {
			srv, _ := newServer(t, d.doc(t))
			h := srv.Handler()
			for _, target := range []string{
				"/api/workflow?max=%zz",
				"/api/workflow?max=5;offset=1",
				"/api/workflow?search=%",
				"/api/workflow?%gg=1",
			} {
				a := call(t, h, "GET", target, devToken, nil)
				if a.status != 400 {
					t.Errorf("GET %s = %d %.120q, want 400", target, a.status, a.body)
					continue
				}
				errorID(t, a)
			}
			if a := call(t, h, "GET", "/api/workflow?max=5&offset=1", devToken, nil); a.status != 200 {
				t.Errorf("a well-formed query = %d %s", a.status, a.body)
			}
		})
	}
}
