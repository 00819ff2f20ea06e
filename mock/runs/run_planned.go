package runs

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// A run the fake launched follows a plan on the fake's clock: its shape
// (processes and tasks) comes from its id (workflow.PlanFor), its status
// and times from when it was launched and the profile's durations. It
// plays the part of the Nextflow run the service would have launched, so
// what that run reports is derived here: its status and times, command
// line, manifest, engine version, tasks and their counts. Everything else
// is what the launch said (the pipeline, revision, work directory,
// parameters...) or null; only a run of the seeded account is built on
// values synthesized under keys of its id, the same in every answer.

// plannedRuns is the kind of a run the fake launched (or seeded).
type plannedRuns struct{ w *runs }

// render builds a run for an answer schema: the describe answer, or one
// element of the list answer.
func (p plannedRuns) render(x *run, sch *spec.Schema, purpose string, now time.Time) (map[string]any, error) {
	w, r, wf := p.w, x.rec, x.wf
	fr := w.k.Bases.Frames(wf.Seeded)
	key := "workflow/" + r.ID + "/" + purpose
	root := fr.Object(sch, key)
	w.k.Refs.FixRecord(root, &wf.WorkspaceID, nil) // mock/refs
	v := wf.At(now)
	// The run itself is built under its id alone, so the list and
	// describe show the same run.
	if wsch := sch.Prop("workflow"); wsch != nil {
		obj := fr.Object(wsch, "workflow/"+r.ID)
		w.k.Fit.Overlay(wsch, obj, p.workflowFields(x, v, now))
		p.details(fr, wsch, obj, r.ID, wf, v)
		root["workflow"] = obj
	}
	if ps := sch.Prop("progress"); ps != nil {
		root["progress"] = p.progress(x, ps, v, purpose != "entry")
	}
	p.headJob(fr, sch, root, r.ID, v)
	w.k.Fit.Overlay(sch, root, contextFields(wf.WorkspaceID))
	w.k.Fit.Overlay(sch, root, w.launched(wf, now))
	return root, nil
}

// headJob makes the answer's head job (jobInfo, next to the run or in
// it) say what the run's status says; its ids stay as synthesized.
func (p plannedRuns) headJob(fr fit.Framer, sch *spec.Schema, root map[string]any, id string, v workflow.View) {
	j := v.HeadJob()
	var code, msg any
	if j.ExitCode != nil {
		code = int64(*j.ExitCode)
	}
	if j.Message != "" {
		msg = j.Message
	}
	fields := map[string]any{"status": j.Status, "exitCode": code, "message": msg}
	for _, at := range []struct {
		obj map[string]any
		sch *spec.Schema
	}{{root, sch}, {asObject(root["workflow"]), sch.Prop("workflow")}} {
		if at.obj == nil || at.sch == nil {
			continue
		}
		if job, js := fr.Child(at.sch, at.obj, "jobInfo", "workflow/"+id); js != nil && job != nil {
			p.w.k.Fit.Overlay(js, job, fields)
			p.w.k.Fit.Set(at.sch, at.obj, "jobInfo", job)
		}
	}
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func (p plannedRuns) workflowFields(x *run, v workflow.View, now time.Time) map[string]any {
	id, wf := x.id, x.wf
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	at := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return resources.Stamp(*t)
	}
	cmd := "nextflow run " + wf.Pipeline + " -name " + wf.RunName
	if wf.Revision != "" {
		cmd += " -r " + wf.Revision
	}
	if wf.Resume {
		cmd += " -resume"
	}
	f := map[string]any{
		"id": id, "ownerId": p.w.k.OwnerID(), "status": v.Status, "runName": wf.RunName,
		"projectName": wf.ProjectName, "commandLine": cmd, "scriptName": "main.nf",
		"submit": resources.Stamp(wf.Submit), "dateCreated": resources.Stamp(wf.Submit), "lastUpdated": resources.Stamp(v.LastUpdated),
		"start": at(v.Start), "complete": at(v.Complete),
		"revision": opt(wf.Revision), "commitId": opt(wf.CommitID), "resume": wf.Resume,
		"deleted": false, "userName": wf.UserName, "launchId": id, // a run's launch goes by its id (held.go)
		"success": nil, "exitStatus": nil, "duration": nil, "errorMessage": nil, "errorReport": nil,
	}
	if strings.Contains(wf.Pipeline, "://") {
		f["repository"] = wf.Pipeline
	}
	if wf.SessionID != "" {
		f["sessionId"] = wf.SessionID
	}
	if dir := p.w.workDir(wf, now); dir != "" {
		f["workDir"] = dir
	}
	if wf.ConfigText != "" {
		f["configText"] = wf.ConfigText
	}
	if len(wf.ConfigProfiles) > 0 {
		ps := make([]any, len(wf.ConfigProfiles))
		for i, p := range wf.ConfigProfiles {
			ps[i] = p
		}
		f["configProfiles"] = ps
	}
	if params := paramsOf(wf.ParamsText); params != nil {
		f["params"] = params
	}
	if !workflow.Final(v.Status) {
		f["stats"] = nil
	}
	if v.Start != nil && v.Complete != nil {
		f["duration"] = v.Complete.Sub(*v.Start).Milliseconds()
	}
	switch v.Status {
	case workflow.Succeeded:
		f["success"], f["exitStatus"] = true, int64(0)
	case workflow.Failed:
		f["success"], f["exitStatus"] = false, int64(1)
		// The task that failed, as its task list and its log name it.
		plan := workflow.PlanFor(id)
		proc, n := plan.TaskOf(workflow.FailedTask(v, plan.Total))
		f["errorMessage"] = fmt.Sprintf("Process `%s (%d)` terminated with an error exit status (1)", proc, n)
	case workflow.Cancelled:
		f["success"] = false
	}
	return f
}

// details makes the run's nested records agree with the run: the task
// statistics of a finished run come from its task counts, and the manifest
// and Nextflow version from what was launched, where synthesis alone would
// give a succeeded run failed tasks, or another pipeline's home page.
func (p plannedRuns) details(fr fit.Framer, sch *spec.Schema, obj map[string]any, id string, wf *workflow.Run, v workflow.View) {
	key := "workflow/" + id
	if workflow.Final(v.Status) {
		if st, sts := fr.Child(sch, obj, "stats", key); sts != nil {
			p.w.k.Fit.Overlay(sts, st, statsFields(workflow.CountsAt(v, workflow.PlanFor(id).Total)))
			p.w.k.Fit.Set(sch, obj, "stats", st)
		}
	}
	if m, ms := fr.Child(sch, obj, "manifest", key); ms != nil {
		fields := map[string]any{"name": wf.ProjectName, "mainScript": "main.nf", "nextflowVersion": "!>=" + workflow.NextflowVersion[:5]}
		if strings.Contains(wf.Pipeline, "://") {
			fields["homePage"] = wf.Pipeline
		}
		if wf.Revision != "" {
			fields["defaultBranch"] = wf.Revision
		}
		p.w.k.Fit.Overlay(ms, m, fields)
		p.w.k.Fit.Set(sch, obj, "manifest", m)
	}
	if n, ns := fr.Child(sch, obj, "nextflow", key); ns != nil {
		p.w.k.Fit.Overlay(ns, n, map[string]any{"version": workflow.NextflowVersion, "build": strconv.Itoa(workflow.NextflowBuild)})
		p.w.k.Fit.Set(sch, obj, "nextflow", n)
	}
	p.w.k.Fit.Set(sch, obj, "nextflowVersion", workflow.NextflowVersion)
}

// statsFields gives a finished run's task statistics from its task counts.
func statsFields(c workflow.Counts) map[string]any {
	total := c.Succeeded + c.Failed + c.Aborted + c.Pending + c.Running
	pct := func(n int) float64 {
		if total == 0 {
			return 0
		}
		return math.Round(10000*float64(n)/float64(total)) / 100
	}
	const taskMillis = 90_000 // as loadFields' cpuTime
	return map[string]any{
		"succeedCount": int64(c.Succeeded), "failedCount": int64(c.Failed), "cachedCount": int64(0), "ignoredCount": int64(0),
		"succeedCountFmt": strconv.Itoa(c.Succeeded), "failedCountFmt": strconv.Itoa(c.Failed), "cachedCountFmt": "0", "ignoredCountFmt": "0",
		"succeedPct": pct(c.Succeeded), "failedPct": pct(c.Failed), "cachedPct": 0.0, "ignoredPct": 0.0,
		"succeedDuration": int64(c.Succeeded * taskMillis), "failedDuration": int64(c.Failed * taskMillis), "cachedDuration": int64(0),
		"computeTimeFmt": fmt.Sprintf("%.1f", float64((c.Succeeded+c.Failed)*taskMillis)/3.6e6), // CPU hours
	}
}

// progress builds a ProgressData value: the run's counters overall and,
// when perProcess is set, per process. List entries leave the breakdown
// out: a page of runs is a summary (a client shows each run's totals), the
// breakdown of one run is what the progress operation is for, and with it
// a page of runs is several times larger. The values the run's record does
// not determine are synthesized from the run's id alone, so every answer
// that shows a run's progress shows the same numbers.
func (p plannedRuns) progress(x *run, sch *spec.Schema, v workflow.View, perProcess bool) map[string]any {
	w, id := p.w, x.id
	fr := w.k.Bases.Frames(x.wf.Seeded)
	key := "progress/" + id
	m := fr.Object(sch, key)
	plan := workflow.PlanFor(id)
	c := workflow.CountsAt(v, plan.Total)
	if wp, wps := fr.Child(sch, m, "workflowProgress", key); wps != nil {
		fields := loadFields(c)
		fields["dateCreated"], fields["lastUpdated"] = resources.Stamp(v.Submit), resources.Stamp(v.LastUpdated)
		w.k.Fit.Overlay(wps, wp, fields)
		m["workflowProgress"] = wp
	}
	if pp := sch.Prop("processesProgress"); pp.IsArray() && !perProcess {
		m["processesProgress"] = []any{}
	} else if pp.IsArray() {
		item := pp.Items()
		statuses := workflow.TaskStatuses(c, plan.Total)
		list := []any{}
		n := 0
		for i, proc := range plan.Processes() {
			var pc workflow.Counts
			for range plan.Tasks(i) {
				if n < len(statuses) {
					switch statuses[n] {
					case "COMPLETED":
						pc.Succeeded++
					case "FAILED":
						pc.Failed++
					case "RUNNING":
						pc.Running++
					case "ABORTED":
						pc.Aborted++
					default:
						pc.Pending++
					}
				}
				n++
			}
			if len(statuses) == 0 {
				continue
			}
			e := fr.Object(item, key+"/process/"+strconv.Itoa(i))
			fields := loadFields(pc)
			fields["process"] = proc
			fields["dateCreated"], fields["lastUpdated"] = resources.Stamp(v.Submit), resources.Stamp(v.LastUpdated)
			w.k.Fit.Overlay(item, e, fields)
			list = append(list, e)
		}
		m["processesProgress"] = list
	}
	w.k.Fit.Set(sch, m, "totalProcesses", int64(len(plan.Processes())))
	return m
}

func loadFields(c workflow.Counts) map[string]any {
	const gib = int64(1) << 30
	done := int64(c.Succeeded + c.Failed)
	running := int64(c.Running)
	l := workflow.Load{
		Pending: int64(c.Pending), Running: running, Succeeded: int64(c.Succeeded), Failed: int64(c.Failed), Aborted: int64(c.Aborted),
		LoadCpus: running * 2, LoadMemory: running * 4 * gib,
		PeakCpus: max(running, 1) * 2, PeakMemory: max(running, 1) * 4 * gib, PeakTasks: max(running, 1),
		Cpus: (done + running) * 2, CpuTime: done * 90_000, CpuLoad: done * 81_000,
		MemoryRss: done * gib / 2, MemoryReq: (done + running) * 4 * gib,
		ReadBytes: done * 150 << 20, WriteBytes: done * 60 << 20,
		VolCtxSwitch: done * 1_200, InvCtxSwitch: done * 300,
	}
	return loadFieldsOf(l)
}

// tasks answers a page of the tasks the run has got to.
func (p plannedRuns) tasks(x *run, req *handler.Request) (*handler.Response, error) {
	w, r, wf := p.w, x.rec, x.wf
	l, err := w.k.Listing(req, "tasks")
	if err != nil {
		return nil, err
	}
	pg, sch, key, item := l.Page, l.Schema, l.Key, l.Item
	all := p.plannedTasks(r.ID, wf, req.Now)
	if search := req.Query.Get("search"); search != "" {
		all = slices.DeleteFunc(all, func(t plannedTask) bool { return !resources.LowerContains(t.name, search) })
	}
	page, _ := resources.Slice(all, pg)
	// Tasks come wrapped ({"task": {...}}) in the service's answer; a
	// document that lists them bare is served bare.
	items := make([]any, 0, len(page))
	for _, t := range page {
		items = append(items, wrapTask(w.k.Bases, item, func(s *spec.Schema) map[string]any {
			return p.renderPlanned(s, r.ID, wf, req.Now, t)
		}))
	}
	root := w.k.Bases.Frames(wf.Seeded).Object(sch, "tasks/"+r.ID)
	root[key] = items
	w.k.Fit.Set(sch, root, "total", int64(len(all)))
	w.k.Fit.Set(sch, root, "totalSize", int64(len(all)))
	return resources.Success(req.Op, root), nil
}

// plannedTask is one task of a launched run's plan, in the state the run
// has reached.
type plannedTask struct {
	n                     int
	process, name, status string
}

// plannedTasks lists the tasks a launched run has got to at now, in plan
// order (the first is task 1).
func (p plannedRuns) plannedTasks(id string, wf *workflow.Run, now time.Time) []plannedTask {
	plan := workflow.PlanFor(id)
	statuses := workflow.TaskStatuses(workflow.CountsAt(wf.At(now), plan.Total), plan.Total)
	var all []plannedTask
	n := 0
	for p, proc := range plan.Processes() {
		for i := range plan.Tasks(p) {
			if n < len(statuses) {
				all = append(all, plannedTask{n + 1, proc, fmt.Sprintf("%s (%d)", proc, i+1), statuses[n]})
			}
			n++
		}
	}
	return all
}

// renderPlanned lays one planned task over a task schema.
func (p plannedRuns) renderPlanned(sch *spec.Schema, id string, wf *workflow.Run, now time.Time, t plannedTask) map[string]any {
	m := p.w.k.Bases.Frames(wf.Seeded).Object(sch, fmt.Sprintf("task/%s/%d", id, t.n))
	p.w.k.Fit.Overlay(sch, m, p.taskFields(wf, wf.At(now), workflow.PlanFor(id).Total, t.n, t.process, t.name, t.status))
	return m
}

// taskFields places task n of total along the run's running time.
func (p plannedRuns) taskFields(wf *workflow.Run, v workflow.View, total, n int, process, name, status string) map[string]any {
	f := map[string]any{
		"taskId":  int64(n),
		"status":  status,
		"process": process,
		"name":    name,
		"hash":    fmt.Sprintf("%02x/%06x", n*37%256, (n*7919)%0xffffff),
		"attempt": int64(1),
	}
	var exit any
	switch status {
	case "COMPLETED":
		exit = int64(0)
	case "FAILED":
		exit = int64(1)
		f["errorAction"] = "TERMINATE"
	}
	f["exitStatus"] = exit
	if v.Start != nil {
		slot := wf.RunningFor / time.Duration(total+1)
		submit := v.Start.Add(slot * time.Duration(n-1))
		f["submit"] = resources.Stamp(submit)
		f["dateCreated"] = resources.Stamp(submit)
		if status != "NEW" {
			f["start"] = resources.Stamp(submit.Add(time.Second))
		} else {
			f["start"] = nil
		}
		f["complete"] = nil
		if status == "COMPLETED" || status == "FAILED" || status == "ABORTED" {
			end := submit.Add(slot)
			if status == "ABORTED" && v.Complete != nil {
				end = *v.Complete
			}
			f["complete"] = resources.Stamp(end)
			f["lastUpdated"] = resources.Stamp(end)
			f["duration"] = end.Sub(submit).Milliseconds()
			f["realtime"] = end.Sub(submit.Add(time.Second)).Milliseconds()
		}
	}
	return f
}

// task answers one of the tasks the run has got to.
func (p plannedRuns) task(x *run, sch *spec.Schema, n int64, now time.Time) (map[string]any, error) {
	tasks := p.plannedTasks(x.id, x.wf, now)
	if n > int64(len(tasks)) {
		return nil, resources.Fail(resources.ErrMissing, "run %s has no task %d", x.id, n)
	}
	return wrapTask(p.w.k.Bases, sch, func(s *spec.Schema) map[string]any {
		return p.renderPlanned(s, x.id, x.wf, now, tasks[n-1])
	}), nil
}

// metrics are, once the run has ended, one entry per process that ran
// tasks, as Nextflow's completion reports them (ResourcesAggregator's
// summary: each figure's mean, quartiles and extremes over the process's
// tasks, and which task each extreme is). Every task of a planned run uses
// the same resources (see loadFields), so each figure is the same at every
// quantile, and its labels name the process's first and last task.
func (p plannedRuns) metrics(x *run, item *spec.Schema) ([]any, error) {
	v := x.wf.At(p.w.k.Clock.Now())
	out := []any{}
	if !workflow.Final(v.Status) {
		return out, nil
	}
	const gib = float64(1 << 30)
	figures := map[string]float64{
		"cpu": 90, "mem": gib / 2, "vmem": gib, "time": 90_000, "reads": 150 << 20, "writes": 60 << 20,
		"cpuUsage": 45, "memUsage": 12.5,
	}
	tasks := p.plannedTasks(x.id, x.wf, p.w.k.Clock.Now())
	for _, proc := range workflow.PlanFor(x.id).Processes() {
		var names []string
		for _, t := range tasks {
			if t.process == proc && (t.status == workflow.TaskCompleted || t.status == workflow.TaskFailed) {
				names = append(names, t.name)
			}
		}
		if len(names) == 0 {
			continue
		}
		e := map[string]any{"process": proc}
		for fig, val := range figures {
			first, last := names[0], names[len(names)-1]
			e[fig] = map[string]any{"mean": val, "min": val, "q1": val, "q2": val, "q3": val, "max": val,
				"minLabel": first, "q1Label": first, "q2Label": first, "q3Label": last, "maxLabel": last}
		}
		m := p.w.k.Bases.Bare(item, "metrics")
		p.w.k.Fit.Overlay(item, m, e)
		out = append(out, m)
	}
	return out, nil
}

// forget: a planned run keeps nothing beside its record.
func (p plannedRuns) forget(*run) error { return nil }

// frame is the frame of an answer about the run: synthesized for a run of
// the seeded account, bare for one a client launched.
// log is the run's console output so far (workflow.Run.LogAt).
func (p plannedRuns) log(x *run, now time.Time) []string { return x.wf.LogAt(x.id, now) }

func (p plannedRuns) frame(x *run, sch *spec.Schema, key string) map[string]any {
	return p.w.k.Bases.Frames(x.wf.Seeded).Object(sch, key)
}
