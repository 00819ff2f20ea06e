package nftrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// Send makes one call and returns the answer's status and body.
type Send func(c Call) (status int, body []byte, err error)

// Clock moves the client's (and the server's) clock on by d and returns
// the new time.
type Clock func(d time.Duration) time.Time

// Replay makes the run's calls in order through send, moving the clock
// before each as Nextflow would wait, and checks along the way what a
// user sees: the run RUNNING once begun, and its counters (overall and
// per process) agreeing with Nextflow's own after each report. It returns
// the run's id and what went wrong.
func (r *Run) Replay(send Send, clock Clock) (string, []string) {
	var problems []string
	id := ""
	for _, st := range r.Steps() {
		now := clock(st.After)
		c := st.Build(id, now)
		status, body, err := send(c)
		if err != nil || status != http.StatusOK {
			problems = append(problems, fmt.Sprintf("%s %s (%s): %d %v %.300s", c.Method, c.Path, c.Step, status, err, body))
			if st.Name == "create" {
				return "", problems
			}
			continue
		}
		var ans map[string]any
		if err := json.Unmarshal(body, &ans); err != nil {
			problems = append(problems, fmt.Sprintf("%s: the answer is not a JSON object: %.200s", c.Step, body))
			continue
		}
		switch {
		case st.Name == "create":
			id, _ = ans["workflowId"].(string)
			if id == "" || r.WorkflowID != "" && id != r.WorkflowID {
				return id, append(problems, fmt.Sprintf("create answered workflowId %q (TOWER_WORKFLOW_ID %q): %s", id, r.WorkflowID, body))
			}
			if m, ok := ans["message"].(string); ok && m != "" {
				// Nextflow prints a create answer's message as a warning.
				problems = append(problems, fmt.Sprintf("create answered a message Nextflow would warn about: %q", m))
			}
		case st.Name == "begin":
			if w, _ := ans["watchUrl"].(string); !strings.Contains(w, id) {
				problems = append(problems, fmt.Sprintf("begin answered watchUrl %q, which does not name the run", w))
			}
		}
		if st.Name != "create" && st.Name != "heartbeat" && ans["status"] != nil && ans["status"] != "OK" {
			problems = append(problems, fmt.Sprintf("%s answered status %v", st.Name, ans["status"]))
		}
		if st.Name == "create" || st.Name == "complete" {
			continue
		}
		problems = append(problems, r.expect(send, id, "after "+st.Name, map[string]any{"workflow.status": "RUNNING"})...)
		problems = append(problems, r.checkCounts(send, id, "after "+st.Name)...)
	}
	return id, problems
}

// get is a read of the API as a user makes it, in the run's context.
func (r *Run) get(path string) Call {
	c := r.call("read", http.MethodGet, path, nil)
	c.Body = nil
	c.Header.Del("Content-Type")
	if r.WorkspaceID != 0 && strings.Contains(path, "?") {
		c.Path = strings.Replace(c.Path, "?workspaceId=", "&workspaceId=", 1)
	}
	return c
}

// read GETs a path and decodes the answer; ok is false (with the problem)
// when the call was not answered 200 with a JSON object.
func (r *Run) read(send Send, path string) (map[string]any, string) {
	c := r.get(path)
	status, body, err := send(c)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Sprintf("GET %s: %d %v %.300s", c.Path, status, err, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Sprintf("GET %s: not a JSON object: %.200s", c.Path, body)
	}
	return m, ""
}

// Field reads a dotted path ("workflow.status", "tasks.0.task.name") out
// of a decoded answer.
func Field(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// same compares an answer's value with a wanted one, numbers by value.
func same(got, want any) bool {
	gn, gok := jsonvalue.Number(got)
	wn, wok := jsonvalue.Number(want)
	if gok && wok {
		return gn == wn
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// expect reads the run's describe answer and compares fields.
func (r *Run) expect(send Send, id, when string, want map[string]any) []string {
	d, p := r.read(send, "/workflow/"+id)
	if p != "" {
		return []string{when + ": " + p}
	}
	return compare(when+": GET /workflow/"+id, d, want)
}

func compare(what string, m map[string]any, want map[string]any) []string {
	var problems []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if got := Field(m, k); !same(got, want[k]) {
			problems = append(problems, fmt.Sprintf("%s: %s is %v, want %v", what, k, got, want[k]))
		}
	}
	return problems
}

// checkCounts compares the run's progress answer with Nextflow's own
// counters at this point of the run, overall and for its process.
func (r *Run) checkCounts(send Send, id, when string) []string {
	p, problem := r.read(send, "/workflow/"+id+"/progress")
	if problem != "" {
		return []string{when + ": " + problem}
	}
	c := r.counts()
	want := map[string]any{
		"pending": c.pending, "submitted": c.submitted, "running": c.running,
		"succeeded": c.succeeded, "failed": c.failed, "aborted": c.aborted, "loadTasks": c.running,
	}
	full := map[string]any{"progress.totalProcesses": 1, "progress.processesProgress.0.process": Process}
	for k, v := range want {
		full["progress.workflowProgress."+k] = v
		full["progress.processesProgress.0."+k] = v
	}
	return compare(when+": GET /workflow/"+id+"/progress", p, full)
}

// T2 is the service's timestamp form (CONTRACT T2).
var T2 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// Check reads what a user sees of the run once it has ended, through the
// ordinary operations (describe, list, search, progress, tasks one by one
// and in pages, metrics), and returns every difference from what Nextflow
// reported.
func (r *Run) Check(send Send, id string) []string {
	var problems []string
	add := func(p ...string) { problems = append(problems, p...) }
	status, exit := "SUCCEEDED", 0
	if r.Fail {
		status, exit = "FAILED", 1
	}
	end := r.tasks[0].complete // the latest task end is before the run's
	for _, t := range r.tasks {
		if t.complete.After(end) {
			end = t.complete
		}
	}
	want := map[string]any{
		"workflow.id": id, "workflow.status": status, "workflow.runName": r.RunName, "workflow.sessionId": r.SessionID,
		"workflow.projectName": "nextflow-io/hello", "workflow.repository": "https://github.com/nextflow-io/hello",
		"workflow.revision": "master", "workflow.commitId": "7588c46ffefb4e3c06d4ab32c745c4d5e56cdad8",
		"workflow.commandLine": "nextflow run nextflow-io/hello -name " + r.RunName + " -with-tower",
		"workflow.userName":    "ada", "workflow.workDir": "/home/ada/runs/work", "workflow.launchDir": "/home/ada/runs",
		"workflow.profile": "standard", "workflow.scriptName": "main.nf", "workflow.nextflow.version": Version,
		"workflow.nextflow.build": strconv.Itoa(Build), "workflow.manifest.name": "nextflow-io/hello",
		"workflow.configText": "process {\n   executor = 'local'\n}\n\ntower {\n   enabled = true\n}\n",
		"workflow.start":      stamp(r.started), "workflow.success": !r.Fail, "workflow.exitStatus": exit,
		"workflow.stats.succeedCount": r.counts().succeeded, "workflow.stats.failedCount": r.counts().failed,
	}
	if r.Fail {
		want["workflow.errorMessage"] = ErrorMessage
	}
	d, p := r.read(send, "/workflow/"+id)
	if p != "" {
		return []string{p}
	}
	add(compare("GET /workflow/"+id, d, want)...)
	start, _ := time.Parse(time.RFC3339, fmt.Sprint(Field(d, "workflow.start")))
	complete, err := time.Parse(time.RFC3339, fmt.Sprint(Field(d, "workflow.complete")))
	if err != nil || complete.Before(end.Truncate(time.Second)) || complete.Before(start) {
		add(fmt.Sprintf("GET /workflow/%s: complete %v, want the reported end (after the last task's, %s)", id, Field(d, "workflow.complete"), stamp(end)))
	}
	if dur, _ := jsonvalue.Number(Field(d, "workflow.duration")); dur <= 0 {
		add(fmt.Sprintf("GET /workflow/%s: duration %v", id, Field(d, "workflow.duration")))
	}
	for _, k := range []string{"submit", "start", "complete", "dateCreated", "lastUpdated"} {
		if v := fmt.Sprint(Field(d, "workflow."+k)); !T2.MatchString(v) {
			add(fmt.Sprintf("GET /workflow/%s: workflow.%s %q is not in the form YYYY-MM-DDTHH:MM:SSZ", id, k, v))
		}
	}
	add(r.checkCounts(send, id, "at the end")...)
	add(r.checkTasks(send, id)...)
	add(r.checkMetrics(send, id)...)
	add(r.checkListed(send, id, status)...)
	return problems
}

// checkTasks reads the run's tasks in a page, in parts, backwards,
// searched, and one by one.
func (r *Run) checkTasks(send Send, id string) []string {
	var problems []string
	statuses := r.FinalStatuses()
	all, p := r.read(send, "/workflow/"+id+"/tasks")
	if p != "" {
		return []string{p}
	}
	if n := len(Field(all, "tasks").([]any)); n != len(statuses) || !same(Field(all, "total"), len(statuses)) {
		problems = append(problems, fmt.Sprintf("tasks: %d listed, total %v; want %d", n, Field(all, "total"), len(statuses)))
	}
	for i, st := range statuses {
		n := i + 1
		want := map[string]any{
			"taskId": n, "status": st, "name": fmt.Sprintf("%s (%d)", Process, n), "process": Process,
			"nativeId": strconv.FormatInt(r.pid+int64(n), 10), "executor": "local", "attempt": 1, "cpus": 1,
			"hash": fmt.Sprintf("%02x/%06x", (n*53)%256, (n*104729)%0xffffff),
		}
		if st == "COMPLETED" || st == "FAILED" {
			want["exit"] = map[bool]int{true: 0, false: 1}[st == "COMPLETED"]
			want["realtime"] = r.tasks[i].complete.Sub(r.tasks[i].start).Milliseconds()
			want["peakRss"] = usageOf(r.tasks[i]).peakRss
			want["complete"] = stamp(r.tasks[i].complete)
		}
		listed := map[string]any{}
		for k, v := range want {
			listed[fmt.Sprintf("tasks.%d.task.%s", i, k)] = v
		}
		problems = append(problems, compare("GET /workflow/"+id+"/tasks", all, listed)...)
		one, p := r.read(send, fmt.Sprintf("/workflow/%s/task/%d", id, n))
		if p != "" {
			problems = append(problems, p)
			continue
		}
		single := map[string]any{}
		for k, v := range want {
			single["task."+k] = v
		}
		problems = append(problems, compare(fmt.Sprintf("GET /workflow/%s/task/%d", id, n), one, single)...)
		for _, k := range []string{"submit", "start", "complete"} {
			if v, ok := Field(one, "task."+k).(string); ok && !T2.MatchString(v) {
				problems = append(problems, fmt.Sprintf("task %d: %s %q is not in the service's form", n, k, v))
			}
		}
	}
	for query, ids := range map[string][]int{
		"?max=2&offset=1": {2, 3}, "?sortDir=desc": {4, 3, 2, 1}, "?search=" + Process + "+(3)": {3},
	} {
		page, p := r.read(send, "/workflow/"+id+"/tasks"+query)
		if p != "" {
			problems = append(problems, p)
			continue
		}
		var got []int
		for _, e := range Field(page, "tasks").([]any) {
			n, _ := jsonvalue.Number(Field(e, "task.taskId"))
			got = append(got, int(n))
		}
		if !slices.Equal(got, ids) {
			problems = append(problems, fmt.Sprintf("GET /workflow/%s/tasks%s: tasks %v, want %v", id, query, got, ids))
		}
	}
	return problems
}

// checkMetrics compares the metrics the run shows with those Nextflow
// reported at its completion.
func (r *Run) checkMetrics(send Send, id string) []string {
	m, p := r.read(send, "/workflow/"+id+"/metrics")
	if p != "" {
		return []string{p}
	}
	sent := r.metrics()[0].(map[string]any)
	want := map[string]any{"metrics.0.process": Process}
	for _, series := range []string{"cpu", "mem", "time", "reads"} {
		s := sent[series].(map[string]any)
		for _, k := range []string{"mean", "min", "q2", "max", "minLabel", "maxLabel"} {
			want["metrics.0."+series+"."+k] = s[k]
		}
	}
	problems := compare("GET /workflow/"+id+"/metrics", m, want)
	if n := len(Field(m, "metrics").([]any)); n != 1 {
		problems = append(problems, fmt.Sprintf("metrics: %d entries, want 1 (one process)", n))
	}
	return problems
}

// checkListed finds the run in the run list and by a search of its name.
func (r *Run) checkListed(send Send, id, status string) []string {
	var problems []string
	for _, q := range []string{"/workflow?max=100", "/workflow?search=" + r.RunName} {
		l, p := r.read(send, q)
		if p != "" {
			problems = append(problems, p)
			continue
		}
		found := false
		for i, e := range Field(l, "workflows").([]any) {
			if Field(e, "workflow.id") != id {
				continue
			}
			found = true
			problems = append(problems, compare("GET "+q, l, map[string]any{
				fmt.Sprintf("workflows.%d.workflow.status", i):                     status,
				fmt.Sprintf("workflows.%d.workflow.runName", i):                    r.RunName,
				fmt.Sprintf("workflows.%d.workflow.projectName", i):                "nextflow-io/hello",
				fmt.Sprintf("workflows.%d.progress.workflowProgress.succeeded", i): r.counts().succeeded,
			})...)
		}
		if !found {
			problems = append(problems, fmt.Sprintf("GET %s: the run %s is not listed", q, id))
		}
	}
	return problems
}

// Steps of a run, by name, that the fake should have journaled with the
// operation each is.
var Operations = map[string]string{
	"create": "CreateTrace", "begin": "UpdateTraceBegin", "progress 1": "UpdateTraceProgress",
	"progress 2": "UpdateTraceProgress", "heartbeat": "UpdateTraceHeartbeat", "progress 3": "UpdateTraceProgress",
	"complete": "UpdateTraceComplete",
}

// JSON returns a call's body as a decoded object, for tests that change
// it.
func (c Call) JSON() map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(c.Body))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}
