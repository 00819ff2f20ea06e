package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/wmsmock/wmsmock/internal/nftrace"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
)

// Nextflow reports its runs to the fake through the trace operations
// (internal/nftrace builds its calls as its Tower client does). These
// tests replay three runs of nextflow-io/hello through the whole server,
// with strict responses (an answer the served document refuses is a 500),
// and check what a user then sees through the API and the admin journal.

// replayClient sends the client's calls to a server's handler.
func replayClient(h http.Handler) nftrace.Send {
	return func(c nftrace.Call) (int, []byte, error) {
		var body *bytes.Reader
		if c.Body != nil {
			body = bytes.NewReader(c.Body)
		} else {
			body = bytes.NewReader(nil)
		}
		req := httptest.NewRequest(c.Method, mock.DefaultBasePath+c.Path, body)
		req.Header = c.Header.Clone()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes(), nil
	}
}

func clockOf(clk *clock.Fake) nftrace.Clock {
	return func(d time.Duration) time.Time {
		clk.Advance(d)
		return clk.Now()
	}
}

// replayAll replays the three runs on srv (a launched run is launched
// first, through the API, with the same token) and checks each; it
// returns their ids. With only, it replays the runs named there.
func replayAll(t *testing.T, srv *mock.Server, clk *clock.Fake, base nftrace.Run, only ...string) []string {
	t.Helper()
	send := replayClient(srv.Handler())
	var ids []string
	for _, c := range []struct {
		name string
		set  func(*testing.T, *nftrace.Run)
	}{
		{"succeeded", func(*testing.T, *nftrace.Run) {}},
		{"failed", func(_ *testing.T, r *nftrace.Run) { r.Fail = true }},
		{"launched", func(t *testing.T, r *nftrace.Run) {
			target := "/api/workflow/launch"
			if r.WorkspaceID != 0 {
				target += fmt.Sprintf("?workspaceId=%d", r.WorkspaceID) // launched where Nextflow reports
			}
			l := call(t, srv.Handler(), "POST", target, "", []byte(`{"launch":{"pipeline":"https://github.com/nextflow-io/hello","runName":"`+r.RunName+`"}}`),
				"Authorization", nftrace.Authorization(r.Token))
			var got struct{ WorkflowID string }
			if l.status != 200 || json.Unmarshal(l.body, &got) != nil || got.WorkflowID == "" {
				t.Fatalf("launch: %d %s", l.status, l.body)
			}
			r.WorkflowID = got.WorkflowID
		}},
	} {
		if len(only) > 0 && !slices.Contains(only, c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			run := base
			run.RunName = base.RunName + "_" + c.name
			c.set(t, &run)
			id, problems := run.Replay(send, clockOf(clk))
			for _, p := range problems {
				t.Error(p)
			}
			if id == "" {
				t.FailNow()
			}
			for _, p := range run.Check(send, id) {
				t.Error(p)
			}
			checkJournal(t, srv, id)
			ids = append(ids, id)
		})
	}
	return ids
}

// checkJournal finds the run's trace calls in the admin request journal,
// each as the operation it is, accepted.
func checkJournal(t *testing.T, srv *mock.Server, id string) {
	t.Helper()
	a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/requests?n=200", "", nil)
	var journal struct {
		Requests []struct {
			Method, Path, Operation string
			Status                  int
		}
	}
	if err := json.Unmarshal(a.body, &journal); err != nil {
		t.Fatalf("journal: %d %s", a.status, a.body)
	}
	want := map[string]int{"UpdateTraceBegin": 1, "UpdateTraceProgress": 3, "UpdateTraceHeartbeat": 1, "UpdateTraceComplete": 1}
	got := map[string]int{}
	for _, r := range journal.Requests {
		if r.Path == mock.DefaultBasePath+"/trace/"+id+"/"+map[string]string{
			"UpdateTraceBegin": "begin", "UpdateTraceProgress": "progress", "UpdateTraceHeartbeat": "heartbeat", "UpdateTraceComplete": "complete",
		}[r.Operation] && r.Method == "PUT" {
			if r.Status != 200 {
				t.Errorf("journal: %s %s answered %d", r.Method, r.Path, r.Status)
			}
			got[r.Operation]++
		}
	}
	for op, n := range want {
		if got[op] != n {
			t.Errorf("journal: %d calls of %s for run %s, want %d", got[op], op, id, n)
		}
	}
}

// mintToken creates an access token through the API, as a user does
// before setting TOWER_ACCESS_TOKEN.
func mintToken(t *testing.T, srv *mock.Server, name string) string {
	t.Helper()
	a := ok(t, srv.Handler(), call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"`+name+`"}`)), 200, "create a token")
	key, _ := object(t, a)["accessKey"].(string)
	if key == "" {
		t.Fatalf("no access key: %s", a.body)
	}
	return key
}

// TestNextflowReplay replays Nextflow's own calls (its bodies as it builds
// them) for a successful, a failed and a service-launched run, with a
// plain token (which Nextflow sends as Basic "@token:") and with a token
// minted by POST /tokens (in the service's format, which Nextflow sends
// as Bearer), on the embedded document and the published schema.
func TestNextflowReplay(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			if dc.name == "published" && testenv.RaceEnabled {
				t.Skip("under -race the published schema's replay is left to the plain run; the embedded one runs the same handlers")
			}
			srv, clk := strictServer(t, dc.doc(t))
			base := nftrace.Run{SessionID: "2f7d4c1e-8a4b-4f4e-9c1a-6b8e0d3f5a21", Zone: time.FixedZone("CET", 3600)}
			t.Run("basic", func(t *testing.T) {
				run := base
				run.RunName, run.Token = "plain", devToken
				if h := nftrace.Authorization(run.Token); h[:6] != "Basic " {
					t.Fatalf("Nextflow sends the dev token as %q, want Basic", h)
				}
				replayAll(t, srv, clk, run)
			})
			t.Run("workspace", func(t *testing.T) {
				// tower.workspaceId set: every call names the workspace,
				// and the runs are the workspace's.
				run := base
				run.RunName, run.Token, run.WorkspaceID = "shared", devToken, 2001
				replayAll(t, srv, clk, run)
			})
			t.Run("bearer", func(t *testing.T) {
				run := base
				run.RunName, run.Token = "minted", mintToken(t, srv, "nextflow")
				if h := nftrace.Authorization(run.Token); h[:7] != "Bearer " {
					t.Fatalf("Nextflow sends a minted token as %q, want Bearer: the token is not in the service's format", h)
				}
				replayAll(t, srv, clk, run)
			})
		})
	}
}

// TestConformingClientReportsThroughServer runs the same three runs
// through the whole server with bodies that follow the schema to the
// letter (Nextflow's, without the service's leniency to lean on) and a
// Bearer token: every answer must be valid for the served document, the
// journal must show each call, and the runs must survive a restart from
// the state file and live on Redis.
func TestConformingClientReportsThroughServer(t *testing.T) {
	base := nftrace.Run{SessionID: "2f7d4c1e-8a4b-4f4e-9c1a-6b8e0d3f5a21", Zone: time.FixedZone("CET", 3600),
		Token: "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.c2ln", Conforming: true}
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			if dc.name == "published" && testenv.RaceEnabled {
				t.Skip("under -race the published schema's replay is left to the plain run; the embedded one runs the same handlers")
			}
			srv, clk := strictServer(t, dc.doc(t), mock.WithTokens(base.Token))
			run := base
			run.RunName = "conforming"
			replayAll(t, srv, clk, run)
		})
	}
	// Under -race the state file and Redis replay one run: they add no
	// handler code of their own to race on.
	var some []string
	if testenv.RaceEnabled {
		some = []string{"failed"}
	}
	t.Run("state file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "state.json")
		clk := clock.NewFake(epoch)
		start := func() *mock.Server {
			srv, _ := strictServer(t, embedded(t), mock.WithState(mock.InFile(file, 0)), mock.WithTokens(base.Token), mock.WithClock(clk))
			return srv
		}
		srv := start()
		run := base
		run.RunName = "saved"
		ids := replayAll(t, srv, clk, run, some...)
		read := func(srv *mock.Server) []string {
			var out []string
			for _, id := range ids {
				for _, p := range []string{"", "/progress", "/tasks", "/task/3", "/metrics"} {
					a := call(t, srv.Handler(), "GET", "/api/workflow/"+id+p, base.Token, nil)
					out = append(out, fmt.Sprintf("%d %s", a.status, a.body))
				}
			}
			return out
		}
		before := read(srv)
		if err := srv.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		after := read(start())
		for i := range before {
			if before[i] != after[i] {
				t.Errorf("answer %d changed across a restart:\nbefore %.300s\nafter  %.300s", i, before[i], after[i])
			}
		}
	})
	t.Run("redis", func(t *testing.T) {
		mr := miniredis.RunT(t)
		clk := clock.NewFake(epoch)
		a := replica(t, mr.Addr(), clk, mock.WithTokens(base.Token))
		run := base
		run.RunName = "shared"
		ids := replayAll(t, a, clk, run, some...)
		// Another replica on the same Redis shows the same runs.
		b := replica(t, mr.Addr(), clk, mock.WithTokens(base.Token))
		for _, id := range ids {
			for _, p := range []string{"", "/progress", "/tasks", "/metrics"} {
				x := call(t, a.Handler(), "GET", "/api/workflow/"+id+p, base.Token, nil)
				y := call(t, b.Handler(), "GET", "/api/workflow/"+id+p, base.Token, nil)
				if x.status != 200 || !bytes.Equal(x.body, y.body) {
					t.Errorf("GET /workflow/%s%s: replica A %d %.200s\nreplica B %d %.200s", id, p, x.status, x.body, y.status, y.body)
				}
			}
		}
	})
}

// TestNextflowReplayUnderStrictMode sends Nextflow's own calls for a run
// to a default fake and to one in strict mode, in step. The default fake
// takes every call and journals what it tolerated; strict mode refuses
// exactly the calls that deviated, with a 400 whose Error ID lists the
// same deviations, and takes the rest. create, begin, progress and
// complete must be among the refused: Nextflow's bodies carry nulls,
// numbers as text and no workflow.submit (issue 26).
func TestNextflowReplayUnderStrictMode(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			if dc.name == "published" && testenv.RaceEnabled {
				t.Skip("under -race the published schema's replay is left to the plain run; the embedded one runs the same handlers")
			}
			doc := dc.doc(t)
			srv, clk := strictServer(t, doc)
			strict, _ := newServer(t, doc, strictRequests(t))
			run := nftrace.Run{SessionID: "5c0b8e61-3f7a-4d8e-a1b2-9e6f4c2d7a10", RunName: "held", Token: devToken, Zone: time.UTC}
			// strict mode's own run, announced with a body that conforms,
			// so that the later calls have a run to address there.
			conforming := run
			conforming.Conforming = true
			c := conforming.Steps()[0].Build("", clk.Now())
			created := call(t, strict.Handler(), c.Method, mock.DefaultBasePath+c.Path, "", c.Body, "Authorization", c.Header.Get("Authorization"))
			strictID, _ := object(t, ok(t, strict.Handler(), created, 200, "a conforming create in strict mode"))["workflowId"].(string)

			id := ""
			refused := map[string]bool{}
			for _, st := range run.Steps() {
				clk.Advance(st.After)
				c := st.Build(id, clk.Now())
				a := call(t, srv.Handler(), c.Method, mock.DefaultBasePath+c.Path, "", c.Body, "Authorization", c.Header.Get("Authorization"))
				if a.status != 200 {
					t.Fatalf("%s (%s %s) on the default fake: %d %s", st.Name, c.Method, c.Path, a.status, a.body)
				}
				if st.Name == "create" {
					id, _ = object(t, a)["workflowId"].(string)
				}
				tolerated := kinds(lastRequest(t, srv, "?n=1")[0].Deviations)

				path := c.Path
				if id != "" && st.Name != "create" {
					path = strings.Replace(path, id, strictID, 1)
				}
				r := call(t, strict.Handler(), c.Method, mock.DefaultBasePath+path, "", c.Body, "Authorization", c.Header.Get("Authorization"))
				if len(tolerated) == 0 {
					if r.status != 200 {
						t.Errorf("%s: strict mode answered %d to a call with nothing to tolerate: %s", st.Name, r.status, r.body)
					}
					continue
				}
				refused[strings.Fields(st.Name)[0]] = true
				if got := refusedFor(t, strict, r); !slices.Equal(got, tolerated) {
					t.Errorf("%s: strict mode names %q, the default fake tolerated %q", st.Name, got, tolerated)
				}
			}
			for _, step := range []string{"create", "begin", "progress", "complete"} {
				if !refused[step] {
					t.Errorf("strict mode took Nextflow's %s call: it deviates from the schema (nulls, numbers as text, no submit)", step)
				}
			}
		})
	}
}
