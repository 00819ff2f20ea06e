package resources

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/workflow"
)

// A reported run is shown as its client reported it: its answers are
// built on bare frames (what the schemas require) with the reported values
// and the run's own state laid over them, so nothing made up appears
// beside what Nextflow said.

// render builds a reported run for an answer schema: the describe answer
// (with everything reported) or a list entry (with the short members the
// run record keeps).
func (t *traces) render(sch *base.Schema, purpose, id string, wf *workflow.Run, now time.Time) (map[string]any, error) {
	root := t.s.bases.bare(sch, "workflow/"+id+"/"+purpose)
	v := wf.At(now)
	if wsch := prop(sch, "workflow"); wsch != nil {
		obj := t.s.bases.bare(wsch, "workflow/"+id+"/"+purpose)
		if purpose != "entry" {
			d, err := t.details(id)
			if err != nil {
				return nil, err
			}
			t.s.fit.overlay(wsch, obj, d.Workflow)
		}
		t.s.fit.overlay(wsch, obj, wf.Trace.Fields)
		t.s.fit.overlay(wsch, obj, t.runFields(id, wf, v))
		if workflow.Final(v.Status) {
			if _, reported := obj["stats"]; !reported {
				if st, sts := t.s.bases.child(wsch, obj, "stats", "workflow/"+id); sts != nil {
					t.s.fit.overlay(sts, st, loadStats(wf.Trace.Total))
					t.s.fit.set(wsch, obj, "stats", st)
				}
			}
		}
		root["workflow"] = obj
	}
	if ps := prop(sch, "progress"); ps != nil {
		root["progress"] = t.progressOf(ps, id, wf, v, purpose != "entry")
	}
	t.s.fit.overlay(sch, root, contextFields(wf.WorkspaceID))
	return root, nil
}

// runFields are the members of a reported run the fake itself decides:
// its id, status and times on the fake's clock, and its identity.
func (t *traces) runFields(id string, wf *workflow.Run, v workflow.View) map[string]any {
	tr := wf.Trace
	f := map[string]any{
		"id": id, "ownerId": int64(1), "status": v.Status, "runName": wf.RunName, "projectName": wf.ProjectName,
		"submit": stamp(wf.Submit), "dateCreated": stamp(wf.Submit), "lastUpdated": stamp(v.LastUpdated),
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
		f["start"] = stamp(*v.Start)
	}
	switch {
	case v.Complete != nil:
		f["complete"] = stamp(*v.Complete)
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

// loadFieldsOf are a Load's members as the progress answers name them.
func loadFieldsOf(l workflow.Load) map[string]any {
	return map[string]any{
		"pending": l.Pending, "submitted": l.Submitted, "running": l.Running, "succeeded": l.Succeeded,
		"cached": l.Cached, "failed": l.Failed, "aborted": l.Aborted, "ignored": l.Ignored, "retries": l.Retries,
		"loadCpus": l.LoadCpus, "loadMemory": l.LoadMemory, "loadTasks": l.Running,
		"peakCpus": l.PeakCpus, "peakMemory": l.PeakMemory, "peakTasks": l.PeakTasks,
		"cpus": l.Cpus, "cpuTime": l.CpuTime, "cpuLoad": l.CpuLoad, "memoryRss": l.MemoryRss, "memoryReq": l.MemoryReq,
		"readBytes": l.ReadBytes, "writeBytes": l.WriteBytes, "volCtxSwitch": l.VolCtxSwitch, "invCtxSwitch": l.InvCtxSwitch,
	}
}

// progressOf builds a reported run's progress answer (ProgressData): its
// counters overall and, when perProcess is set, per process (list entries
// leave the breakdown out, as for launched runs).
func (t *traces) progressOf(sch *base.Schema, id string, wf *workflow.Run, v workflow.View, perProcess bool) map[string]any {
	key := "reported progress/" + id
	tr := wf.Trace
	m := t.s.bases.bare(sch, key)
	dates := func(f map[string]any) map[string]any {
		f["dateCreated"], f["lastUpdated"] = stamp(wf.Submit), stamp(v.LastUpdated)
		return f
	}
	if wps := prop(sch, "workflowProgress"); wps != nil {
		wp := t.s.bases.bare(wps, key)
		t.s.fit.overlay(wps, wp, dates(loadFieldsOf(tr.Total)))
		m["workflowProgress"] = wp
	}
	if pp := prop(sch, "processesProgress"); isArray(pp) {
		list := []any{}
		if item := itemsOf(pp); perProcess {
			for i, p := range tr.Processes {
				e := t.s.bases.bare(item, key+"/process/"+strconv.Itoa(i))
				fields := dates(loadFieldsOf(p.Load))
				fields["process"] = p.Process
				t.s.fit.overlay(item, e, fields)
				list = append(list, e)
			}
		}
		m["processesProgress"] = list
	}
	t.s.fit.set(sch, m, "totalProcesses", int64(len(tr.Processes)))
	return m
}
