package runs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/nftrace"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/resources/resourcestest"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
)

// These tests hand the handlers Nextflow's bodies exactly as its Tower
// client builds them (internal/nftrace): with their nulls, numbers where
// the schema says text, Java's dates and members the schema does not list.
// The server's validation stage is not in the way here, so what is tested
// is that the handlers take what the service takes.

func withStore(st store.Store) fixtureOption {
	return func(f *fixture, d *resources.Deps) { f.store, d.Store = st, st }
}

// redisStore is a store on an in-process Redis.
func redisStore(t *testing.T) store.Store {
	t.Helper()
	mr := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	return redisstore.New(c, "wmsmock", 5*time.Second)
}

// send hands a call of the client to the handlers, as the server would
// once it has authenticated and routed it.
func (f *fixture) send(c nftrace.Call) (int, []byte, error) {
	r := f.Call(c.Method, c.Path, string(c.Body))
	if r.Err != nil {
		return 0, nil, r.Err
	}
	return r.Status, r.Raw, nil
}

// advance is the fixture's clock, for the replay.
func (f *fixture) advance(d time.Duration) time.Time {
	f.clk.Advance(d)
	return f.clk.Now()
}

// replayRun replays one run and checks what a user sees of it.
func replayRun(t *testing.T, f *fixture, run *nftrace.Run) string {
	t.Helper()
	id, problems := run.Replay(f.send, f.advance)
	for _, p := range problems {
		t.Error(p)
	}
	if id == "" {
		t.FailNow()
	}
	for _, p := range run.Check(f.send, id) {
		t.Error(p)
	}
	return id
}

func helloRun(name string, opts ...func(*nftrace.Run)) *nftrace.Run {
	zone := time.FixedZone("CET", 3600)
	r := &nftrace.Run{RunName: name, SessionID: "2f7d4c1e-8a4b-4f4e-9c1a-6b8e0d3f5a21", Zone: zone, Token: "wmsmock-dev-token"}
	for _, o := range opts {
		o(r)
	}
	return r
}

// The three runs of nextflow-io/hello, on the embedded document and the
// published schema, on memory and on Redis: a successful one, a failed
// one, and one the service launched (Nextflow reports on it under its id).
func TestNextflowRuns(t *testing.T) {
	docs := []struct {
		name string
		doc  func(testing.TB) *spec.Document
	}{
		{"embedded", embeddedDoc},
		{"published", func(tb testing.TB) *spec.Document {
			doc, err := spec.LoadFile(testenv.PublishedSpec(tb, ""))
			if err != nil {
				tb.Fatal(err)
			}
			return doc
		}},
	}
	stores := []struct {
		name string
		new  func(*testing.T) store.Store
	}{
		{"memory", func(*testing.T) store.Store { return store.NewMemory() }},
		{"redis", redisStore},
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			if d.name == "published" && testenv.RaceEnabled {
				t.Skip("the published schema's answers are checked without -race only (its validator takes a minute to build under the race detector); the embedded half runs the same handlers there")
			}
			doc := d.doc(t)
			for _, s := range stores {
				t.Run(s.name, func(t *testing.T) {
					if s.name == "redis" && testenv.RaceEnabled {
						t.Skip("under -race the handlers run on memory only; the Redis store has race tests of its own")
					}
					f := newFixture(t, doc, true, withStore(s.new(t)))
					t.Run("succeeded", func(t *testing.T) { replayRun(t, f, helloRun("boring_fermi")) })
					t.Run("failed", func(t *testing.T) {
						replayRun(t, f, helloRun("angry_hopper", func(r *nftrace.Run) { r.Fail = true }))
					})
					t.Run("launched", func(t *testing.T) {
						l := f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nextflow-io/hello","runName":"tower_launched"}}`)
						launched := fmt.Sprint(l.Body["workflowId"])
						id := replayRun(t, f, helloRun("tower_launched", func(r *nftrace.Run) { r.WorkflowID = launched }))
						if id != launched {
							t.Errorf("the launched run %s was reported on as %s", launched, id)
						}
					})
				})
			}
		})
	}
}

// A reported run is not moved by the fake's lifecycle simulation: a
// launched run Nextflow attached to stays as its reports leave it,
// however long it has been since its launch.
func TestReportedRunIsNotSimulated(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	id := fmt.Sprint(f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`).Body["workflowId"])
	run := helloRun("attached", func(r *nftrace.Run) { r.WorkflowID = id })
	steps := run.Steps()
	for _, st := range steps[:2] { // create, begin
		if code, body, err := f.send(st.Build(id, f.clk.Now())); code != 200 {
			t.Fatalf("%s: %d %v %s", st.Name, code, err, body)
		}
	}
	status := func() string { return fmt.Sprint(get(f.OK("GET", "/workflow/"+id, "").Body, "workflow.status")) }
	// The simulation would have ended the run after 2m30s; the client
	// keeps it alive with heartbeats, and it stays RUNNING.
	for range 10 {
		f.clk.Advance(time.Minute)
		f.OK("PUT", "/trace/"+id+"/heartbeat", `{"progress":{"running":0},"instant":1}`)
		if s := status(); s != "RUNNING" {
			t.Fatalf("a reported run reads %s after %v", s, f.clk.Now().Sub(resourcestest.T0))
		}
	}
	tasks := f.OK("GET", "/workflow/"+id+"/tasks", "").Body
	if n := len(list(tasks, "tasks")); n != 0 {
		t.Errorf("a reported run with no task reported lists %d tasks (the simulation's plan)", n)
	}
}

// A started run whose client stops reporting reads as UNKNOWN once the
// profile's limit has passed on the fake's clock, and RUNNING again if
// its client comes back; a run not yet begun stays SUBMITTED.
func TestSilentRunIsUnknown(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	limit := f.prof.Workflows.UnknownAfter
	if limit != 190*time.Second {
		t.Fatalf("workflows.unknown_after is %v, want the service's 190s", limit)
	}
	created := f.OK("POST", "/trace/create", `{"runName":"quiet_one","sessionId":"s-1","projectName":"nextflow-io/hello","workflowId":null}`)
	id := fmt.Sprint(created.Body["workflowId"])
	describe := func() map[string]any { return f.OK("GET", "/workflow/"+id, "").Body }
	f.clk.Advance(time.Hour)
	if s := get(describe(), "workflow.status"); s != "SUBMITTED" {
		t.Fatalf("a run created but never begun reads %v", s)
	}
	f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"start":"2026-03-01T13:00:00Z","complete":null},"processNames":["a"]}`)
	began := f.clk.Now()
	f.clk.Advance(limit)
	if s := get(describe(), "workflow.status"); s != "RUNNING" {
		t.Fatalf("silent for exactly the limit: %v", s)
	}
	f.clk.Advance(time.Second)
	d := describe()
	if s := get(d, "workflow.status"); s != "UNKNOWN" {
		t.Fatalf("silent for longer than the limit: %v", s)
	}
	if lu := get(d, "workflow.lastUpdated"); lu != resources.Stamp(began.Add(limit)) {
		t.Errorf("an UNKNOWN run's lastUpdated is %v, want when it was marked (%s)", lu, resources.Stamp(began.Add(limit)))
	}
	if get(d, "workflow.complete") != nil {
		t.Errorf("an UNKNOWN run has a complete time: %v", get(d, "workflow.complete"))
	}
	f.OK("PUT", "/trace/"+id+"/heartbeat", `{}`)
	if s := get(describe(), "workflow.status"); s != "RUNNING" {
		t.Fatalf("after a heartbeat: %v", s)
	}
	f.OK("PUT", "/trace/"+id+"/complete", `{"workflow":{"success":true,"exitStatus":0,"errorMessage":null}}`)
	f.clk.Advance(24 * time.Hour)
	if s := get(describe(), "workflow.status"); s != "SUCCEEDED" {
		t.Fatalf("a completed run, a day later: %v", s)
	}

	// 0 turns the limit off.
	p := f.prof.Clone()
	p.Workflows.UnknownAfter = 0
	g := newFixture(t, embeddedDoc(t), false, withProfile(p))
	id = fmt.Sprint(g.OK("POST", "/trace/create", `{"runName":"patient"}`).Body["workflowId"])
	g.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{}}`)
	g.clk.Advance(30 * 24 * time.Hour)
	if s := get(g.OK("GET", "/workflow/"+id, "").Body, "workflow.status"); s != "RUNNING" {
		t.Errorf("with unknown_after 0, a silent run reads %v", s)
	}
}

// Tasks are upserted by taskId: a task reported again moves from its old
// state's counters to its new one's, per process too, and is listed once;
// fields a later report leaves out, or sends as null as Nextflow does,
// keep their earlier values exactly (text with characters JSON escapes
// included), and a field no report gave reads null; tasks list in taskId
// order however they were batched.
func TestTaskUpserts(t *testing.T) {
	for _, s := range []struct {
		name string
		doc  func(testing.TB) *spec.Document
		new  func(*testing.T) store.Store
	}{
		{"memory", embeddedDoc, func(*testing.T) store.Store { return store.NewMemory() }},
		{"redis", embeddedDoc, redisStore},
		{"published", resourcestest.PublishedDoc, func(*testing.T) store.Store { return store.NewMemory() }},
	} {
		t.Run(s.name, func(t *testing.T) {
			f := newFixture(t, s.doc(t), false, withStore(s.new(t)))
			id := fmt.Sprint(f.OK("POST", "/trace/create", `{"runName":"upserts"}`).Body["workflowId"])
			f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"runName":"upserts"},"processNames":["ALIGN","SORT"]}`)
			report := func(tasks ...string) {
				t.Helper()
				f.OK("PUT", "/trace/"+id+"/progress", `{"tasks":[`+strings.Join(tasks, ",")+`],"progress":{}}`)
			}
			report(`{"taskId":3,"status":"NEW","process":"SORT","name":"SORT (1)","cpus":2,"memory":1000}`,
				`{"taskId":1,"status":"RUNNING","process":"ALIGN","name":"ALIGN (1)","cpus":4,"memory":2000,"nativeId":777,"tag":"s\"1 <é> & \\x"}`,
				`{"taskId":2,"status":"SUBMITTED","process":"ALIGN","name":"ALIGN (2)","cpus":4}`)
			counters := func(want map[string]int64) {
				t.Helper()
				p := f.OK("GET", "/workflow/"+id+"/progress", "").Body
				for path, n := range want {
					if got := nftrace.Field(p, "progress."+path); got != float64(n) {
						t.Errorf("%s = %v, want %d", path, got, n)
					}
				}
			}
			procs := list(f.OK("GET", "/workflow/"+id+"/progress", "").Body, "progress.processesProgress")
			if len(procs) != 2 || get(procs[0], "process") != "ALIGN" || get(procs[1], "process") != "SORT" {
				t.Fatalf("processes: %v", procs)
			}
			counters(map[string]int64{"workflowProgress.pending": 1, "workflowProgress.running": 1, "workflowProgress.submitted": 1,
				"workflowProgress.loadCpus": 4, "workflowProgress.loadMemory": 2000, "workflowProgress.cpus": 10,
				"processesProgress.0.running": 1, "processesProgress.0.submitted": 1, "processesProgress.1.pending": 1})
			// Task 1 completes (without repeating its cpus: kept from before),
			// task 3 starts, and task 2 is reported twice in one batch.
			report(`{"taskId":1,"status":"COMPLETED","realtime":1000,"pcpu":50.0,"peakRss":300,"exit":0,"tag":null,"name":null}`,
				`{"taskId":2,"status":"RUNNING"}`, `{"taskId":3,"status":"RUNNING"}`, `{"taskId":2,"status":"FAILED","errorAction":"RETRY"}`)
			counters(map[string]int64{"workflowProgress.pending": 0, "workflowProgress.running": 1, "workflowProgress.submitted": 0,
				"workflowProgress.succeeded": 1, "workflowProgress.failed": 1, "workflowProgress.retries": 1,
				"workflowProgress.loadCpus": 2, "workflowProgress.loadMemory": 1000, "workflowProgress.loadTasks": 1,
				"workflowProgress.peakTasks": 1, "workflowProgress.peakCpus": 4, "workflowProgress.cpus": 10,
				"workflowProgress.cpuTime": 4000, "workflowProgress.cpuLoad": 500, "workflowProgress.memoryRss": 300,
				"processesProgress.0.succeeded": 1, "processesProgress.0.failed": 1, "processesProgress.0.running": 0,
				"processesProgress.1.running": 1, "processesProgress.1.pending": 0})
			tasks := list(f.OK("GET", "/workflow/"+id+"/tasks", "").Body, "tasks")
			if len(tasks) != 3 {
				t.Fatalf("%d tasks listed, want 3: %v", len(tasks), tasks)
			}
			for i, want := range []string{"COMPLETED", "FAILED", "RUNNING"} {
				if got := get(tasks[i], "task.status"); get(tasks[i], "task.taskId") != float64(i+1) || got != want {
					t.Errorf("task %d: %v %v, want taskId %d %s", i, get(tasks[i], "task.taskId"), got, i+1, want)
				}
			}
			one := f.OK("GET", "/workflow/"+id+"/task/1", "").Body
			if get(one, "task.cpus") != float64(4) || get(one, "task.nativeId") != "777" || get(one, "task.name") != "ALIGN (1)" ||
				get(one, "task.tag") != "s\"1 <é> & \\x" {
				t.Errorf("task 1 lost what an earlier report said: %v", one)
			}
			if got := get(one, "task.hash"); got != nil {
				t.Errorf("task 1's hash, which no report gave, reads %v", got)
			}
			// Each task in the list is the task its own call describes, every
			// field: one record, read through the list's page and on its own
			// (the store keeps tasks packed, and rebuilds both).
			for i := range tasks {
				alone := f.OK("GET", fmt.Sprintf("/workflow/%s/task/%d", id, i+1), "").Body
				if listed, described := get(tasks[i], "task"), get(alone, "task"); !reflect.DeepEqual(listed, described) {
					t.Errorf("task %d listed as %v, described as %v", i+1, listed, described)
				}
			}
			f.Refused(apierror.Forbidden, "GET", "/workflow/"+id+"/task/4", "")
			f.Refused(apierror.Forbidden, "GET", "/workflow/"+id+"/task/x", "")
		})
	}
}

// Bad reports are refused with the service's Bad Request, before anything
// is stored; reports on a run that does not exist, or in another
// workspace, get the missing-resource answer.
func TestTraceRefusals(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), true)
	id := fmt.Sprint(f.OK("POST", "/trace/create", `{"runName":"r"}`).Body["workflowId"])
	f.Refused(apierror.BadRequest, "PUT", "/trace/"+id+"/progress", `{"tasks":[{"taskId":1,"status":"NEW"},{"status":"NEW"}]}`)
	f.Refused(apierror.BadRequest, "PUT", "/trace/"+id+"/progress", `{"tasks":[7]}`)
	f.Refused(apierror.BadRequest, "PUT", "/trace/"+id+"/progress", `{"tasks":`)
	if n := len(list(f.OK("GET", "/workflow/"+id+"/tasks", "").Body, "tasks")); n != 0 {
		t.Errorf("a refused batch stored %d tasks", n)
	}
	for _, op := range []string{"begin", "progress", "heartbeat", "complete"} {
		f.Refused(apierror.Forbidden, "PUT", "/trace/noSuchRun0000/"+op, `{}`)
		f.Refused(apierror.Forbidden, "PUT", "/trace/"+id+"/"+op+"?workspaceId=2001", `{}`)
	}
	f.Refused(apierror.Forbidden, "POST", "/trace/create", `{"workflowId":"noSuchRun0000"}`)
	f.Refused(apierror.Forbidden, "POST", "/trace/create?workspaceId=999999", `{"runName":"nowhere"}`)
	f.Refused(apierror.BadRequest, "POST", "/trace/create?workspaceId=x", `{}`)
	// A run in a workspace is created there, and found only there.
	ws := fmt.Sprint(f.OK("POST", "/trace/create?workspaceId=2001", `{"runName":"in_ws"}`).Body["workflowId"])
	f.OK("GET", "/workflow/"+ws+"?workspaceId=2001", "")
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+ws+"?workspaceId=2002", "")
	f.Refused(apierror.Forbidden, "POST", "/trace/create?workspaceId=2002", `{"workflowId":"`+ws+`"}`)
}

// Deleting a reported run removes its tasks and details with it.
func TestDeleteReportedRun(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	id := fmt.Sprint(f.OK("POST", "/trace/create", `{"runName":"doomed"}`).Body["workflowId"])
	f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"configText":"x = 1"}}`)
	var tasks []string
	for i := 1; i <= 1200; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"taskId":%d,"status":"COMPLETED","process":"p"}`, i))
	}
	for i := 0; i < len(tasks); i += 100 {
		f.OK("PUT", "/trace/"+id+"/progress", `{"tasks":[`+strings.Join(tasks[i:i+100], ",")+`]}`)
	}
	f.Refused(apierror.BadRequest, "DELETE", "/workflow/"+id, "")
	f.OK("DELETE", "/workflow/"+id+"?force=true", "")
	_, n, err := f.store.Page(resources.TasksCollection, store.Query{List: taskList(id), Limit: 1})
	if err != nil || n != 0 {
		t.Errorf("after the delete, the run's list holds %d tasks (%v)", n, err)
	}
	if _, err := f.store.Get(resources.TraceDetailsCollection, id); err == nil {
		t.Error("the run's details outlived it")
	}
	f.Refused(apierror.Forbidden, "GET", "/workflow/"+id+"/task/1", "")
}

// Values a client sends in another type than the schema's are shown in
// the schema's: a build number and a native id as text, times in the
// service's form, whatever offset or precision they came in.
func TestReportedValuesNormalized(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	id := fmt.Sprint(f.OK("POST", "/trace/create", `{"runName":"typed","sessionId":null,"workflowId":null,"instant":1772366400000}`).Body["workflowId"])
	f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"start":"2026-03-01T13:00+01:00","nextflow":{"version":"24.10.4","build":5934,"timestamp":"2024-12-09T18:04:22Z"},"resume":"false","commandLine":null}}`)
	f.OK("PUT", "/trace/"+id+"/progress", `{"tasks":[{"taskId":"1","status":"RUNNING","nativeId":4242,"submit":1772366401234,"start":"2026-03-01T13:00:02.5+01:00","tag":null}]}`)
	d := f.OK("GET", "/workflow/"+id, "").Body
	for path, want := range map[string]any{"workflow.start": "2026-03-01T12:00:00Z", "workflow.nextflow.build": "5934", "workflow.status": "RUNNING"} {
		if got := get(d, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	task := f.OK("GET", "/workflow/"+id+"/task/1", "").Body
	for path, want := range map[string]any{"task.nativeId": "4242", "task.submit": "2026-03-01T12:00:01Z", "task.start": "2026-03-01T12:00:02Z"} {
		if got := get(task, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	// A null the client sent says "no value": the task shows the tag as
	// unset, like everything else it did not report (null, as the
	// service's serializer writes it); nothing it did not report has a
	// value.
	reported := []string{"taskId", "status", "nativeId", "submit", "start"}
	for k, v := range get(task, "task").(map[string]any) {
		if v != nil && !slices.Contains(reported, k) {
			t.Errorf("task.%s = %v, which the client never reported", k, v)
		}
	}
	if v, has := get(task, "task").(map[string]any)["tag"]; has && v != nil {
		t.Errorf("task.tag = %v, sent as null", v)
	}
}

// A run announced again (a head job retried under the same run) starts
// its reporting over, SUBMITTED until it begins again, and keeps the
// tasks it reported: their counters still agree with them when the same
// tasks are reported again.
func TestRunAnnouncedAgainKeepsItsTasks(t *testing.T) {
	f := newFixture(t, embeddedDoc(t), false)
	id := fmt.Sprint(f.OK("POST", "/workflow/launch", `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`).Body["workflowId"])
	create := `{"runName":"again","sessionId":"s","workflowId":"` + id + `"}`
	f.OK("POST", "/trace/create", create)
	f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{"start":"2026-03-01T12:00:00Z"},"processNames":["p"]}`)
	f.OK("PUT", "/trace/"+id+"/progress", `{"tasks":[{"taskId":1,"status":"COMPLETED","process":"p"},{"taskId":2,"status":"RUNNING","process":"p"}]}`)
	if got := f.OK("POST", "/trace/create", create).Body["workflowId"]; got != id {
		t.Fatalf("announced again: %v, want %s", got, id)
	}
	if s := get(f.OK("GET", "/workflow/"+id, "").Body, "workflow.status"); s != "SUBMITTED" {
		t.Errorf("announced again: %v, want SUBMITTED", s)
	}
	f.OK("PUT", "/trace/"+id+"/begin", `{"workflow":{},"processNames":["p"]}`)
	f.OK("PUT", "/trace/"+id+"/progress", `{"tasks":[{"taskId":2,"status":"COMPLETED","process":"p"},{"taskId":3,"status":"NEW","process":"p"}]}`)
	p := f.OK("GET", "/workflow/"+id+"/progress", "").Body
	for path, want := range map[string]float64{
		"progress.workflowProgress.succeeded": 2, "progress.workflowProgress.running": 0, "progress.workflowProgress.pending": 1,
		"progress.processesProgress.0.succeeded": 2, "progress.totalProcesses": 1,
	} {
		if got := nftrace.Field(p, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
}
