// Package nftrace builds the calls Nextflow's Tower client (plugin
// nf-tower: TowerClient, TowerObserver, TowerJsonGenerator) makes when a
// run of nextflow-io/hello is started with -with-tower, as Nextflow builds
// them: the endpoints in their order, the bodies with their nulls, their
// numbers where the service's schema says text, the dates as Java renders
// them, the members the schema does not list (instant, dag, platform...),
// the members it requires that Nextflow never sends (workflow.submit),
// and the Authorization header Nextflow picks for a token. It is for
// tests: a replay of a run against the fake, then checks of what a user
// sees through the API.
//
// The facts come from reading the client's source (nextflow-io/nextflow);
// the code is this project's own.
package nftrace

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/workflow"
)

// Nextflow's version and build, as NextflowMeta reports them.
const (
	Version = workflow.NextflowVersion
	Build   = workflow.NextflowBuild
)

// TasksPerRequest is the most tasks Nextflow puts in one progress call.
const TasksPerRequest = 100

// AliveInterval is how long Nextflow's client waits without task events
// before it sends a heartbeat.
const AliveInterval = time.Minute

// Greetings are what nextflow-io/hello says hello in: one task of its one
// process each, numbered from 1 in this order.
var Greetings = []string{"Bonjour", "Ciao", "Hello", "Hola"}

// Process is the one process of nextflow-io/hello.
const Process = "sayHello"

// Call is one request of the client.
type Call struct {
	// Step names the call in the run: create, begin, progress 2...
	Step   string
	Method string
	// Path is relative to the endpoint, with its query.
	Path   string
	Header http.Header
	Body   []byte
}

// Step is one call of a run, built when it is made: its body depends on
// the run's id (known once create has answered) and on the moment.
type Step struct {
	Name string
	// After is how long the client waits before the call.
	After time.Duration
	build func(id string, now time.Time) Call
}

// Build makes the call for a run with this id (the create step takes ""),
// at the moment now on the client's clock. Steps are built in order.
func (s Step) Build(id string, now time.Time) Call {
	c := s.build(id, now)
	c.Step = s.Name
	return c
}

// Run is one run of nextflow-io/hello.
type Run struct {
	// RunName and SessionID are Nextflow's (-name, the session's UUID).
	RunName, SessionID string
	// WorkspaceID is tower.workspaceId (0: the personal context, no query).
	WorkspaceID int64
	// WorkflowID is TOWER_WORKFLOW_ID: the id of a run the service
	// launched, which Nextflow then reports on ("" for a run started by
	// hand, when Nextflow sends null).
	WorkflowID string
	// Fail makes the task saying hello in the third greeting fail, and
	// so the run: the fourth is aborted.
	Fail bool
	// Zone is the machine's time zone, in which Nextflow renders times.
	Zone *time.Location
	// Token is TOWER_ACCESS_TOKEN; the Authorization header depends on it.
	Token string
	// Conforming makes the bodies what a client that follows the
	// service's schema to the letter would send: Nextflow's, without its
	// nulls, with text where the schema says text, and workflow.submit.
	// Nextflow never sends such bodies; they check the rest of the way
	// (routes, answers, state) against a strict server.
	Conforming bool

	tasks   []*task
	started time.Time
	pid     int64
}

// task is one task's state, as its TraceRecord holds it.
type task struct {
	id                      int
	status                  string
	submit, start, complete time.Time
	exit                    int64
	errorAction             string
}

// Final task statuses of a run, by taskId (from 1).
func (r *Run) FinalStatuses() []string {
	if !r.Fail {
		return []string{"COMPLETED", "COMPLETED", "COMPLETED", "COMPLETED"}
	}
	return []string{"COMPLETED", "COMPLETED", "FAILED", "ABORTED"}
}

// ErrorMessage is what a failed run reports as its error.
const ErrorMessage = "Process `sayHello (3)` terminated with an error exit status (1)"

// Steps lists the run's calls in order. A run started by hand and one the
// service launched make the same calls; a failed run sends its last tasks
// with the completion, as Nextflow flushes its queue at the end.
func (r *Run) Steps() []Step {
	r.tasks = make([]*task, len(Greetings))
	for i := range r.tasks {
		r.tasks[i] = &task{id: i + 1, exit: math.MaxInt32} // not created yet
	}
	r.pid = 40211
	steps := []Step{
		{Name: "create", build: r.create},
		{Name: "begin", After: 600 * time.Millisecond, build: r.begin},
		{Name: "progress 1", After: 1100 * time.Millisecond, build: r.progressOf([]int{1, 2}, "RUNNING", []int{3, 4}, "SUBMITTED")},
	}
	if r.Fail {
		return append(steps,
			Step{Name: "progress 2", After: 1200 * time.Millisecond, build: r.progressOf([]int{1, 2}, "COMPLETED", []int{3}, "FAILED", []int{4}, "RUNNING")},
			Step{Name: "heartbeat", After: AliveInterval + 150*time.Millisecond, build: r.heartbeat},
			Step{Name: "progress 3", After: 4 * time.Second, build: r.progressOf([]int{4}, "ABORTED")},
			Step{Name: "complete", After: 300 * time.Millisecond, build: r.complete},
		)
	}
	return append(steps,
		Step{Name: "progress 2", After: 1200 * time.Millisecond, build: r.progressOf([]int{1, 2}, "COMPLETED", []int{3, 4}, "RUNNING")},
		Step{Name: "heartbeat", After: AliveInterval + 150*time.Millisecond, build: r.heartbeat},
		Step{Name: "progress 3", After: 9 * time.Second, build: r.progressOf([]int{3, 4}, "COMPLETED")},
		Step{Name: "complete", After: 300 * time.Millisecond, build: r.complete},
	)
}

func (r *Run) query() string {
	if r.WorkspaceID == 0 {
		return ""
	}
	return "?workspaceId=" + strconv.FormatInt(r.WorkspaceID, 10)
}

func (r *Run) call(step, method, path string, body map[string]any) Call {
	if r.Conforming && body != nil {
		conform(body)
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic(err) // the bodies are built here from plain values
	}
	h := http.Header{}
	h.Set("User-Agent", "Nextflow/"+Version)
	h.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Authorization", Authorization(r.Token))
	return Call{Step: step, Method: method, Path: path + r.query(), Header: h, Body: b}
}

// create announces the run: TowerObserver.makeCreateReq.
func (r *Run) create(_ string, now time.Time) Call {
	var wfID any // null unless TOWER_WORKFLOW_ID is set
	if r.WorkflowID != "" {
		wfID = r.WorkflowID
	}
	return r.call("create", http.MethodPost, "/trace/create", map[string]any{
		"sessionId": r.SessionID, "runName": r.RunName, "projectName": "nextflow-io/hello",
		"repository": "https://github.com/nextflow-io/hello", "workflowId": wfID, "instant": now.UnixMilli(),
	})
}

// workflow is WorkflowMetadata.toMap as begin and complete send it.
func (r *Run) workflow(id string, done bool, now time.Time) map[string]any {
	home := "/home/ada"
	launch := home + "/runs"
	w := map[string]any{
		"runName": r.RunName, "scriptId": "0b8a3f4c4e5d7b1d2b9f7c0e5e1c3a5d", "scriptFile": home + "/.nextflow/assets/nextflow-io/hello/main.nf",
		"scriptName": "main.nf", "repository": "https://github.com/nextflow-io/hello",
		"commitId": "7588c46ffefb4e3c06d4ab32c745c4d5e56cdad8", "revision": "master",
		"start": JavaTime(r.started, r.Zone), "complete": nil, "duration": nil, "container": nil,
		"commandLine": "nextflow run nextflow-io/hello -name " + r.RunName + " -with-tower",
		"nextflow": map[string]any{
			"version": Version, "build": Build, "timestamp": "2024-12-09T18:04:22Z", "enable": map[string]any{},
		},
		"success": false, "projectDir": home + "/.nextflow/assets/nextflow-io/hello", "projectName": "nextflow-io/hello",
		"launchDir": launch, "outputDir": launch + "/results", "workDir": launch + "/work", "homeDir": home,
		"userName": "ada", "exitStatus": nil, "errorMessage": nil, "errorReport": nil, "profile": "standard",
		"sessionId": r.SessionID, "resume": false, "stubRun": false, "preview": false, "containerEngine": nil,
		"wave":        map[string]any{"enabled": false},
		"fusion":      map[string]any{"enabled": false, "version": nil},
		"configFiles": []any{home + "/.nextflow/assets/nextflow-io/hello/nextflow.config"},
		"manifest": map[string]any{
			"author": nil, "contributors": []any{}, "defaultBranch": "master", "description": nil, "docsUrl": nil,
			"doi": nil, "gitmodules": nil, "homePage": nil, "icon": nil, "license": nil, "mainScript": "main.nf",
			"name": "nextflow-io/hello", "nextflowVersion": nil, "organization": nil, "recurseSubmodules": false, "version": nil,
		},
		"failOnIgnore": false,
		"params":       map[string]any{},
		"id":           id,
		"configText":   "process {\n   executor = 'local'\n}\n\ntower {\n   enabled = true\n}\n",
		"operationId":  nil, "logFile": nil, "outFile": nil,
	}
	if !done {
		w["platform"] = map[string]any{
			"workflowId": id, "workflowUrl": nil, "user": nil, "workspace": nil, "computeEnv": nil,
			"pipeline": nil, "labels": nil, "schedRunId": nil,
		}
		return w
	}
	w["complete"] = JavaTime(now, r.Zone)
	w["duration"] = now.Sub(r.started).Milliseconds()
	w["success"] = !r.Fail
	w["exitStatus"] = 0
	if r.Fail {
		w["exitStatus"] = 1
		w["errorMessage"] = ErrorMessage
		w["errorReport"] = "Error executing process > 'sayHello (3)'\n\nCaused by:\n  " + ErrorMessage + "\n\nCommand executed:\n\n  echo 'Hola world!'; exit 1\n"
	}
	w["stats"] = r.stats(now)
	return w
}

// conform turns a body of Nextflow's into one the service's schema
// accepts as it is (see Run.Conforming).
func conform(body map[string]any) {
	dropNulls(body)
	if w, ok := body["workflow"].(map[string]any); ok {
		if _, has := w["submit"]; !has {
			w["submit"] = w["start"]
		}
		if n, ok := w["nextflow"].(map[string]any); ok {
			n["build"] = fmt.Sprint(n["build"])
		}
	}
	tasks, _ := body["tasks"].([]any)
	for _, t := range tasks {
		if m, ok := t.(map[string]any); ok && m["nativeId"] != nil {
			m["nativeId"] = fmt.Sprint(m["nativeId"])
		}
	}
}

// dropNulls removes null members at any depth, but a run's parameters,
// which are free-form.
func dropNulls(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else if k != "params" {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range x {
			dropNulls(e)
		}
	}
}

// begin reports the run started: TowerObserver.makeBeginReq.
func (r *Run) begin(id string, now time.Time) Call {
	r.started = now
	return r.call("begin", http.MethodPut, "/trace/"+id+"/begin", map[string]any{
		"workflow": r.workflow(id, false, now), "processNames": []any{Process}, "towerLaunch": r.WorkflowID != "",
		"dag": map[string]any{
			"vertices": []any{
				map[string]any{"id": 0, "label": "Channel.of", "type": "ORIGIN"},
				map[string]any{"id": 1, "label": Process, "type": "PROCESS"},
				map[string]any{"id": 2, "label": "view", "type": "OPERATOR"},
			},
			"edges": []any{map[string]any{"from": 0, "to": 1}, map[string]any{"from": 1, "to": 2}},
		},
		"instant": now.UnixMilli(),
	})
}

// progressOf moves groups of tasks to new statuses, then reports them:
// its arguments are pairs of task numbers and the status they reach.
func (r *Run) progressOf(groups ...any) func(string, time.Time) Call {
	return func(id string, now time.Time) Call {
		var batch []*task
		for i := 0; i+1 < len(groups); i += 2 {
			for _, n := range groups[i].([]int) {
				t := r.tasks[n-1]
				r.move(t, groups[i+1].(string), now)
				batch = append(batch, t)
			}
		}
		tasks := make([]any, 0, len(batch))
		for _, t := range batch {
			tasks = append(tasks, r.taskMap(id, t))
		}
		return r.call("progress", http.MethodPut, "/trace/"+id+"/progress", map[string]any{
			"tasks": tasks, "progress": r.progress(), "containers": []any{}, "instant": now.UnixMilli(),
		})
	}
}

// move takes a task to a status, through the ones before it, at now.
func (r *Run) move(t *task, status string, now time.Time) {
	if t.submit.IsZero() {
		t.submit = now.Add(-700 * time.Millisecond)
	}
	switch status {
	case "RUNNING":
		t.start = now.Add(-300 * time.Millisecond)
	case "COMPLETED", "FAILED":
		if t.start.IsZero() {
			t.start = t.submit.Add(200 * time.Millisecond)
		}
		t.complete = now.Add(-100 * time.Millisecond)
		t.exit = 0
		if status == "FAILED" {
			t.exit, t.errorAction = 1, "TERMINATE"
		}
	}
	t.status = status
}

// taskMap is a task's TraceRecord as the client sends it
// (TowerObserver.makeTaskMap0): its fields in camelCase, times as Java
// renders an OffsetDateTime in the machine's zone, unset values null, the
// process id of a local task as a number.
func (r *Run) taskMap(id string, t *task) map[string]any {
	greeting := Greetings[t.id-1]
	hash := fmt.Sprintf("%02x/%06x", (t.id*53)%256, (t.id*104729)%0xffffff)
	at := func(tm time.Time) any {
		if tm.IsZero() {
			return nil
		}
		return JavaTime(tm, r.Zone)
	}
	m := map[string]any{
		"taskId": t.id, "status": t.status, "hash": hash, "name": fmt.Sprintf("%s (%d)", Process, t.id),
		"exit": t.exit, "submit": at(t.submit), "start": at(t.start), "process": Process, "tag": nil,
		"module": []any{}, "container": nil, "attempt": 1,
		"script": "\n    echo '" + greeting + " world!'\n    ", "scratch": nil,
		"workdir": "/home/ada/runs/work/" + hash + "3c1e0f2b9a8d7c6b5a4f3e2d1c0b9a",
		"queue":   nil, "cpus": 1, "memory": nil, "disk": nil, "time": nil, "env": nil,
		"accelerator": nil, "acceleratorType": nil, "nativeId": r.pid + int64(t.id),
		"executor": "local", "cloudZone": nil, "machineType": nil, "priceModel": nil,
		"numSpotInterruptions": nil, "logStreamId": nil, "resourceAllocation": nil, "gpuMetrics": nil,
	}
	if t.status == "COMPLETED" || t.status == "FAILED" || t.status == "ABORTED" {
		m["errorAction"] = nil
		if t.errorAction != "" {
			m["errorAction"] = t.errorAction
		}
	}
	if !t.complete.IsZero() {
		m["complete"] = at(t.complete)
		m["duration"] = t.complete.Sub(t.submit).Milliseconds()
		m["realtime"] = t.complete.Sub(t.start).Milliseconds()
		for k, v := range usageOf(t).fields() {
			m[k] = v
		}
	}
	return m
}

// usage is what a finished task's .command.trace file gives.
type usage struct {
	pcpu                             float64
	rss, peakRss, vmem, rchar, wchar int64
	volCtxt                          int64
}

func usageOf(t *task) usage {
	n := int64(t.id)
	return usage{pcpu: float64(400+37*n) / 10, rss: 3112 * 1024 * n, peakRss: 3300 * 1024 * n, vmem: 11480 * 1024,
		rchar: 120_000 + 1000*n, wchar: 300 + n, volCtxt: 5 + n}
}

func (u usage) fields() map[string]any {
	return map[string]any{
		"pcpu": u.pcpu, "pmem": 0.1, "rss": u.rss, "vmem": u.vmem, "peakRss": u.peakRss, "peakVmem": u.vmem,
		"rchar": u.rchar, "wchar": u.wchar, "syscr": 250, "syscw": 12, "readBytes": 0, "writeBytes": 4096,
		"volCtxt": u.volCtxt, "invCtxt": 1, "cpuModel": "Intel(R) Xeon(R) CPU @ 2.20GHz",
	}
}

// counts are the run's task counters as Nextflow's WorkflowStats keeps them.
type counts struct {
	pending, submitted, running, succeeded, failed, aborted int
}

func (r *Run) counts() counts {
	var c counts
	for _, t := range r.tasks {
		switch t.status {
		case "NEW":
			c.pending++
		case "SUBMITTED":
			c.submitted++
		case "RUNNING":
			c.running++
		case "COMPLETED":
			c.succeeded++
		case "FAILED":
			c.failed++
		case "ABORTED":
			c.aborted++
		}
	}
	return c
}

// progress is WorkflowProgress as the client sends it, with the one
// process's ProgressRecord (less the members the client drops).
func (r *Run) progress() map[string]any {
	c := r.counts()
	peak := max(c.running, 2)
	load := map[string]any{
		"pending": c.pending, "submitted": c.submitted, "running": c.running, "succeeded": c.succeeded,
		"cached": 0, "failed": c.failed, "aborted": c.aborted, "ignored": 0, "retries": 0,
		"loadCpus": c.running, "loadMemory": 0, "peakRunning": peak, "peakCpus": peak, "peakMemory": 0,
	}
	proc := map[string]any{"index": 1, "name": Process, "workDir": nil, "stored": 0, "terminated": c.pending+c.submitted+c.running == 0}
	for k, v := range load {
		proc[k] = v
	}
	load["processes"] = []any{proc}
	return load
}

// heartbeat keeps the run alive: TowerObserver.makeHeartbeatReq.
func (r *Run) heartbeat(id string, now time.Time) Call {
	return r.call("heartbeat", http.MethodPut, "/trace/"+id+"/heartbeat", map[string]any{
		"progress": r.progress(), "instant": now.UnixMilli(),
	})
}

// complete reports the end: TowerObserver.makeCompleteReq.
func (r *Run) complete(id string, now time.Time) Call {
	w := r.workflow(id, true, now)
	return r.call("complete", http.MethodPut, "/trace/"+id+"/complete", map[string]any{
		"workflow": w, "metrics": r.metrics(), "progress": r.progress(), "instant": now.UnixMilli(),
	})
}

// stats is WorkflowStats as complete's workflow carries it.
func (r *Run) stats(now time.Time) map[string]any {
	c := r.counts()
	total := c.succeeded + c.failed
	pct := func(n int) float64 {
		if total == 0 {
			return 0
		}
		return math.Round(1000*float64(n)/float64(total)) / 10
	}
	var ok, failed int64
	for _, t := range r.tasks {
		if t.complete.IsZero() {
			continue
		}
		if t.status == "COMPLETED" {
			ok += t.complete.Sub(t.start).Milliseconds()
		} else {
			failed += t.complete.Sub(t.start).Milliseconds()
		}
	}
	return map[string]any{
		"totalCount": total, "succeedCount": c.succeeded, "succeededCount": c.succeeded, "failedCount": c.failed,
		"effectiveFailedCount": c.failed, "ignoredCount": 0, "cachedCount": 0, "pendingCount": c.pending,
		"submittedCount": c.submitted, "runningCount": c.running, "retriesCount": 0, "abortedCount": c.aborted,
		"succeedCountFmt": strconv.Itoa(c.succeeded), "cachedCountFmt": "0", "failedCountFmt": strconv.Itoa(c.failed),
		"ignoredCountFmt": "0", "succeedPct": pct(c.succeeded), "cachedPct": 0.0, "ignoredPct": 0.0,
		"effectiveFailedPct": pct(c.failed), "succeedDuration": ok, "failedDuration": failed, "cachedDuration": 0,
		"loadCpus": 0, "loadMemory": 0, "loadMemoryFmt": "0", "peakRunning": 2, "peakCpus": 2, "peakMemory": 0,
		"peakMemoryFmt": "0", "computeTimeFmt": "(a few seconds)", "processes": r.progress()["processes"],
	}
}

// Metric names the series ResourcesAggregator summarizes, in its order.
var Metric = []string{"cpu", "mem", "vmem", "time", "reads", "writes", "cpuUsage", "memUsage", "timeUsage", "gpuUsage", "gpuMemPeak", "gpuMemAvg"}

// metrics is ResourcesAggregator.computeSummaryList: per process, each
// series summarized over the finished tasks (null where no task has a
// value, or all are zero).
func (r *Run) metrics() []any {
	var done []*task
	for _, t := range r.tasks {
		if !t.complete.IsZero() {
			done = append(done, t)
		}
	}
	m := map[string]any{"process": Process}
	for _, name := range Metric {
		m[name] = r.summary(name, done)
	}
	return []any{m}
}

// summary summarizes one series the way ReportSummary does: mean, the
// quartiles by linear interpolation, the names of the tasks at them,
// rounded to two decimals.
func (r *Run) summary(series string, done []*task) any {
	type point struct {
		v    float64
		name string
	}
	var pts []point
	for _, t := range done {
		u := usageOf(t)
		var v float64
		switch series {
		case "cpu", "cpuUsage": // one cpu per task: usage is the percentage
			v = u.pcpu
		case "mem":
			v = float64(u.peakRss)
		case "vmem":
			v = float64(u.vmem)
		case "time":
			v = float64(t.complete.Sub(t.start).Milliseconds())
		case "reads":
			v = float64(u.rchar)
		case "writes":
			v = float64(u.wchar)
		default:
			continue // no memory or time request, no accelerator
		}
		pts = append(pts, point{v, fmt.Sprintf("%s (%d)", Process, t.id)})
	}
	if len(pts) == 0 {
		return nil
	}
	total := 0.0
	for _, p := range pts {
		total += p.v
	}
	slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.v, b.v) })
	round := func(v float64) float64 { return math.Round(v*100) / 100 }
	q := func(pct int) (float64, string) {
		j := float64(len(pts)-1) * float64(pct) / 100
		i, k := int(math.Floor(j)), int(math.Ceil(j))
		return pts[i].v + (j-float64(i))*(pts[k].v-pts[i].v), pts[i].name
	}
	out := map[string]any{"mean": round(total / float64(len(pts)))}
	for _, s := range []struct {
		key, label string
		pct        int
	}{{"min", "minLabel", 0}, {"q1", "q1Label", 25}, {"q2", "q2Label", 50}, {"q3", "q3Label", 75}, {"max", "maxLabel", 100}} {
		v, name := q(s.pct)
		out[s.key], out[s.label] = round(v), name
	}
	if out["min"] == 0.0 && out["max"] == 0.0 {
		return nil
	}
	return out
}

// JavaTime renders t as Java's OffsetDateTime.toString does in zone: to
// the minute, then seconds and a fraction only when they are not zero
// (three, six or nine digits), then Z or the offset.
func JavaTime(t time.Time, zone *time.Location) string {
	if zone == nil {
		zone = time.UTC
	}
	t = t.In(zone)
	s := t.Format("2006-01-02T15:04")
	if ns := t.Nanosecond(); t.Second() != 0 || ns != 0 {
		s += fmt.Sprintf(":%02d", t.Second())
		switch {
		case ns == 0:
		case ns%1_000_000 == 0:
			s += fmt.Sprintf(".%03d", ns/1_000_000)
		case ns%1_000 == 0:
			s += fmt.Sprintf(".%06d", ns/1_000)
		default:
			s += fmt.Sprintf(".%09d", ns)
		}
	}
	_, off := t.Zone()
	if off == 0 {
		return s + "Z"
	}
	return s + t.Format("-07:00")
}

// Authorization is the header Nextflow's client sends with a token
// (TowerClient.setupClientAuth): Bearer for a token that looks like the
// service's own (a JWT, or base64 of a JSON object, a dot and more), else
// Basic with "@token:" and the token as the user.
func Authorization(token string) string {
	if strings.Count(token, ".") == 2 {
		return "Bearer " + token
	}
	if plain, err := decodeBase64(token); err == nil {
		if p := strings.IndexByte(plain, '.'); p >= 0 {
			var obj map[string]any
			if json.Unmarshal([]byte(plain[:p]), &obj) == nil && len(obj) > 0 {
				return "Bearer " + token
			}
		}
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("@token:"+token))
}

// decodeBase64 reads base64 with or without padding.
func decodeBase64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	return string(b), err
}
