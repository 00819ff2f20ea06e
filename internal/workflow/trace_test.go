package workflow

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// A reported run reads as its reports leave it, never as the simulation
// would move it: SUBMITTED until begun, RUNNING while it reports, UNKNOWN
// once silent past its limit (and RUNNING again when it reports), and
// SUCCEEDED or FAILED once completed; a pin still holds over it.
func TestTraceAt(t *testing.T) {
	const limit = 190 * time.Second
	for _, tc := range []struct {
		name   string
		trace  func(*Trace)
		pin    string
		now    time.Duration
		status string
		start  *time.Time
		end    *time.Time
		last   time.Duration
	}{
		{name: "created", now: time.Hour, status: Submitted},
		{name: "begun", trace: func(tr *Trace) { tr.Begun, tr.LastReport = at(time.Second), t0.Add(time.Second) },
			now: time.Second + limit, status: Running, start: at(time.Second), last: time.Second},
		{name: "silent", trace: func(tr *Trace) { tr.Begun, tr.LastReport = at(time.Second), t0.Add(time.Second) },
			now: time.Second + limit + 1, status: Unknown, start: at(time.Second), last: time.Second + limit},
		{name: "silent without a limit", trace: func(tr *Trace) { tr.Begun, tr.SilentAfter = at(0), 0 },
			now: 1000 * time.Hour, status: Running, start: at(0)},
		{name: "reported start wins", trace: func(tr *Trace) {
			tr.Begun, tr.Start, tr.LastReport = at(time.Minute), at(50*time.Second), t0.Add(2*time.Minute)
		}, now: 3 * time.Minute, status: Running, start: at(50 * time.Second), last: 2 * time.Minute},
		{name: "completed", trace: func(tr *Trace) {
			tr.Begun, tr.Complete, tr.Ended, tr.LastReport = at(0), at(time.Minute), Failed, t0.Add(time.Minute)
		}, now: 48 * time.Hour, status: Failed, start: at(0), end: at(time.Minute), last: time.Minute},
		{name: "cancelled while reporting", trace: func(tr *Trace) { tr.Begun, tr.LastReport = at(0), t0.Add(time.Hour) },
			pin: Cancelled, now: 2 * time.Hour, status: Cancelled, start: at(0), end: at(90 * time.Second), last: time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Run{Submit: t0, SubmittedFor: time.Second, RunningFor: time.Second, EndStatus: Succeeded, Trace: NewTrace(t0, limit)}
			if tc.trace != nil {
				tc.trace(w.Trace)
			}
			if tc.pin != "" {
				if err := w.Force(tc.pin, "", t0.Add(90*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			v := w.At(t0.Add(tc.now))
			if v.Status != tc.status || !reflect.DeepEqual(v.Start, tc.start) || !reflect.DeepEqual(v.Complete, tc.end) || !v.LastUpdated.Equal(t0.Add(tc.last)) {
				t.Errorf("got %s start %v end %v last %v; want %s start %v end %v last %v", v.Status, v.Start, v.Complete,
					v.LastUpdated.Sub(t0), tc.status, tc.start, tc.end, tc.last)
			}
		})
	}
}

// Apply moves the counters by each task's change of state, so they always
// equal the counters of the tasks themselves, overall and per process;
// peaks keep the highest load seen.
func TestTraceApply(t *testing.T) {
	tr := NewTrace(t0, 0)
	tr.NameProcesses([]string{"A", "B"})
	tasks := map[int]*TaskFacts{}
	report := func(id int, f TaskFacts) {
		old := tasks[id]
		tasks[id] = &f
		tr.Apply([]Change{{Old: old, New: &f}})
	}
	check := func() {
		t.Helper()
		var total Load
		per := map[string]*Load{}
		for _, f := range tasks {
			total.add(f.Load(), 1)
			if per[f.Process] == nil {
				per[f.Process] = &Load{}
			}
			per[f.Process].add(f.Load(), 1)
		}
		strip := func(l Load) Load { l.PeakCpus, l.PeakMemory, l.PeakTasks = 0, 0, 0; return l }
		if strip(tr.Total) != total {
			t.Errorf("total %+v, want %+v", tr.Total, total)
		}
		for _, p := range tr.Processes {
			want := Load{}
			if per[p.Process] != nil {
				want = *per[p.Process]
			}
			if strip(p.Load) != want {
				t.Errorf("process %s: %+v, want %+v", p.Process, p.Load, want)
			}
		}
	}
	report(1, TaskFacts{Process: "A", Status: TaskNew, Cpus: 2})
	report(2, TaskFacts{Process: "B", Status: TaskRunning, Cpus: 4, Memory: 100})
	report(3, TaskFacts{Process: "C", Status: TaskRunning, Cpus: 1, Memory: 10})
	check()
	if tr.Total.PeakCpus != 5 || tr.Total.PeakTasks != 2 || len(tr.Processes) != 3 || tr.Processes[2].Process != "C" {
		t.Errorf("peaks %+v, processes %+v", tr.Total, tr.Processes)
	}
	report(2, TaskFacts{Process: "B", Status: TaskCompleted, Cpus: 4, Memory: 100, Realtime: 1000, Pcpu: 150, PeakRss: 80})
	report(3, TaskFacts{Process: "C", Status: TaskFailed, ErrorAction: "IGNORE", Cpus: 1})
	report(1, TaskFacts{Process: "A", Status: TaskCached, Cpus: 2})
	report(4, TaskFacts{Process: "A", Status: TaskFailed, ErrorAction: "RETRY"})
	report(5, TaskFacts{Status: TaskAborted})
	check()
	want := Load{Succeeded: 1, Cached: 1, Failed: 2, Ignored: 1, Retries: 1, Aborted: 1, PeakCpus: 5, PeakMemory: 110, PeakTasks: 2,
		Cpus: 7, CpuTime: 4000, CpuLoad: 1500, MemoryRss: 80, MemoryReq: 100}
	if tr.Total != want {
		t.Errorf("total %+v\nwant  %+v", tr.Total, want)
	}
	if tr.Total.Tasks() != 5 {
		t.Errorf("%d tasks counted, want 5", tr.Total.Tasks())
	}
}

// A run record with a trace goes through AppendJSON and back whole.
func TestTraceJSON(t *testing.T) {
	d := int64(1234)
	tr := NewTrace(t0, 190*time.Second)
	tr.Begun, tr.Start, tr.Complete, tr.Ended, tr.Duration = at(time.Second), at(0), at(time.Minute), Succeeded, &d
	tr.Fields = map[string]any{"commandLine": "nextflow run x", "resume": false}
	tr.Rev = 3
	tr.Apply([]Change{{New: &TaskFacts{Process: "P", Status: TaskRunning, Cpus: 1}}})
	w := Run{RunName: "r", Submit: t0, EndStatus: Succeeded, Trace: tr}
	var back Run
	if err := json.Unmarshal(w.AppendJSON(nil), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, w) {
		t.Errorf("read back %+v\nwant %+v", back.Trace, w.Trace)
	}
}
