package runs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Reports: what a client tells the service about a run it is running.
// Nextflow, run with -with-tower, reports its run to the service (plugin
// nf-tower, TowerObserver): POST /trace/create announces it and gets its
// workflowId (or names, through TOWER_WORKFLOW_ID, a run the service
// launched), PUT /trace/{id}/begin reports it started, .../progress
// reports tasks in batches of up to 100, .../heartbeat keeps it alive
// after a minute without task events, and .../complete reports how it
// ended. Each call carries ?workspaceId= when one is configured. The run
// is then kept like any other: listed, described, its progress, tasks
// and metrics read through the ordinary operations, which runs owns
// (runs.go); reports only write.
//
// A run record (the workflows collection) holds the run's status, its
// counters and the short members of the reported workflow; the long ones
// (configuration text, parameters) and the metrics are in the run's
// detail record, which only a describe and the metrics read; each task is
// a record of its own. A progress call so costs its batch: a read and a
// write per task, and one write of the run record with the counters moved
// by the tasks' changes.

// traceDetails is a run's detail record.
type traceDetails struct {
	Workflow     map[string]any `json:"workflow,omitempty"`
	ProcessNames []string       `json:"processNames,omitempty"`
	Metrics      []any          `json:"metrics,omitempty"`
}

// maxShortField is the longest member of a reported workflow, as JSON,
// that the run record keeps (and lists show); longer ones only a
// describe shows.
const maxShortField = 1 << 10

// reports takes the trace calls of one document.
type reports struct {
	k *resources.Kit
	w *runs
}

func (w *runs) registerReports() {
	t := &reports{k: w.k, w: w}
	k := w.k
	k.Handle(k.Op("POST", "/trace/create"), t.announce)
	k.Handle(k.Op("PUT", "/trace/{workflowId}/begin"), t.begin)
	k.Handle(k.Op("PUT", "/trace/{workflowId}/progress"), t.takeTasks)
	k.Handle(k.Op("PUT", "/trace/{workflowId}/heartbeat"), t.heartbeat)
	k.Handle(k.Op("PUT", "/trace/{workflowId}/complete"), t.complete)
}

// announce announces a run: a new one in the caller's context, or, when
// the body names a run the caller can see (one the fake launched), that
// run, which its reports drive from now on.
func (t *reports) announce(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	ws, given, err := resources.WorkspaceOf(req.Query)
	if err != nil {
		return nil, err
	}
	if given {
		if err := t.k.WorkspaceExists(ws); err != nil {
			return nil, err
		}
	}
	a := announced{name: strings.TrimSpace(textOf(body["runName"])), session: textOf(body["sessionId"]),
		project: textOf(body["projectName"]), repo: textOf(body["repository"])}
	var wf *workflow.Run
	id := textOf(body["workflowId"])
	if id != "" {
		wf, err = t.attach(req, id, a)
	} else {
		id, wf, err = t.start(req, ws, a)
	}
	if err != nil {
		return nil, err
	}
	sch := resources.SuccessSchema(req.Op)
	root := t.k.Bases.Bare(sch, "trace/create")
	t.k.Fit.Set(sch, root, "workflowId", id)
	t.k.Fit.Set(sch, root, "watchUrl", t.watchURL(req, id, wf))
	if m, ms := t.k.Bases.Child(sch, root, "metadata", "trace/create"); ms != nil {
		clear(m)
		t.k.Fit.Overlay(ms, m, t.createMetadata(wf))
		t.k.Fit.Set(sch, root, "metadata", m)
	}
	return resources.Success(req.Op, root), nil
}

// announced is what a create says about its run.
type announced struct{ name, session, project, repo string }

// attach makes a run the caller can see (one the service launched) a run
// its client reports on, under the run's own id.
func (t *reports) attach(req *handler.Request, id string, a announced) (*workflow.Run, error) {
	if _, err := t.w.find(req, id); err != nil {
		return nil, err
	}
	silence := t.k.Profile.Workflows.UnknownAfter
	return updateRun(t.k.Store, id, req.Now, func(run *workflow.Run) error {
		run.Announce(req.Now, silence)
		run.RunName, run.SessionID = cmp.Or(a.name, run.RunName), cmp.Or(a.session, run.SessionID)
		run.ProjectName, run.Pipeline = cmp.Or(a.project, run.ProjectName), cmp.Or(a.repo, run.Pipeline)
		return nil
	})
}

// start makes a new run in the context ws (0: the caller's own).
func (t *reports) start(req *handler.Request, ws int64, a announced) (string, *workflow.Run, error) {
	wf := &workflow.Run{
		RunName: a.name, ProjectName: a.project, Pipeline: cmp.Or(a.repo, a.project), SessionID: a.session,
		WorkspaceID: ws, Submit: req.Now.UTC(), UserName: t.k.UserName(),
		Trace: workflow.NewTrace(req.Now, t.k.Profile.Workflows.UnknownAfter),
	}
	rec, err := resources.InsertRecord(t.k.Store, resources.WorkflowsCollection,
		func() (string, error) { return t.k.NewID(14), nil },
		func(id string) (store.Record, error) {
			wf.RunName = cmp.Or(a.name, runName(t.k.Gen, id))
			return store.Record{Created: wf.Submit, Updated: wf.Submit, Data: wf.AppendJSON(nil)}, nil
		})
	return rec.ID, wf, err
}

// watchURL is where the service would show the run: the fake has no pages
// of its own, but Nextflow prints the address, and it names the run.
func (t *reports) watchURL(req *handler.Request, id string, wf *workflow.Run) string {
	origin := "http://localhost"
	if req.HTTP != nil && req.HTTP.Host != "" {
		origin = handler.Origin(req.HTTP)
	}
	if wf.WorkspaceID != 0 {
		return fmt.Sprintf("%s/workspaces/%d/watch/%s", origin, wf.WorkspaceID, id)
	}
	return origin + "/user/" + wf.UserName + "/watch/" + id
}

// createMetadata is what the create answer tells Nextflow about the run's
// context (it fills the run's platform metadata from it).
func (t *reports) createMetadata(wf *workflow.Run) map[string]any {
	m := map[string]any{"userName": wf.UserName}
	if id, ok := t.k.UserID(); ok {
		m["userId"] = id
	}
	if wf.WorkspaceID != 0 {
		m["workspaceId"] = wf.WorkspaceID
	}
	for k, v := range map[string]string{"computeEnvId": wf.ComputeEnvID, "revision": wf.Revision, "commitId": wf.CommitID} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// report applies one report to run x, found by the call: fn changes the
// run, whose trace is started first if no create announced it (a client
// that lost its create answer, or a run the fake seeded), and the report
// keeps the run alive.
func (t *reports) report(req *handler.Request, x *run, fn func(*workflow.Run) error) (*workflow.Run, error) {
	return updateRun(t.k.Store, x.id, req.Now, func(wf *workflow.Run) error {
		tr := wf.Reporting(req.Now, t.k.Profile.Workflows.UnknownAfter)
		if err := fn(wf); err != nil {
			return err
		}
		if req.Now.After(tr.LastReport) {
			tr.LastReport = req.Now
		}
		return nil
	})
}

// begin reports the run started, with the workflow as Nextflow sees it
// (its parameters, configuration, manifest, engine version, command
// line, directories, container, profile, revision...) and its processes.
func (t *reports) begin(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	wsch := resources.RequestSchema(req.Op).Prop("workflow")
	reported, _ := normalizeReported(wsch, body["workflow"], 0).(map[string]any)
	names := textsOf(body["processNames"])
	x, err := t.w.get(req)
	if err != nil {
		return nil, err
	}
	// The details are written first: the run record's revision, which
	// every cached rendering of the run depends on, moves after them.
	if err := t.saveDetails(x.id, req.Now, func(d *traceDetails) {
		d.Workflow = reported
		d.ProcessNames = names
		d.Metrics = nil
	}); err != nil {
		return nil, err
	}
	wf, err := t.report(req, x, func(wf *workflow.Run) error {
		tr := wf.Trace
		now := req.Now
		tr.Begun, tr.Ended, tr.Complete, tr.Duration = &now, "", nil, nil
		tr.Start = nil
		if start, ok := timeOf(reported["start"]); ok {
			tr.Start = &start
		}
		tr.NameProcesses(names)
		tr.Fields = nil
		t.takeFields(wf, wsch, reported)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t.processed(req, wf, true), nil
}

// takeFields keeps the short members of a reported workflow that its
// schema (wsch) declares in the run record, and the run's own name,
// project and session from it.
func (t *reports) takeFields(wf *workflow.Run, wsch *spec.Schema, reported map[string]any) {
	tr := wf.Trace
	tr.Rev++
	if tr.Fields == nil {
		tr.Fields = map[string]any{}
	}
	for k, v := range reported {
		if wsch != nil && wsch.Prop(k) == nil {
			continue // the detail record keeps it
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) > maxShortField {
			delete(tr.Fields, k)
			continue
		}
		tr.Fields[k] = v
	}
	wf.RunName = cmp.Or(textOf(reported["runName"]), wf.RunName)
	wf.ProjectName = cmp.Or(textOf(reported["projectName"]), wf.ProjectName)
	wf.SessionID = cmp.Or(textOf(reported["sessionId"]), wf.SessionID)
	wf.Pipeline = cmp.Or(textOf(reported["repository"]), wf.Pipeline)
	wf.Revision = cmp.Or(textOf(reported["revision"]), wf.Revision)
	wf.CommitID = cmp.Or(textOf(reported["commitId"]), wf.CommitID)
	wf.WorkDir = cmp.Or(textOf(reported["workDir"]), wf.WorkDir)
	if r, ok := boolOf(reported["resume"]); ok {
		wf.Resume = r
	}
}

// saveDetails changes a run's detail record, making it if need be.
func (t *reports) saveDetails(id string, now time.Time, fn func(*traceDetails)) error {
	return store.Upsert(t.k.Store, resources.TraceDetailsCollection, id, func(r *store.Record) error {
		var d traceDetails
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		fn(&d)
		b, err := json.Marshal(&d)
		r.Updated, r.Data = now, b
		return err
	}, func() (store.Record, error) {
		var d traceDetails
		fn(&d)
		b, err := json.Marshal(&d)
		return store.Record{Created: now, Updated: now, Data: b}, err
	})
}

// takeTasks stores a batch of reported tasks (each by its taskId, its
// fields merged over what was reported before) and moves the run's
// counters by each task's change of state.
func (t *reports) takeTasks(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	tsch := resources.RequestSchema(req.Op).Prop("tasks").Items()
	list, _ := body["tasks"].([]any)
	type reportedTask struct {
		id     int64
		fields map[string]any
	}
	batch := make([]reportedTask, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, resources.Fail(resources.ErrBadInput, "tasks[%d] is not an object", i)
		}
		id, ok := jsonvalue.Int(m["taskId"])
		if !ok || id <= 0 {
			return nil, resources.Fail(resources.ErrBadInput, "tasks[%d] has no taskId", i)
		}
		fields, _ := normalizeReported(tsch, m, 0).(map[string]any)
		fields["taskId"] = id
		deriveExitStatus(fields)
		batch = append(batch, reportedTask{id, fields})
	}
	x, err := t.w.get(req)
	if err != nil {
		return nil, err
	}
	changes := make([]workflow.Change, 0, len(batch))
	for _, rt := range batch {
		c, err := t.storeTask(x.id, rt.id, rt.fields, req.Now)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c)
	}
	run, processes := reportedPeaks(body["progress"])
	wf, err := t.report(req, x, func(wf *workflow.Run) error {
		wf.Trace.Apply(changes)
		wf.Trace.TakePeaks(run, processes)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t.processed(req, wf, false), nil
}

// notYet is the exit code Nextflow reports for a task that has not ended
// (its TaskRun's default, Integer.MAX_VALUE).
const notYet = 2147483647

// deriveExitStatus gives a reported task its exitStatus, which the
// service's Task shows and Nextflow never sends: the exit code it reports
// as "exit", once the task has ended (before, "exit" is notYet).
func deriveExitStatus(task map[string]any) {
	if exit, ok := jsonvalue.Int(task["exit"]); ok && exit != notYet {
		task["exitStatus"] = exit
	}
}

// reportedPeaks reads the peaks a progress object (of a progress,
// heartbeat or complete call) reports: the run's (peakRunning, peakCpus,
// peakMemory) and each process's, from its processes entries by name.
func reportedPeaks(v any) (workflow.Peaks, map[string]workflow.Peaks) {
	p, _ := v.(map[string]any)
	if p == nil {
		return workflow.Peaks{}, nil
	}
	peaks := func(m map[string]any) workflow.Peaks {
		at := func(k string) *int64 {
			if n, ok := jsonvalue.Int(m[k]); ok {
				return &n
			}
			return nil
		}
		return workflow.Peaks{Tasks: at("peakRunning"), Cpus: at("peakCpus"), Memory: at("peakMemory")}
	}
	var processes map[string]workflow.Peaks
	list, _ := p["processes"].([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		name := textOf(m["name"])
		if name == "" {
			continue
		}
		if processes == nil {
			processes = map[string]workflow.Peaks{}
		}
		processes[name] = peaks(m)
	}
	return peaks(p), processes
}

// heartbeat keeps a run alive while its client has nothing to report.
func (t *reports) heartbeat(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	x, err := t.w.get(req)
	if err != nil {
		return nil, err
	}
	run, processes := reportedPeaks(body["progress"])
	if _, err := t.report(req, x, func(wf *workflow.Run) error {
		wf.Trace.TakePeaks(run, processes)
		return nil
	}); err != nil {
		return nil, err
	}
	return resources.Success(req.Op, t.k.Bases.Bare(resources.SuccessSchema(req.Op), "trace/heartbeat")), nil
}

// complete reports how the run ended: SUCCEEDED or FAILED as its success
// (else its exit status and error message) says, with the workflow's
// final state and the metrics of each process.
func (t *reports) complete(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	sch := resources.RequestSchema(req.Op)
	reported, _ := normalizeReported(sch.Prop("workflow"), body["workflow"], 0).(map[string]any)
	metrics, _ := normalizeReported(sch.Prop("metrics"), body["metrics"], 0).([]any)
	// Nextflow's own statistics of the run are not kept: the service
	// shows the run's statistics as it counts them from the tasks.
	delete(reported, "stats")
	run, processes := reportedPeaks(body["progress"])
	x, err := t.w.get(req)
	if err != nil {
		return nil, err
	}
	if err := t.saveDetails(x.id, req.Now, func(d *traceDetails) {
		if d.Workflow == nil {
			d.Workflow = map[string]any{}
		}
		for k, v := range reported {
			d.Workflow[k] = v
		}
		d.Metrics = metrics
	}); err != nil {
		return nil, err
	}
	wf, err := t.report(req, x, func(wf *workflow.Run) error {
		tr := wf.Trace
		now := req.Now
		if tr.Begun == nil {
			tr.Begun = &now
		}
		if start, ok := timeOf(reported["start"]); ok {
			tr.Start = &start
		}
		tr.Complete = &now
		if end, ok := timeOf(reported["complete"]); ok {
			tr.Complete = &end
		}
		tr.Duration = nil
		if d, ok := jsonvalue.Int(reported["duration"]); ok {
			tr.Duration = &d
		}
		tr.Ended = outcome(reported)
		t.takeFields(wf, sch.Prop("workflow"), reported)
		tr.TakePeaks(run, processes)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t.processed(req, wf, false), nil
}

// outcome is the status a completion report ends a run in: as its
// success says, else SUCCEEDED only with exit status 0 and no error.
func outcome(reported map[string]any) string {
	if ok, given := boolOf(reported["success"]); given {
		if ok {
			return workflow.Succeeded
		}
		return workflow.Failed
	}
	exit, hasExit := jsonvalue.Int(reported["exitStatus"])
	if textOf(reported["errorMessage"]) == "" && (!hasExit || exit == 0) {
		return workflow.Succeeded
	}
	return workflow.Failed
}

// processed is the answer to begin, progress and complete: the report
// was taken (status OK) for the run, and begin's also says where to
// watch it.
func (t *reports) processed(req *handler.Request, wf *workflow.Run, watch bool) *handler.Response {
	sch := resources.SuccessSchema(req.Op)
	id := req.PathParams["workflowId"]
	root := t.k.Bases.Bare(sch, "trace/"+req.Op.ID)
	t.k.Fit.Set(sch, root, "status", "OK")
	t.k.Fit.Set(sch, root, "workflowId", id)
	if watch {
		t.k.Fit.Set(sch, root, "watchUrl", t.watchURL(req, id, wf))
	}
	return resources.Success(req.Op, root)
}
