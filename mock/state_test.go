package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// The state tests run every flow with strict responses: an answer the
// served document rejects becomes a 500, so a passing flow is a valid one.

func strictServer(t testing.TB, doc *spec.Document, opts ...mock.Option) (*mock.Server, *clock.Fake) {
	t.Helper()
	return newServer(t, doc, append([]mock.Option{mock.WithStrictResponses()}, opts...)...)
}

func object(t testing.TB, a answer) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %.300s", err, a.body)
	}
	return m
}

// ok fails the test unless the call got the wanted status; a 500 shows
// why, from the error journal.
func ok(t testing.TB, srv http.Handler, a answer, want int, what string) answer {
	t.Helper()
	if a.status != want {
		reason := ""
		if a.status == 500 {
			reason = string(call(t, srv, "GET", "/_mock/errors/"+errorID(t, a), "", nil).body)
		}
		t.Fatalf("%s: status %d, want %d: %.400s %s", what, a.status, want, a.body, reason)
	}
	return a
}

func path(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	return v
}

var workflowID = regexp.MustCompile(`^[0-9A-Za-z]{14}$`)

func launch(t testing.TB, srv http.Handler, runName, query string) string {
	t.Helper()
	body := fmt.Sprintf(`{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","runName":%q,"revision":"3.14.0"}}`, runName)
	a := ok(t, srv, call(t, srv, "POST", "/api/workflow/launch"+query, devToken, []byte(body)), 200, "launch")
	id, _ := object(t, a)["workflowId"].(string)
	if !workflowID.MatchString(id) {
		t.Fatalf("workflowId %q is not a short base62 id", id)
	}
	return id
}

func status(t testing.TB, srv http.Handler, id string) string {
	t.Helper()
	a := ok(t, srv, call(t, srv, "GET", "/api/workflow/"+id, devToken, nil), 200, "describe "+id)
	s, _ := path(object(t, a), "workflow", "status").(string)
	return s
}

// adminCall calls a control endpoint from loopback, with an optional
// Authorization header.
func adminCall(t testing.TB, h http.Handler, method, target, auth string, body []byte, remote ...string) answer {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	var req *http.Request
	if r != nil {
		req = httptest.NewRequest(method, target, r)
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.RemoteAddr = "127.0.0.1:40000"
	if len(remote) > 0 {
		req.RemoteAddr = remote[0]
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return answer{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// TestTokensAuthenticate: a created token works on the very next call,
// its value is shown once, a duplicate name is a 409, and a deleted token
// is refused (CONTRACT A2, A3).
func TestTokensAuthenticate(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"ci"}`)), 200, "create token")
			created := object(t, a)
			key, _ := created["accessKey"].(string)
			if key == "" {
				t.Fatalf("no accessKey in %s", a.body)
			}
			if name := path(created, "token", "name"); name != "ci" {
				t.Errorf("token.name = %v", name)
			}
			tokenID := int64(path(created, "token", "id").(float64))

			clk.Advance(time.Minute)
			ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow", key, nil), 200, "call with the new token")

			list := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/tokens", key, nil), 200, "list tokens")
			if bytes.Contains(list.body, []byte(key)) {
				t.Fatal("the token list shows a token value")
			}
			var found map[string]any
			for _, tok := range object(t, list)["tokens"].([]any) {
				if m := tok.(map[string]any); m["name"] == "ci" {
					found = m
				}
			}
			if found == nil {
				t.Fatalf("the new token is not listed: %s", list.body)
			}
			if found["lastUsed"] != epoch.Add(time.Minute).Format("2006-01-02T15:04:05Z") {
				t.Errorf("lastUsed = %v, want the time of the last call", found["lastUsed"])
			}

			dup := call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"ci"}`))
			if dup.status != 409 {
				t.Fatalf("duplicate name: %d %s", dup.status, dup.body)
			}
			errorID(t, dup)

			ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/tokens/"+strconv.FormatInt(tokenID, 10), devToken, nil), 204, "delete token")
			if a := call(t, srv.Handler(), "GET", "/api/workflow", key, nil); a.status != 403 || len(a.body) != 0 {
				t.Errorf("deleted token: %d %q, want 403 and no body", a.status, a.body)
			}
			if a := call(t, srv.Handler(), "DELETE", "/api/tokens/"+strconv.FormatInt(tokenID, 10), devToken, nil); a.status != 403 {
				t.Errorf("deleting a deleted token: %d, want 403", a.status)
			}

			// delete-all revokes every created token; the fake's own stay.
			var keys []string
			for _, n := range []string{"one", "two"} {
				a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"`+n+`"}`)), 200, "create "+n)
				keys = append(keys, object(t, a)["accessKey"].(string))
			}
			ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/tokens/delete-all", keys[0], nil), 204, "delete-all")
			for _, k := range keys {
				if a := call(t, srv.Handler(), "GET", "/api/workflow", k, nil); a.status != 403 {
					t.Errorf("token after delete-all: %d, want 403", a.status)
				}
			}
			ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil), 200, "the dev token after delete-all")
		})
	}
}

// TestWorkflowLifecycle: a launch moves SUBMITTED -> RUNNING -> SUCCEEDED
// on the fake's clock, with progress and tasks following it.
func TestWorkflowLifecycle(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			id := launch(t, srv.Handler(), "lifecycle", "")
			tasks := func() map[string]int {
				a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id+"/tasks?max=100", devToken, nil), 200, "tasks")
				out := map[string]int{}
				for _, e := range object(t, a)["tasks"].([]any) {
					out[path(e.(map[string]any), "task", "status").(string)]++
				}
				return out
			}
			progress := func() map[string]any {
				a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id+"/progress", devToken, nil), 200, "progress")
				return path(object(t, a), "progress", "workflowProgress").(map[string]any)
			}
			if s := status(t, srv.Handler(), id); s != "SUBMITTED" {
				t.Fatalf("just launched: %s", s)
			}
			if n := len(tasks()); n != 0 {
				t.Errorf("a submitted run has tasks: %v", tasks())
			}
			clk.Advance(30 * time.Second)
			if s := status(t, srv.Handler(), id); s != "RUNNING" {
				t.Fatalf("after 30s: %s", s)
			}
			clk.Advance(time.Minute)
			running := tasks()
			if running["RUNNING"] == 0 || running["COMPLETED"] == 0 {
				t.Errorf("half-way tasks: %v", running)
			}
			if p := progress(); p["running"].(float64) == 0 || p["succeeded"].(float64) == 0 {
				t.Errorf("half-way progress: %v", p)
			}
			listAndProgressAgree(t, srv.Handler(), id)
			clk.Advance(time.Minute)
			d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe"))
			w := d["workflow"].(map[string]any)
			if w["status"] != "SUCCEEDED" || w["runName"] != "lifecycle" || w["projectName"] != "nf-core/rnaseq" {
				t.Fatalf("after 2m30s: %v", w)
			}
			if w["submit"] != "2026-03-01T12:00:00Z" || w["start"] != "2026-03-01T12:00:30Z" || w["complete"] != "2026-03-01T12:02:30Z" {
				t.Errorf("timestamps: submit %v start %v complete %v", w["submit"], w["start"], w["complete"])
			}
			done := tasks()
			if len(done) != 1 || done["COMPLETED"] == 0 {
				t.Errorf("finished tasks: %v", done)
			}
			if p := progress(); p["running"].(float64) != 0 || p["pending"].(float64) != 0 || p["succeeded"].(float64) != float64(done["COMPLETED"]) {
				t.Errorf("finished progress: %v", p)
			}
			// The run's nested records agree with it.
			if st, _ := w["stats"].(map[string]any); st == nil || st["succeedCount"] != float64(done["COMPLETED"]) || st["failedCount"] != 0.0 || st["succeedPct"] != 100.0 {
				t.Errorf("stats of a run that succeeded with %d tasks: %v", done["COMPLETED"], w["stats"])
			}
			if m, _ := w["manifest"].(map[string]any); m == nil || m["name"] != "nf-core/rnaseq" || m["homePage"] != "https://github.com/nf-core/rnaseq" {
				t.Errorf("manifest: %v", w["manifest"])
			}
			if n, _ := w["nextflow"].(map[string]any); n == nil || w["nextflowVersion"] != nil && n["version"] != w["nextflowVersion"] {
				t.Errorf("nextflow %v, nextflowVersion %v", w["nextflow"], w["nextflowVersion"])
			}
			listAndProgressAgree(t, srv.Handler(), id)
		})
	}
}

// listAndProgressAgree checks that a run's list entry carries the same
// overall counters as its progress answer, without the per-process
// breakdown, which the progress answer has and which adds up to the totals.
func listAndProgressAgree(t *testing.T, srv http.Handler, id string) {
	t.Helper()
	full := path(object(t, ok(t, srv, call(t, srv, "GET", "/api/workflow/"+id+"/progress", devToken, nil), 200, "progress")), "progress").(map[string]any)
	var entry map[string]any
	for _, e := range object(t, ok(t, srv, call(t, srv, "GET", "/api/workflow?max=100", devToken, nil), 200, "list"))["workflows"].([]any) {
		if path(e.(map[string]any), "workflow", "id") == id {
			entry = e.(map[string]any)
		}
	}
	if entry == nil {
		t.Fatalf("run %s is not listed", id)
	}
	described := object(t, ok(t, srv, call(t, srv, "GET", "/api/workflow/"+id, devToken, nil), 200, "describe"))
	// The two answers may use different schemas for the run (the published
	// one does); the fields they share must agree.
	lw, dw := entry["workflow"].(map[string]any), described["workflow"].(map[string]any)
	shared := 0
	for k, v := range lw {
		if dv, ok := dw[k]; ok {
			shared++
			if !reflect.DeepEqual(v, dv) {
				t.Errorf("workflow.%s: the list shows %v, describe %v", k, v, dv)
			}
		}
	}
	if shared < 20 {
		t.Errorf("the list and describe share only %d fields of the run", shared)
	}
	listed := path(entry, "progress").(map[string]any)
	if !reflect.DeepEqual(listed["workflowProgress"], full["workflowProgress"]) {
		t.Errorf("list entry counters %v, progress answer %v", listed["workflowProgress"], full["workflowProgress"])
	}
	if pp, _ := listed["processesProgress"].([]any); len(pp) != 0 {
		t.Errorf("a list entry carries %d per-process entries", len(pp))
	}
	procs, _ := full["processesProgress"].([]any)
	if len(procs) == 0 {
		t.Fatal("the progress answer has no per-process breakdown")
	}
	sum := 0.0
	for _, p := range procs {
		sum += p.(map[string]any)["succeeded"].(float64)
	}
	if want := full["workflowProgress"].(map[string]any)["succeeded"].(float64); sum != want {
		t.Errorf("per-process succeeded add up to %v, the run's total is %v", sum, want)
	}
}

// TestWorkflowEndsFailed: the profile's outcome rule on the run name, or a
// control call, makes a run end FAILED.
func TestWorkflowEndsFailed(t *testing.T) {
	srv, clk := strictServer(t, embedded(t))
	byName := launch(t, srv.Handler(), "nightly-wmsmock-fail", "")
	byControl := launch(t, srv.Handler(), "ordinary", "")
	a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/workflows/"+byControl+"/status", "", []byte(`{"endStatus":"FAILED"}`))
	if a.status != 200 || !strings.Contains(string(a.body), `"status":"SUBMITTED"`) {
		t.Fatalf("set endStatus: %d %s", a.status, a.body)
	}
	clk.Advance(time.Hour)
	for _, id := range []string{byName, byControl} {
		d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe"))
		w := d["workflow"].(map[string]any)
		if w["status"] != "FAILED" || w["success"] != false || w["exitStatus"] != float64(1) || w["errorMessage"] == nil {
			t.Errorf("%s: %v", id, w)
		}
	}
	// A status set through the control API holds at once.
	held := launch(t, srv.Handler(), "held", "")
	if a := adminCall(t, srv.Handler(), "PUT", "/_mock/admin/workflows/"+held+"/status?status=running", "", nil); a.status != 200 {
		t.Fatalf("set status: %d %s", a.status, a.body)
	}
	clk.Advance(24 * time.Hour)
	if s := status(t, srv.Handler(), held); s != "RUNNING" {
		t.Errorf("held RUNNING: %s", s)
	}
}

func TestWorkflowCancel(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			id := launch(t, srv.Handler(), "to-cancel", "")
			clk.Advance(45 * time.Second)
			a := call(t, srv.Handler(), "POST", "/api/workflow/"+id+"/cancel", devToken, nil)
			if a.status != 204 || len(a.body) != 0 {
				t.Fatalf("cancel: %d %q", a.status, a.body)
			}
			clk.Advance(time.Hour)
			d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe"))
			if w := d["workflow"].(map[string]any); w["status"] != "CANCELLED" || w["complete"] != "2026-03-01T12:00:45Z" {
				t.Errorf("cancelled run: %v", w)
			}
			// Cancelling again, or cancelling a finished run, changes nothing.
			ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/workflow/"+id+"/cancel", devToken, []byte(`{}`)), 204, "cancel again")
			finished := launch(t, srv.Handler(), "finished", "")
			clk.Advance(time.Hour)
			ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/workflow/"+finished+"/cancel", devToken, nil), 204, "cancel finished")
			if s := status(t, srv.Handler(), finished); s != "SUCCEEDED" {
				t.Errorf("a finished run was cancelled: %s", s)
			}
		})
	}
}

// TestWorkflowDelete: a run that has not ended is deleted only with
// force=true (without it: the profile's delete_active reply, a 400 with an
// Error ID, and the run stays); a finished run needs no force. After
// DELETE, describing the run (or anything below it) is a 403 with no body,
// as on the real service.
func TestWorkflowDelete(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			id := launch(t, srv.Handler(), "to-delete", "")
			for _, q := range []string{"", "?force=false"} {
				a := call(t, srv.Handler(), "DELETE", "/api/workflow/"+id+q, devToken, nil)
				if m := errorIDMessage.FindStringSubmatch(a.message(t)); a.status != 400 || m == nil ||
					!strings.HasPrefix(a.message(t), "Workflow is still active, use force=true to delete it - Error ID: ") {
					t.Errorf("DELETE%s of a SUBMITTED run: %d %s, want 400 with the delete_active message and an Error ID", q, a.status, a.body)
				}
			}
			ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe after a refused delete")
			clk.Advance(time.Minute) // RUNNING: still active
			if a := call(t, srv.Handler(), "DELETE", "/api/workflow/"+id, devToken, nil); a.status != 400 {
				t.Errorf("DELETE of a RUNNING run without force: %d, want 400", a.status)
			}
			ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/workflow/"+id+"?force=true", devToken, nil), 204, "forced delete")
			done := launch(t, srv.Handler(), "to-finish", "")
			clk.Advance(time.Hour)
			ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/workflow/"+done, devToken, nil), 204, "delete of a finished run")
			for _, p := range []string{"", "/progress", "/tasks", "/log"} {
				if a := call(t, srv.Handler(), "GET", "/api/workflow/"+id+p, devToken, nil); a.status != 403 || len(a.body) != 0 {
					t.Errorf("GET %s after delete: %d %q, want 403 and no body", p, a.status, a.body)
				}
			}
			for _, m := range []string{"DELETE", "POST"} {
				target := "/api/workflow/" + id
				if m == "POST" {
					target += "/cancel"
				}
				if a := call(t, srv.Handler(), m, target, devToken, nil); a.status != 403 {
					t.Errorf("%s %s after delete: %d", m, target, a.status)
				}
			}
			list := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow?max=100", devToken, nil), 200, "list")
			if bytes.Contains(list.body, []byte(id)) {
				t.Error("a deleted run is still listed")
			}
		})
	}
}

// listIDs lists workflow ids and the total, failing on an invalid answer.
func listIDs(t testing.TB, srv http.Handler, query string) (ids []string, total int, hasMore bool) {
	t.Helper()
	m := object(t, ok(t, srv, call(t, srv, "GET", "/api/workflow"+query, devToken, nil), 200, "list "+query))
	for _, e := range m["workflows"].([]any) {
		ids = append(ids, path(e.(map[string]any), "workflow", "id").(string))
	}
	hasMore, _ = m["hasMore"].(bool)
	return ids, int(m["totalSize"].(float64)), hasMore
}

// TestWorkflowList: launched and seeded runs, newest first, with search,
// workspace, and paging at its boundaries.
func TestWorkflowList(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := strictServer(t, dc.doc(t))
			_, seeded, _ := listIDs(t, srv.Handler(), "")
			if seeded == 0 {
				t.Fatal("no seeded runs")
			}
			var launched []string
			for i := range 5 {
				launched = append(launched, launch(t, srv.Handler(), fmt.Sprintf("list-test-%d", i), ""))
				clk.Advance(time.Second)
			}
			ids, total, _ := listIDs(t, srv.Handler(), "?max=5")
			if total != seeded+5 {
				t.Errorf("totalSize %d, want %d", total, seeded+5)
			}
			slices.Reverse(launched)
			if !slices.Equal(ids, launched) {
				t.Errorf("newest first: got %v, want %v", ids, launched)
			}
			// Search matches the run name or the project name.
			if ids, total, _ := listIDs(t, srv.Handler(), "?search=LIST-TEST-3"); total != 1 || len(ids) != 1 || ids[0] != launched[1] {
				t.Errorf("search by run name: %v (total %d)", ids, total)
			}
			if _, total, _ := listIDs(t, srv.Handler(), "?search=nf-core%2Frnaseq"); total < 5 {
				t.Errorf("search by project name: total %d", total)
			}
			// Workspaces keep their own runs.
			inWS := launch(t, srv.Handler(), "in-workspace", "?workspaceId=2001")
			if ids, _, _ := listIDs(t, srv.Handler(), "?workspaceId=2001&max=100"); !slices.Contains(ids, inWS) {
				t.Errorf("workspace list lacks its run: %v", ids)
			}
			if ids, _, _ := listIDs(t, srv.Handler(), "?max=100"); slices.Contains(ids, inWS) {
				t.Error("a workspace run is listed in the personal context")
			}
			if a := call(t, srv.Handler(), "GET", "/api/workflow/"+inWS+"?workspaceId=9999", devToken, nil); a.status != 403 {
				t.Errorf("describe in another workspace: %d, want 403", a.status)
			}

			all := seeded + 5
			// Pages walk the list without gaps or repeats.
			var walked []string
			for off := 0; ; off += 3 {
				ids, total, more := listIDs(t, srv.Handler(), fmt.Sprintf("?max=3&offset=%d", off))
				if total != all {
					t.Fatalf("offset %d: totalSize %d, want %d", off, total, all)
				}
				walked = append(walked, ids...)
				if !more {
					break
				}
			}
			if len(walked) != all || len(slices.Compact(slices.Sorted(slices.Values(walked)))) != all {
				t.Errorf("paging walked %d runs (%d distinct), want %d", len(walked), len(slices.Compact(slices.Sorted(slices.Values(walked)))), all)
			}
			// Past the end: an empty page that still counts everything.
			for _, q := range []string{fmt.Sprintf("?offset=%d", all), "?offset=10000&max=10"} {
				ids, total, more := listIDs(t, srv.Handler(), q)
				if len(ids) != 0 || total != all || more {
					t.Errorf("%s: %d runs, total %d, hasMore %v", q, len(ids), total, more)
				}
			}
			// max=0: no runs, but the total.
			if ids, total, more := listIDs(t, srv.Handler(), "?max=0"); len(ids) != 0 || total != all || !more {
				t.Errorf("max=0: %d runs, total %d, hasMore %v", len(ids), total, more)
			}
			// Negative values are a Bad Request with an Error ID.
			for _, q := range []string{"?max=-1", "?offset=-1", "?max=-5&offset=-5"} {
				a := call(t, srv.Handler(), "GET", "/api/workflow"+q, devToken, nil)
				if a.status != 400 {
					t.Errorf("%s: %d, want 400", q, a.status)
					continue
				}
				errorID(t, a)
			}
		})
	}
}

// TestMaxIsBounded: a page is never larger than the profile's bound.
func TestMaxIsBounded(t *testing.T) {
	srv, _ := strictServer(t, embedded(t), mock.WithoutSeed())
	for i := range 105 {
		launch(t, srv.Handler(), fmt.Sprintf("run-%d", i), "")
	}
	if ids, total, more := listIDs(t, srv.Handler(), "?max=500"); len(ids) != 100 || total != 105 || !more {
		t.Errorf("max=500: %d runs, total %d, hasMore %v; want 100, 105, true", len(ids), total, more)
	}
	if ids, _, _ := listIDs(t, srv.Handler(), ""); len(ids) != 50 {
		t.Errorf("no max: %d runs, want the default 50", len(ids))
	}
}

// TestConcurrentLaunchesAndDeletes: under -race, many clients launching and
// deleting at once lose and duplicate nothing.
func TestConcurrentLaunchesAndDeletes(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithoutSeed())
	// One call of each kind first: the document's validator compiles a
	// schema on first use, and libopenapi's schema rendering is not safe
	// for concurrent use (see the report on this issue).
	warm := launch(t, srv.Handler(), "warm-up", "")
	ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow?max=100", devToken, nil), 200, "warm-up list")
	ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/workflow/"+warm+"?force=true", devToken, nil), 204, "warm-up delete")
	const clients, each = 8, 12
	var mu sync.Mutex
	var kept, deleted []string
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := launch(t, srv.Handler(), fmt.Sprintf("c%d-%d", c, i), "")
				if i%3 == 0 {
					if a := call(t, srv.Handler(), "DELETE", "/api/workflow/"+id+"?force=true", devToken, nil); a.status != 204 {
						t.Errorf("delete %s: %d", id, a.status)
					}
					mu.Lock()
					deleted = append(deleted, id)
					mu.Unlock()
					continue
				}
				mu.Lock()
				kept = append(kept, id)
				mu.Unlock()
				if a := call(t, srv.Handler(), "GET", "/api/workflow?max=100", devToken, nil); a.status != 200 {
					t.Errorf("list during launches: %d", a.status)
				}
			}
		}()
	}
	wg.Wait()
	ids, total, _ := listIDs(t, srv.Handler(), "?max=100")
	if total != len(kept) || len(ids) != len(kept) {
		t.Fatalf("listed %d (total %d), want %d", len(ids), total, len(kept))
	}
	slices.Sort(ids)
	slices.Sort(kept)
	if !slices.Equal(ids, kept) {
		t.Errorf("listed runs differ from the runs kept")
	}
	all := append(slices.Clone(kept), deleted...)
	if len(slices.Compact(slices.Sorted(slices.Values(all)))) != clients*each {
		t.Errorf("duplicated workflow ids among %d launches", clients*each)
	}
	// Concurrent deletes of one run: exactly one succeeds.
	id := launch(t, srv.Handler(), "contended", "")
	var wins sync.WaitGroup
	var okCount, forbidden int
	for range 10 {
		wins.Add(1)
		go func() {
			defer wins.Done()
			a := call(t, srv.Handler(), "DELETE", "/api/workflow/"+id+"?force=true", devToken, nil)
			mu.Lock()
			defer mu.Unlock()
			switch a.status {
			case 204:
				okCount++
			case 403:
				forbidden++
			}
		}()
	}
	wins.Wait()
	if okCount != 1 || forbidden != 9 {
		t.Errorf("concurrent deletes: %d succeeded, %d refused; want 1 and 9", okCount, forbidden)
	}
}

// TestComputeEnvLifecycle: created as CREATING, AVAILABLE after the
// profile's delay; deleted through DELETING, then gone.
func TestComputeEnvLifecycle(t *testing.T) {
	srv, clk := strictServer(t, embedded(t))
	body := `{"computeEnv":{"name":"batch","platform":"aws-batch","config":{"discriminator":"aws-batch","region":"eu-west-1","workDir":"s3://b/w"}}}`
	a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/compute-envs", devToken, []byte(body)), 200, "create")
	id := object(t, a)["computeEnvId"].(string)
	state := func() string {
		d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/compute-envs/"+id, devToken, nil), 200, "describe"))
		return path(d, "computeEnv", "status").(string)
	}
	if s := state(); s != "CREATING" {
		t.Fatalf("new: %s", s)
	}
	clk.Advance(20 * time.Second)
	if s := state(); s != "AVAILABLE" {
		t.Fatalf("after 20s: %s", s)
	}
	d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/compute-envs/"+id, devToken, nil), 200, "describe"))
	if path(d, "computeEnv", "name") != "batch" || path(d, "computeEnv", "config", "region") != "eu-west-1" {
		t.Errorf("the request's values are not kept: %v", d)
	}
	if a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/compute-envs?status=AVAILABLE", devToken, nil), 200, "list"); !bytes.Contains(a.body, []byte(id)) {
		t.Error("not listed as AVAILABLE")
	}
	ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/compute-envs/"+id, devToken, nil), 204, "delete")
	if s := state(); s != "DELETING" {
		t.Fatalf("deleting: %s", s)
	}
	clk.Advance(10 * time.Second)
	// compute_envs.after_delete: deleted keeps it describable, strictly
	// valid, as DELETED.
	if s := state(); s != "DELETED" {
		t.Errorf("deleted: %s", s)
	}
	if a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/compute-envs", devToken, nil), 200, "list"); bytes.Contains(a.body, []byte(id)) {
		t.Error("a deleted environment is still listed")
	}
}

// TestCollections: create, list, describe, update and delete of pipelines
// and credentials, with valid answers, 409 on a duplicate name, and no
// secret ever given back.
func TestCollections(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := strictServer(t, dc.doc(t))
			create := `{"name":"my-pipe","description":"first","launch":{"pipeline":"https://github.com/nf-core/hello"}}`
			a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/pipelines", devToken, []byte(create)), 200, "create pipeline")
			pid := path(object(t, a), "pipeline", "pipelineId")
			if pid == nil {
				t.Fatalf("no pipelineId in %s", a.body)
			}
			item := fmt.Sprintf("/api/pipelines/%.0f", pid)
			d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", item, devToken, nil), 200, "describe"))
			if path(d, "pipeline", "name") != "my-pipe" || path(d, "pipeline", "description") != "first" {
				t.Errorf("describe: %v", d["pipeline"])
			}
			if dc.name == "embedded" {
				dup := call(t, srv.Handler(), "POST", "/api/pipelines", devToken, []byte(create))
				if dup.status != 409 {
					t.Errorf("duplicate name: %d", dup.status)
				} else {
					errorID(t, dup)
				}
			}
			u := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "PUT", item, devToken, []byte(`{"description":"second"}`)), 200, "update"))
			if path(u, "pipeline", "description") != "second" || path(u, "pipeline", "name") != "my-pipe" {
				t.Errorf("update: %v", u["pipeline"])
			}
			l := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/pipelines?max=100", devToken, nil), 200, "list")
			if !bytes.Contains(l.body, []byte(`"second"`)) {
				t.Errorf("the updated pipeline is not listed: %.300s", l.body)
			}
			ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", item, devToken, nil), 204, "delete")
			if a := call(t, srv.Handler(), "GET", item, devToken, nil); a.status != 403 || len(a.body) != 0 {
				t.Errorf("after delete: %d %q", a.status, a.body)
			}

			if dc.name != "embedded" {
				return // the published schema's credentials go through TestPublishedCollections
			}
			cred := `{"credentials":{"name":"aws-ci","provider":"aws","keys":{"discriminator":"aws","accessKey":"AKIAEXAMPLE","secretKey":"s3cr3t-value"}}}`
			a = ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/credentials", devToken, []byte(cred)), 200, "create credentials")
			cid := object(t, a)["credentialsId"].(string)
			for _, target := range []string{"/api/credentials/" + cid, "/api/credentials"} {
				a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", target, devToken, nil), 200, target)
				if bytes.Contains(a.body, []byte("s3cr3t-value")) {
					t.Errorf("%s gives back a secret: %s", target, a.body)
				}
				if !bytes.Contains(a.body, []byte(cid)) || !bytes.Contains(a.body, []byte("aws-ci")) {
					t.Errorf("%s lacks the credentials: %.300s", target, a.body)
				}
			}
		})
	}
}

// thingsDoc is a document the fake has never seen, with one collection.
const thingsDoc = `openapi: 3.0.3
info: {title: things, version: "1"}
security: [{bearer: []}]
paths:
  /things:
    get:
      operationId: ListThings
      parameters:
        - {name: max, in: query, schema: {type: integer, minimum: 0}}
        - {name: offset, in: query, schema: {type: integer, minimum: 0}}
        - {name: search, in: query, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  things: {type: array, items: {$ref: '#/components/schemas/Thing'}}
                  totalSize: {type: integer}
    post:
      operationId: CreateThing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {thing: {$ref: '#/components/schemas/Thing'}}}
  /things/{thingId}:
    parameters:
      - {name: thingId, in: path, required: true, schema: {type: string}}
    get:
      operationId: DescribeThing
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {thing: {$ref: '#/components/schemas/Thing'}}}
    put:
      operationId: UpdateThing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
      responses:
        '204': {description: ok}
    delete:
      operationId: DeleteThing
      responses:
        '204': {description: ok}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  schemas:
    Thing:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        id: {type: string, readOnly: true}
        name: {type: string, maxLength: 20}
        size: {type: integer, minimum: 1}
        colour: {type: string, enum: [red, green]}
`

// TestGenericCollection: a collection/item pair in any document gets the
// whole set of operations, found from the document alone.
func TestGenericCollection(t *testing.T) {
	doc, err := spec.Load([]byte(thingsDoc))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := strictServer(t, doc, mock.WithoutSeed()) // unseeded: the generated entries would fill it
	if a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/things", devToken, nil), 200, "empty list"); string(a.body) != `{"things":[],"totalSize":0}` {
		t.Errorf("empty list: %s", a.body)
	}
	var ids []string
	for _, n := range []string{"alpha", "beta", "gamma"} {
		a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/things", devToken, []byte(`{"name":"`+n+`","size":3,"colour":"red"}`)), 200, "create "+n)
		th := object(t, a)["thing"].(map[string]any)
		if th["name"] != n || th["size"] != float64(3) || th["colour"] != "red" {
			t.Errorf("created %v", th)
		}
		ids = append(ids, th["id"].(string))
	}
	ok(t, srv.Handler(), call(t, srv.Handler(), "PUT", "/api/things/"+ids[1], devToken, []byte(`{"name":"beta","colour":"green"}`)), 204, "update")
	d := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/things/"+ids[1], devToken, nil), 200, "describe"))
	if th := d["thing"].(map[string]any); th["colour"] != "green" || th["size"] != float64(3) || th["id"] != ids[1] {
		t.Errorf("after update: %v", th)
	}
	l := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/things?max=2&offset=1", devToken, nil), 200, "page"))
	page := l["things"].([]any)
	if l["totalSize"] != float64(3) || len(page) != 2 || page[0].(map[string]any)["name"] != "beta" {
		t.Errorf("page 2 of newest first: %v", l)
	}
	if l := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/things?search=GAM", devToken, nil), 200, "search")); l["totalSize"] != float64(1) {
		t.Errorf("search: %v", l)
	}
	ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/things/"+ids[0], devToken, nil), 204, "delete")
	if a := call(t, srv.Handler(), "GET", "/api/things/"+ids[0], devToken, nil); a.status != 403 {
		t.Errorf("describe deleted: %d", a.status)
	}
	if a := call(t, srv.Handler(), "PUT", "/api/things/"+ids[0], devToken, []byte(`{"name":"x"}`)); a.status != 403 {
		t.Errorf("update deleted: %d", a.status)
	}
}

// TestPublishedCollections runs create, describe, list, update and delete
// on every top-level collection of the published schema, with strict
// answers.
func TestPublishedCollections(t *testing.T) {
	doc := published(t)
	srv, _ := strictServer(t, doc, mock.WithoutSeed())
	gen := synth.New(synth.WithSeed(11))
	// Bodies name records that exist (a compute environment's
	// credentials): the finder makes them as a client would.
	refs := newFinder(t, doc, srv.Handler(), 12)
	byPath := map[string]map[string]*spec.Operation{}
	for _, op := range doc.Operations {
		if byPath[op.Path] == nil {
			byPath[op.Path] = map[string]*spec.Operation{}
		}
		byPath[op.Path][op.Method] = op
	}
	flows := 0
	// In path order, on one shared server with one generator: a map's
	// order would change which collection sees which generated values
	// from run to run.
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		ops := byPath[p]
		segs := strings.Split(p, "/")
		param := strings.Trim(segs[len(segs)-1], "{}")
		listPath := strings.Join(segs[:len(segs)-1], "/")
		create := byPath[listPath]["POST"]
		if param == segs[len(segs)-1] || strings.Contains(listPath, "{") || ops["GET"] == nil || create == nil ||
			create.Op.RequestBody == nil || create.Op.RequestBody.Content.GetOrZero("application/json") == nil ||
			!spec.IsJSON(ops["GET"].Success.MediaType) || listPath == "/workflow" {
			continue
		}
		t.Run(listPath, func(t *testing.T) {
			c, err := callgen.Build(create, gen, "create "+p, callgen.WithReferences(refs.Ref))
			if err != nil {
				t.Fatal(err)
			}
			q := ""
			if ws := c.Query.Get("workspaceId"); ws != "" {
				q = "?workspaceId=" + ws
			}
			a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api"+c.Path+"?"+c.Query.Encode(), devToken, c.Body), create.Success.Status, "create")
			id := findID(object(t, a), []string{param, "id", "name"}, 0)
			if id == "" {
				t.Fatalf("no id in the create answer %.300s", a.body)
			}
			item := "/api" + listPath + "/" + id
			ok(t, srv.Handler(), call(t, srv.Handler(), "GET", item+q, devToken, nil), ops["GET"].Success.Status, "describe")
			if lop := byPath[listPath]["GET"]; lop != nil {
				lc, err := callgen.Build(lop, gen, "list "+p)
				if err != nil {
					t.Fatal(err)
				}
				lq := lc.Query
				lq.Del("max")
				lq.Del("offset")
				lq.Del("search")
				if ws := c.Query.Get("workspaceId"); ws != "" {
					lq.Set("workspaceId", ws)
				}
				l := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api"+listPath+"?"+lq.Encode(), devToken, nil), lop.Success.Status, "list")
				if !bytes.Contains(l.body, []byte(id)) {
					t.Errorf("the new item is not listed: %.300s", l.body)
				}
			}
			for _, m := range []string{"PUT", "PATCH"} {
				if up := ops[m]; up != nil {
					uc, err := callgen.Build(up, gen, "update "+p, callgen.WithReferences(refs.Ref))
					if err != nil {
						t.Fatal(err)
					}
					ok(t, srv.Handler(), call(t, srv.Handler(), m, item+q, devToken, uc.Body), up.Success.Status, m)
				}
			}
			if del := ops["DELETE"]; del != nil {
				ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", item+q, devToken, nil), del.Success.Status, "delete")
				if listPath != "/compute-envs" { // deleting takes the profile's delay
					if a := call(t, srv.Handler(), "GET", item+q, devToken, nil); a.status != 403 {
						t.Errorf("describe after delete: %d", a.status)
					}
				}
			}
			flows++
		})
	}
	if flows < 10 {
		t.Errorf("only %d collections of the published schema went through the whole flow", flows)
	}
}

// findID finds an item's id in a create answer, at most two levels down.
func findID(v any, names []string, depth int) string {
	m, ok := v.(map[string]any)
	if !ok || depth > 2 {
		return ""
	}
	for _, n := range names {
		switch x := m[n].(type) {
		case string:
			return x
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) { // the same id every run
		if id := findID(m[k], names, depth+1); id != "" {
			return id
		}
	}
	return ""
}

// TestSeed: a fresh fake has data everywhere, in every workflow status.
func TestSeed(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := strictServer(t, dc.doc(t))
			statuses := map[string]bool{}
			for _, q := range []string{"?max=100", "?max=100&workspaceId=2001"} {
				m := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/workflow"+q, devToken, nil), 200, "workflows"))
				for _, e := range m["workflows"].([]any) {
					statuses[path(e.(map[string]any), "workflow", "status").(string)] = true
				}
			}
			for _, s := range []string{"SUBMITTED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "UNKNOWN"} {
				if !statuses[s] {
					t.Errorf("no seeded run is %s", s)
				}
			}
			for target, key := range map[string]string{
				"/api/pipelines": "pipelines", "/api/compute-envs": "computeEnvs", "/api/credentials": "credentials",
				"/api/orgs": "organizations", "/api/orgs/1001/workspaces": "workspaces", "/api/tokens": "tokens",
				"/api/pipelines?workspaceId=2001": "pipelines",
			} {
				m := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", target, devToken, nil), 200, target))
				if l, _ := m[key].([]any); len(l) == 0 {
					t.Errorf("%s is empty", target)
				}
			}
			u := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/user-info", devToken, nil), 200, "user-info"))
			if path(u, "user", "userName") != "wmsmock" {
				t.Errorf("user-info: %v", u["user"])
			}
			ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/orgs/1001/workspaces/2001", devToken, nil), 200, "workspace")
			if a := call(t, srv.Handler(), "GET", "/api/orgs/9/workspaces", devToken, nil); a.status != 403 {
				t.Errorf("workspaces of an org that does not exist: %d, want 403", a.status)
			}
		})
	}
}

func TestFixturesDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("mine.yaml", `
collections:
  /pipelines:
    - pipelineId: 7
      name: only-mine
workflows:
  - id: MyOwnRun000001
    runName: mine
    pipeline: https://github.com/me/pipe
    status: RUNNING
    submittedAgo: 1m
`)
	write("notes.txt", "ignored")
	srv, _ := strictServer(t, embedded(t), mock.WithFixturesDir(dir))
	if ids, total, _ := listIDs(t, srv.Handler(), ""); total != 1 || ids[0] != "MyOwnRun000001" {
		t.Errorf("workflows: %v (total %d)", ids, total)
	}
	if s := status(t, srv.Handler(), "MyOwnRun000001"); s != "RUNNING" {
		t.Errorf("seeded status %s", s)
	}
	a := ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/pipelines", devToken, nil), 200, "pipelines")
	if !bytes.Contains(a.body, []byte(`"name":"only-mine"`)) || object(t, a)["totalSize"] != float64(1) {
		t.Errorf("pipelines: %.300s", a.body)
	}
	// A broken seed file stops the start, naming the file.
	write("broken.yaml", "workflows: [ {runName: x, pipeline: p, status: ASLEEP} ]")
	_, err := mock.New(mock.WithDocument("", embedded(t)), mock.WithFixturesDir(dir))
	if err == nil || !strings.Contains(err.Error(), "broken.yaml") {
		t.Errorf("broken seed: %v", err)
	}
	if _, err := mock.New(mock.WithFixturesDir(filepath.Join(dir, "nope"))); err == nil {
		t.Error("a missing fixtures directory was accepted")
	}
}

// TestStateFileRestart: records, tokens and the clock's advance survive a
// restart with the same state file; deleted records stay deleted.
func TestStateFileRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	doc := embedded(t)
	start := func() *mock.Server {
		srv, _ := strictServer(t, doc, mock.WithState(mock.InFile(file, 0)), mock.WithTokens("ci-configured"))
		return srv
	}
	srv := start()
	run := launch(t, srv.Handler(), "survivor", "")
	ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/workflow/3cSucceeded003", devToken, nil), 204, "delete seeded")
	tok := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"kept"}`)), 200, "token"))
	key := tok["accessKey"].(string)
	ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/pipelines", devToken, []byte(`{"name":"saved-pipe","launch":{"pipeline":"x"}}`)), 200, "pipeline")
	ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/tokens/1", devToken, nil), 204, "delete the dev token's record")
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/clock/advance?by=1m", "", nil); a.status != 200 {
		t.Fatalf("advance: %d %s", a.status, a.body)
	}
	snapshot := func(srv *mock.Server) []string {
		var out []string
		for _, target := range []string{"/api/workflow?max=100", "/api/pipelines?max=100", "/api/compute-envs", "/api/credentials", "/api/workflow/" + run} {
			out = append(out, string(ok(t, srv.Handler(), call(t, srv.Handler(), "GET", target, key, nil), 200, target).body))
		}
		return out
	}
	before := snapshot(srv)
	if err := srv.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(key)) || bytes.Contains(raw, []byte(devToken)) {
		t.Fatal("the state file holds a token value")
	}

	again := start()
	after := snapshot(again)
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("answer %d changed across the restart:\nbefore %.400s\nafter  %.400s", i, before[i], after[i])
		}
	}
	if a := call(t, again.Handler(), "GET", "/api/workflow/3cSucceeded003", devToken, nil); a.status != 403 {
		t.Errorf("a deleted seed came back: %d", a.status)
	}
	// The configured tokens are there whatever the file says.
	ok(t, again.Handler(), call(t, again.Handler(), "GET", "/api/workflow", devToken, nil), 200, "dev token after restart")
	ok(t, again.Handler(), call(t, again.Handler(), "GET", "/api/workflow", "ci-configured", nil), 200, "--token after restart")
	if s := status(t, again.Handler(), run); s != "RUNNING" { // 1 minute in
		t.Errorf("status after restart: %s", s)
	}
	// Restarting twice is the same as once.
	if err := again.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	third := start()
	if a := snapshot(third); a[0] != before[0] {
		t.Error("a second restart changed the workflow list")
	}
}

// TestCorruptStateFile: a damaged state file stops the start, and is left
// as it was for the user to look at.
func TestCorruptStateFile(t *testing.T) {
	for name, content := range map[string]string{
		"garbage":       "not json at all",
		"truncated":     `{"format":"wmsmock-state","version":1,"parts":{"records":{"collections":`,
		"missing parts": `{"format":"wmsmock-state","version":1,"savedAt":"2026-01-01T00:00:00Z","parts":{}}`,
		"bad records":   `{"format":"wmsmock-state","version":1,"savedAt":"2026-01-01T00:00:00Z","parts":{"records":{"collections":{"workflows":[{"id":"","seq":1}]},"seq":1},"tokens":[]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := mock.New(mock.WithDocument("", embedded(t)), mock.WithState(mock.InFile(file, time.Hour)))
			if err == nil {
				t.Fatal("started on a damaged state file")
			}
			if !strings.Contains(err.Error(), "state") {
				t.Errorf("error does not say what is wrong: %v", err)
			}
			if b, _ := os.ReadFile(file); string(b) != content {
				t.Error("the damaged file was changed")
			}
		})
	}
}

// TestAdminAccess: loopback only, unless an admin token is set; then the
// token from anywhere.
func TestAdminAccess(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	if a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/tokens", "", nil, "192.0.2.10:5555"); a.status != 403 {
		t.Errorf("from another host: %d, want 403", a.status)
	}
	if a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/tokens", "", nil, "[::1]:5555"); a.status != 200 {
		t.Errorf("from ::1: %d", a.status)
	}
	locked, _ := newServer(t, embedded(t), mock.WithAdminToken("s3cret-admin"))
	for _, c := range []struct {
		remote, auth string
		want         int
	}{
		{"192.0.2.10:5555", "Bearer s3cret-admin", 200},
		{"127.0.0.1:5555", "", 403},
		{"127.0.0.1:5555", "Bearer " + devToken, 403},
		{"192.0.2.10:5555", "Bearer s3cret-admin-not", 403},
	} {
		if a := adminCall(t, locked.Handler(), "GET", "/_mock/admin/tokens", c.auth, nil, c.remote); a.status != c.want {
			t.Errorf("%s %q: %d, want %d", c.remote, c.auth, a.status, c.want)
		}
	}
}

func TestAdminEndpoints(t *testing.T) {
	srv, _ := strictServer(t, embedded(t), mock.WithRateLimit(mustWindows(t, "20/s")))
	// Reset: created things go, seeded things come back.
	tok := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"temp"}`)), 200, "token"))
	key := tok["accessKey"].(string)
	run := launch(t, srv.Handler(), "temp", "")
	ok(t, srv.Handler(), call(t, srv.Handler(), "DELETE", "/api/workflow/4dFailed000004", devToken, nil), 204, "delete seed")

	a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/tokens", "", nil)
	if a.status != 200 || !bytes.Contains(a.body, []byte(`"temp"`)) || bytes.Contains(a.body, []byte(key)) || bytes.Contains(a.body, []byte(devToken)) {
		t.Errorf("admin tokens: %d %s", a.status, a.body)
	}

	j := adminCall(t, srv.Handler(), "GET", "/_mock/admin/requests?n=3", "", nil)
	var journal struct {
		Requests []struct {
			Method, Path, ErrorID, Operation string
			Status                           int
		}
	}
	if err := json.Unmarshal(j.body, &journal); err != nil || len(journal.Requests) != 3 {
		t.Fatalf("journal: %d %s", j.status, j.body)
	}
	if r := journal.Requests[0]; r.Method != "DELETE" || r.Path != "/api/workflow/4dFailed000004" || r.Status != 204 || r.Operation != "DeleteWorkflow" {
		t.Errorf("newest journal entry: %+v", r)
	}
	bad := call(t, srv.Handler(), "GET", "/api/workflow?max=-1", devToken, nil)
	j = adminCall(t, srv.Handler(), "GET", "/_mock/admin/requests?n=1", "", nil)
	if !bytes.Contains(j.body, []byte(errorID(t, bad))) || bytes.Contains(j.body, []byte(devToken)) {
		t.Errorf("journal: %s", j.body)
	}

	rl := adminCall(t, srv.Handler(), "GET", "/_mock/admin/ratelimit", "", nil)
	if rl.status != 200 || !bytes.Contains(rl.body, []byte(`"window":"20/s"`)) || bytes.Contains(rl.body, []byte(devToken)) {
		t.Errorf("rate limit counters: %s", rl.body)
	}

	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/reset", "", nil); a.status != 200 {
		t.Fatalf("reset: %d %s", a.status, a.body)
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow", key, nil); a.status != 403 {
		t.Errorf("a created token survived the reset: %d", a.status)
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow/"+run, devToken, nil); a.status != 403 {
		t.Errorf("a launched run survived the reset: %d", a.status)
	}
	if s := status(t, srv.Handler(), "4dFailed000004"); s != "FAILED" {
		t.Errorf("the seed did not come back: %s", s)
	}

	// Clock: advancing moves runs.
	run = launch(t, srv.Handler(), "clocked", "")
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/clock/advance?by=10m", "", nil); a.status != 200 || !bytes.Contains(a.body, []byte("2026-03-01T12:10:00")) {
		t.Errorf("advance: %d %s", a.status, a.body)
	}
	if s := status(t, srv.Handler(), run); s != "SUCCEEDED" {
		t.Errorf("10 minutes later: %s", s)
	}
	for _, q := range []string{"", "?by=soon", "?by=-5m"} {
		if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/clock/advance"+q, "", nil); a.status != 400 {
			t.Errorf("advance%s: %d, want 400", q, a.status)
		}
	}
	// Status: unknown runs and statuses are refused.
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/workflows/nope/status", "", []byte(`{"status":"FAILED"}`)); a.status != 404 {
		t.Errorf("unknown run: %d", a.status)
	}
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/workflows/"+run+"/status", "", []byte(`{"status":"ASLEEP"}`)); a.status != 400 {
		t.Errorf("unknown status: %d", a.status)
	}
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/workflows/"+run+"/status", "", []byte(`{"status":"UNKNOWN"}`)); a.status != 200 || status(t, srv.Handler(), run) != "UNKNOWN" {
		t.Errorf("set UNKNOWN: %d %s", a.status, a.body)
	}
	// Nothing to save to: a conflict with how the fake was started, not a
	// success (TestSaveWithoutAStateFile).
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/state/save", "", nil); a.status != 409 {
		t.Errorf("save without a state file: %d", a.status)
	}
}

// TestWithHandlerWinsOverState: a handler given to New still answers its
// operation.
func TestWithHandlerWinsOverState(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithHandler("DescribeWorkflow", func(*handler.Request) (*handler.Response, error) {
		return handler.NoContent(299), nil
	}))
	if a := call(t, srv.Handler(), "GET", "/api/workflow/3cSucceeded003", devToken, nil); a.status != 299 {
		t.Errorf("status %d", a.status)
	}
}
