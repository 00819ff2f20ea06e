package schemadiff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/conformance/schemadiff"
	"github.com/wmsmock/wmsmock/mock"
)

// TestScenariosAffected runs the token scenarios against the fake on the
// embedded document, then compares that document with two edits of it.
// Removing a field of the access token (returned by the token list and the
// token creation) names every scenario that called one of those
// operations; removing a pipeline field, which no token scenario reads,
// names none. The scenarios' operations come from the run, and survive
// being saved as JSON and read back.
func TestScenariosAffected(t *testing.T) {
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: inprocess.New(inprocess.Options{}),
		Tags:   "@tokens",
		Output: io.Discard,
	})
	if res == nil {
		t.Fatalf("the suite did not run: %v", err)
	}
	var saved bytes.Buffer
	if err := json.NewEncoder(&saved).Encode(res); err != nil {
		t.Fatal(err)
	}
	back, err := schemadiff.ReadResult(&saved)
	if err != nil {
		t.Fatal(err)
	}
	users := schemadiff.Scenarios(back)
	if len(users) == 0 {
		t.Fatal("no scenario of the run called an operation")
	}
	old := embedded(t)

	var tokenOps, pipelineOps map[string]bool
	tokens := edited(t, func(doc map[string]any) {
		delete(at(t, doc, "components", "schemas", "AccessToken", "properties"), "lastUsed")
		tokenOps = reaching(doc, "#/components/schemas/AccessToken")
	})
	pipelines := edited(t, func(doc map[string]any) {
		delete(at(t, doc, "components", "schemas", "PipelineDbDto", "properties"), "description")
		pipelineOps = reaching(doc, "#/components/schemas/PipelineDbDto")
	})

	want := map[string]bool{}
	for _, u := range users {
		for _, op := range u.Operations {
			if tokenOps[op] {
				want[u.Name] = true
			}
			if pipelineOps[op] {
				t.Fatalf("scenario %q calls %s, which the pipeline edit changes: the test needs a pair with no relevant change", u.Name, op)
			}
		}
	}
	if len(want) == 0 {
		t.Fatalf("no token scenario calls %v", tokenOps)
	}

	imp := compare(t, old, tokens, nil).Affect("run", users, schemadiff.Review)
	got := map[string]bool{}
	for _, a := range imp.Affected {
		got[a.Name] = true
		for _, c := range a.Changes {
			if !tokenOps[c.Operation.Key()] || c.Severity != schemadiff.Breaking {
				t.Errorf("%s: unexpected change %+v", a.Name, c)
			}
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("affected %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	if imp.Checked != len(users) {
		t.Errorf("checked %d of %d", imp.Checked, len(users))
	}

	rep := compare(t, old, pipelines, nil)
	if rep.Counts.Breaking == 0 {
		t.Fatalf("the pipeline edit broke nothing: %+v", rep.Counts)
	}
	if imp := rep.Affect("run", users, schemadiff.Review); len(imp.Affected) != 0 {
		t.Errorf("a pipeline change affects %+v", imp.Affected)
	}
}

// TestJournalCallsAffected: the fake's request journal, as its admin API
// exports it, names the user's calls a change reaches, routed by
// operationId or by path under the base path; a call the fake routed to
// no operation is counted apart.
func TestJournalCallsAffected(t *testing.T) {
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	call := func(method, path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Authorization", "Bearer "+mock.DevToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, p := range []string{"/api/tokens", "/api/workflow", "/api/tokens", "/api/no-such-thing"} {
		call(http.MethodGet, p)
	}
	w := call(http.MethodGet, "/_mock/admin/requests")
	if w.Code != http.StatusOK {
		t.Fatalf("journal: %d %s", w.Code, w.Body)
	}
	reqs, err := schemadiff.ReadJournal(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	// The same calls without the operation the fake routed them to, as a
	// recording that knows only methods and paths would give them.
	bare := make([]schemadiff.Request, len(reqs))
	for i, r := range reqs {
		bare[i] = schemadiff.Request{Method: r.Method, Path: r.Path}
	}
	old := embedded(t)
	next := edited(t, func(doc map[string]any) {
		delete(at(t, doc, "components", "schemas", "AccessToken", "properties"), "lastUsed")
	})
	rep := compare(t, old, next, nil)
	for name, rs := range map[string][]schemadiff.Request{"journal": reqs, "paths only": bare} {
		users, unmatched := old.Requests(rs)
		imp := rep.Affect(name, users, schemadiff.Review)
		imp.Unmatched = unmatched
		if len(users) != 2 || unmatched != 1 {
			t.Errorf("%s: %d distinct calls and %d unmatched, want 2 and 1: %+v", name, len(users), unmatched, users)
		}
		if len(imp.Affected) != 1 || imp.Affected[0].Name != "GET /api/tokens" {
			t.Errorf("%s: affected %+v, want GET /api/tokens", name, imp.Affected)
		}
	}
}
