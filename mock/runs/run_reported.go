package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A run a client reports on (reports.go) is shown as its client reported
// it: its answers are built on bare frames (what the schemas require) with
// the reported values and the run's own state laid over them, so nothing
// made up appears beside what Nextflow said.

// reportedRuns is the kind of a run a client reports on.
type reportedRuns struct{ w *runs }

// render builds a reported run for an answer schema: the describe answer
// (with everything reported) or a list entry (with the short members the
// run record keeps).
func (k reportedRuns) render(x *run, sch *spec.Schema, purpose string, now time.Time) (map[string]any, error) {
	t, id, wf := k.w, x.id, x.wf
	root := t.k.Bases.Bare(sch, "workflow/"+id+"/"+purpose)
	v := wf.At(now)
	if wsch := sch.Prop("workflow"); wsch != nil {
		obj := t.k.Bases.Bare(wsch, "workflow/"+id+"/"+purpose)
		if purpose != "entry" {
			d, err := readDetails(t.k.Store, id)
			if err != nil {
				return nil, err
			}
			t.k.Fit.Overlay(wsch, obj, d.Workflow)
		}
		t.k.Fit.Overlay(wsch, obj, wf.Trace.Fields)
		t.k.Fit.Overlay(wsch, obj, k.runFields(id, wf, v))
		if workflow.Final(v.Status) {
			if _, reported := obj["stats"]; !reported {
				if st, sts := t.k.Bases.Child(wsch, obj, "stats", "workflow/"+id); sts != nil {
					t.k.Fit.Overlay(sts, st, loadStats(wf.Trace.Total))
					t.k.Fit.Set(wsch, obj, "stats", st)
				}
			}
		}
		root["workflow"] = obj
	}
	if ps := sch.Prop("progress"); ps != nil {
		root["progress"] = k.progress(x, ps, v, purpose != "entry")
	}
	t.k.Fit.Overlay(sch, root, contextFields(wf.WorkspaceID))
	return root, nil
}

// runFields are the members of a reported run the fake itself decides:
// its id, status and times on the fake's clock, and its identity.
func (k reportedRuns) runFields(id string, wf *workflow.Run, v workflow.View) map[string]any {
	tr := wf.Trace
	f := map[string]any{
		"id": id, "ownerId": k.w.k.OwnerID(), "status": v.Status, "runName": wf.RunName, "projectName": wf.ProjectName,
		"submit": resources.Stamp(wf.Submit), "dateCreated": resources.Stamp(wf.Submit), "lastUpdated": resources.Stamp(v.LastUpdated),
		"start": nil, "complete": nil, "duration": nil, "deleted": false,
	}
	if wf.SessionID != "" {
		f["sessionId"] = wf.SessionID
	}
	if _, reported := tr.Fields["userName"]; !reported {
		f["userName"] = wf.UserName
	}
	if strings.Contains(wf.Pipeline, "://") {
		f["repository"] = wf.Pipeline
	}
	if v.Start != nil {
		f["start"] = resources.Stamp(*v.Start)
	}
	switch {
	case v.Complete != nil:
		f["complete"] = resources.Stamp(*v.Complete)
		if tr.Duration != nil && tr.Ended != "" {
			f["duration"] = *tr.Duration
		} else if v.Start != nil {
			f["duration"] = v.Complete.Sub(*v.Start).Milliseconds()
		}
	case v.Status == workflow.Unknown && v.Start != nil:
		// The service stops the clock of a run it marks UNKNOWN.
		f["duration"] = v.LastUpdated.Sub(*v.Start).Milliseconds()
	}
	if !workflow.Final(v.Status) {
		// Before the end, what the client said at begin about the outcome
		// (success false, no exit status) is not an outcome yet.
		f["success"], f["exitStatus"], f["errorMessage"], f["errorReport"], f["stats"] = nil, nil, nil, nil, nil
	} else if v.Status == workflow.Succeeded || v.Status == workflow.Failed {
		f["success"] = v.Status == workflow.Succeeded
	}
	return f
}

// loadStats are a finished run's task statistics, from its counters,
// for a client that reported none.
func loadStats(l workflow.Load) map[string]any {
	total := l.Tasks()
	pct := func(n int64) float64 {
		if total == 0 {
			return 0
		}
		return math.Round(10000*float64(n)/float64(total)) / 100
	}
	ok := l.Succeeded
	return map[string]any{
		"succeedCount": ok, "failedCount": l.Failed, "cachedCount": l.Cached, "ignoredCount": l.Ignored,
		"succeedCountFmt": strconv.FormatInt(ok, 10), "failedCountFmt": strconv.FormatInt(l.Failed, 10),
		"cachedCountFmt": strconv.FormatInt(l.Cached, 10), "ignoredCountFmt": strconv.FormatInt(l.Ignored, 10),
		"succeedPct": pct(ok), "failedPct": pct(l.Failed), "cachedPct": pct(l.Cached), "ignoredPct": pct(l.Ignored),
	}
}

// loadFieldsOf are a Load's members as the progress answers name them,
// with what the service works out from them (the efficiencies) and what
// the fake cannot know, null (the cost: the service prices a task by the
// machine it ran on).
func loadFieldsOf(l workflow.Load) map[string]any {
	cpu, mem := l.Efficiency()
	return map[string]any{
		"cpuEfficiency": cpu, "memoryEfficiency": mem, "cost": nil,
		"pending": l.Pending, "submitted": l.Submitted, "running": l.Running, "succeeded": l.Succeeded,
		"cached": l.Cached, "failed": l.Failed, "aborted": l.Aborted, "ignored": l.Ignored, "retries": l.Retries,
		"loadCpus": l.LoadCpus, "loadMemory": l.LoadMemory, "loadTasks": l.Running,
		"peakCpus": l.PeakCpus, "peakMemory": l.PeakMemory, "peakTasks": l.PeakTasks,
		"cpus": l.Cpus, "cpuTime": l.CpuTime, "cpuLoad": l.CpuLoad, "memoryRss": l.MemoryRss, "memoryReq": l.MemoryReq,
		"readBytes": l.ReadBytes, "writeBytes": l.WriteBytes, "volCtxSwitch": l.VolCtxSwitch, "invCtxSwitch": l.InvCtxSwitch,
	}
}

// progress builds a reported run's progress answer (ProgressData): its
// counters overall and, when perProcess is set, per process (list entries
// leave the breakdown out, as for launched runs).
func (k reportedRuns) progress(x *run, sch *spec.Schema, v workflow.View, perProcess bool) map[string]any {
	t, id, wf := k.w, x.id, x.wf
	key := "reported progress/" + id
	tr := wf.Trace
	m := t.k.Bases.Bare(sch, key)
	dates := func(f map[string]any) map[string]any {
		f["dateCreated"], f["lastUpdated"] = resources.Stamp(wf.Submit), resources.Stamp(v.LastUpdated)
		return f
	}
	if wps := sch.Prop("workflowProgress"); wps != nil {
		wp := t.k.Bases.Bare(wps, key)
		fields := dates(loadFieldsOf(tr.Total))
		executors := make([]any, len(tr.Executors))
		for i, e := range tr.Executors {
			executors[i] = e
		}
		fields["executors"] = executors
		t.k.Fit.Overlay(wps, wp, fields)
		m["workflowProgress"] = wp
	}
	if pp := sch.Prop("processesProgress"); pp.IsArray() {
		list := []any{}
		if item := pp.Items(); perProcess {
			for i, p := range tr.Processes {
				e := t.k.Bases.Bare(item, key+"/process/"+strconv.Itoa(i))
				fields := dates(loadFieldsOf(p.Load))
				fields["process"] = p.Process
				t.k.Fit.Overlay(item, e, fields)
				list = append(list, e)
			}
		}
		m["processesProgress"] = list
	}
	t.k.Fit.Set(sch, m, "totalProcesses", int64(len(tr.Processes)))
	return m
}

// renderTask lays a stored task over the answer's task schema: only what
// was reported, plus what the schema requires. Every task shares one
// frame: what the frame holds (taskId, status) every task reports.
func (k reportedRuns) renderTask(sch *spec.Schema, task map[string]any) map[string]any {
	m := k.w.k.Bases.Bare(sch, "reported task")
	k.w.k.Fit.Overlay(sch, m, task)
	return m
}

// tasks answers a page of a reported run's tasks, in taskId order
// (sortDir=desc: the other way), filtered by a search of their names.
// The store lists newest (highest taskId) first, so the n-th task from
// the start is read as the (total-n)-th from the end.
func (k reportedRuns) tasks(x *run, req *handler.Request) (*handler.Response, error) {
	t, run := k.w, x.id
	l, err := t.k.Listing(req, "tasks")
	if err != nil {
		return nil, err
	}
	pg, sch, key, entry := l.Page, l.Schema, l.Key, l.Item
	limit := pg.Max
	if pg.All {
		limit = t.k.Profile.Paging.MaxLimit
	}
	q := store.Query{List: taskList(run), Contains: strings.ToLower(strings.TrimSpace(req.Query.Get("search")))}
	_, total, err := t.k.Store.Page(resources.TasksCollection, q)
	if err != nil {
		return nil, err
	}
	desc := strings.EqualFold(req.Query.Get("sortDir"), "desc")
	q.Offset, q.Limit = pg.Offset, limit
	if !desc {
		end := total - pg.Offset // one past the last wanted, counted from the newest
		q.Offset, q.Limit = max(0, end-limit), max(0, min(limit, end))
	}
	var recs []store.Record
	if q.Limit > 0 {
		if recs, _, err = t.k.Store.Page(resources.TasksCollection, q); err != nil {
			return nil, err
		}
	}
	items := make([]json.RawMessage, len(recs))
	for i, r := range recs {
		at := i
		if !desc {
			at = len(recs) - 1 - i
		}
		// Clients poll a run's tasks; a task is rendered again only when
		// its record has changed.
		key := taskRenderKey{entry, r.ID, r.Seq, t.hash.bytes(r.Data)}
		items[at], err = renderOnce(t.taskRenders, key, func() (any, error) {
			task, err := decodeTask(r)
			if err != nil {
				return nil, err
			}
			m := wrapTask(t.k.Bases, entry, func(s *spec.Schema) map[string]any { return k.renderTask(s, task) })
			t.k.Fit.Complete(entry, m)
			return m, nil
		})
		if err != nil {
			return nil, err
		}
	}
	root := t.k.Bases.Bare(sch, "tasks/"+run)
	t.k.Fit.Set(sch, root, "total", int64(total))
	t.k.Fit.Set(sch, root, "totalSize", int64(total))
	body, err := withArray(root, key, items)
	if err != nil {
		return nil, err
	}
	return &handler.Response{Status: req.Op.Success.Status, Raw: body, MediaType: req.Op.Success.MediaType}, nil
}

// task answers one reported task, as it was reported.
func (k reportedRuns) task(x *run, sch *spec.Schema, n int64, _ time.Time) (map[string]any, error) {
	rec, err := k.w.k.Store.Get(resources.TasksCollection, taskKey(x.id, n))
	if errors.Is(err, store.ErrNotFound) {
		return nil, resources.Fail(resources.ErrMissing, "run %s has no task %d", x.id, n)
	}
	if err != nil {
		return nil, err
	}
	task, err := decodeTask(rec)
	if err != nil {
		return nil, err
	}
	return wrapTask(k.w.k.Bases, sch, func(s *spec.Schema) map[string]any { return k.renderTask(s, task) }), nil
}

// metrics are those the run's completion reported, one per process; a
// run that has not completed has none.
func (k reportedRuns) metrics(x *run, item *spec.Schema) ([]any, error) {
	d, err := readDetails(k.w.k.Store, x.id)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for i, m := range d.Metrics {
		fields, ok := m.(map[string]any)
		if !ok {
			continue
		}
		e := k.w.k.Bases.Bare(item, fmt.Sprintf("metrics/%s/%d", x.id, i))
		k.w.k.Fit.Overlay(item, e, fields)
		out = append(out, e)
	}
	return out, nil
}

// frame is bare: nothing made up beside what the client reported.
// log is empty: Nextflow's reports carry no console output, and the fake
// does not make one up for a run it did not run.
func (k reportedRuns) log(*run, time.Time) []string { return []string{} }

func (k reportedRuns) frame(_ *run, sch *spec.Schema, key string) map[string]any {
	return k.w.k.Bases.Bare(sch, key)
}

// forget removes what a deleted run's reports left: its detail
// record and its tasks. It costs the run's own tasks, a page at a time.
func (k reportedRuns) forget(x *run) error {
	t, run := k.w, x.id
	if err := t.k.Store.Delete(resources.TraceDetailsCollection, run); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	for {
		recs, _, err := t.k.Store.Page(resources.TasksCollection, store.Query{List: taskList(run), Limit: 500})
		if err != nil || len(recs) == 0 {
			return err
		}
		for _, r := range recs {
			if err := t.k.Store.Delete(resources.TasksCollection, r.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
}

// readDetails reads a run's detail record; a run without one has none.
func readDetails(st store.Store, id string) (*traceDetails, error) {
	r, err := st.Get(resources.TraceDetailsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return &traceDetails{}, nil
	}
	if err != nil {
		return nil, err
	}
	var d traceDetails
	dec := json.NewDecoder(strings.NewReader(string(r.Data)))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("resources: details of run %s: %w", id, err)
	}
	return &d, nil
}
