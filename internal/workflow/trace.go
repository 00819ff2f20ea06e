package workflow

import (
	"slices"
	"time"
)

// A run can also be driven by its client: Nextflow, started with
// -with-tower, announces the run (trace/create), reports it started
// (begin), reports its tasks as they change (progress), keeps it alive
// while nothing changes (heartbeat) and reports how it ended (complete).
// Such a run is no longer moved by the clock: its status comes from the
// reports, and its counters from the tasks reported, one task at a time.

// Trace is what the client driving a run has reported about it. A run
// with a Trace takes its status from it (see Run.At); a run without one
// follows the fake's lifecycle simulation.
type Trace struct {
	// Created is when the client announced the run, on the fake's clock.
	Created time.Time `json:"created"`
	// Begun is when the client reported the run started; nil before.
	Begun *time.Time `json:"begun,omitempty"`
	// Start and Complete are the run's start and end as the client
	// reported them (read on its own clock, kept to the second).
	Start    *time.Time `json:"start,omitempty"`
	Complete *time.Time `json:"complete,omitempty"`
	// Ended is the final status the completion report decided
	// (SUCCEEDED or FAILED); "" while the run has not completed.
	Ended string `json:"ended,omitempty"`
	// Duration is the run's duration in milliseconds as reported at its
	// completion; nil when the client sent none.
	Duration *int64 `json:"duration,omitempty"`
	// LastReport is when the client last called, on the fake's clock.
	LastReport time.Time `json:"lastReport"`
	// SilentAfter is how long a started run may go without a report
	// before it reads as UNKNOWN (0: never), the profile's value when the
	// run was announced, kept so its history does not change afterwards.
	SilentAfter time.Duration `json:"silentAfter"`
	// Fields are the reported workflow's short members (the run's command
	// line, profile, engine version...), by the names the client used;
	// long ones (configuration text, parameters) live in the run's
	// detail record, which only a describe reads.
	Fields map[string]any `json:"fields,omitempty"`
	// Rev counts the writes of the run's detail record, so that anything
	// derived from the run record also changes when the details do.
	Rev int64 `json:"rev,omitempty"`
	// Total and Processes are the run's progress: its task counters and
	// resource totals, over the whole run and per process, in the order
	// the client named its processes, then the order tasks named new ones.
	Total     Load          `json:"total"`
	Processes []ProcessLoad `json:"processes,omitempty"`
	// Executors are the executors the run's tasks reported (awsbatch,
	// local...), in the order first seen, at most MaxExecutors.
	Executors []string `json:"executors,omitempty"`
}

// MaxExecutors bounds the executors a run keeps: a pipeline uses a few,
// and a client cannot grow a run's record without end.
const MaxExecutors = 16

// NewTrace starts the trace of a run announced at now.
func NewTrace(now time.Time, silentAfter time.Duration) *Trace {
	return &Trace{Created: now, LastReport: now, SilentAfter: silentAfter}
}

// Restart starts the reporting of a run over, for a client that announces
// it again (a head job retried or resumed under the same run): its status
// goes back to SUBMITTED, while the tasks it has reported stay, and so do
// the counters they make up.
func (t *Trace) Restart(now time.Time, silentAfter time.Duration) {
	*t = Trace{Created: now, LastReport: now, SilentAfter: silentAfter, Rev: t.Rev + 1,
		Total: t.Total, Processes: t.Processes}
}

// Announce makes the run one its client reports on, as of now: a new trace
// for a run that had none, or the trace restarted (see Restart) for a run
// announced again.
func (w *Run) Announce(now time.Time, silentAfter time.Duration) {
	if w.Trace == nil {
		w.Trace = NewTrace(now, silentAfter)
		return
	}
	w.Trace.Restart(now, silentAfter)
}

// Reporting returns the run's trace, starting one as of now for a run
// reported on without having been announced (a client that lost its create
// answer, or a run the fake launched itself).
func (w *Run) Reporting(now time.Time, silentAfter time.Duration) *Trace {
	if w.Trace == nil {
		w.Trace = NewTrace(now, silentAfter)
	}
	return w.Trace
}

// view is the run as its reports leave it at the moment at.
func (t *Trace) view(at time.Time) View {
	start := t.Start
	if start == nil {
		start = t.Begun
	}
	switch {
	case t.Ended != "":
		end := t.Complete
		if end == nil {
			end = &t.LastReport
		}
		return View{Status: t.Ended, Start: start, Complete: end, LastUpdated: t.LastReport, Frac: 1}
	case t.Begun == nil:
		return View{Status: Submitted, LastUpdated: t.LastReport}
	case t.Silent(at):
		return View{Status: Unknown, Start: start, LastUpdated: t.LastReport.Add(t.SilentAfter)}
	}
	return View{Status: Running, Start: start, LastUpdated: t.LastReport}
}

// Silent reports whether a started run has gone without a report for
// longer than its limit at the moment at.
func (t *Trace) Silent(at time.Time) bool {
	return t.SilentAfter > 0 && at.Sub(t.LastReport) > t.SilentAfter
}

// Load is a run's (or one process's) task counters and resource totals,
// named as the service's progress answers name them. The counters say how
// many tasks are in each state; failed counts every failed task, ignored
// and retries those of them whose error strategy ignored or retried them.
// The loads are those of the running tasks, the peaks the highest loads
// seen, and the totals are summed over the tasks as the service sums them
// (cpuTime is cpus x realtime, cpuLoad the used share of it).
type Load struct {
	Pending   int64 `json:"pending"`
	Submitted int64 `json:"submitted"`
	Running   int64 `json:"running"`
	Succeeded int64 `json:"succeeded"`
	Cached    int64 `json:"cached"`
	Failed    int64 `json:"failed"`
	Aborted   int64 `json:"aborted"`
	Ignored   int64 `json:"ignored"`
	Retries   int64 `json:"retries"`

	LoadCpus   int64 `json:"loadCpus"`
	LoadMemory int64 `json:"loadMemory"`
	PeakCpus   int64 `json:"peakCpus"`
	PeakMemory int64 `json:"peakMemory"`
	PeakTasks  int64 `json:"peakTasks"`

	Cpus         int64 `json:"cpus"`
	CpuTime      int64 `json:"cpuTime"`
	CpuLoad      int64 `json:"cpuLoad"`
	MemoryRss    int64 `json:"memoryRss"`
	MemoryReq    int64 `json:"memoryReq"`
	ReadBytes    int64 `json:"readBytes"`
	WriteBytes   int64 `json:"writeBytes"`
	VolCtxSwitch int64 `json:"volCtxSwitch"`
	InvCtxSwitch int64 `json:"invCtxSwitch"`
}

// ProcessLoad is the Load of one process of a run.
type ProcessLoad struct {
	Process string `json:"process"`
	Load
}

// add adds sign times d to l, peaks aside (a peak is not a sum).
func (l *Load) add(d Load, sign int64) {
	l.Pending += sign * d.Pending
	l.Submitted += sign * d.Submitted
	l.Running += sign * d.Running
	l.Succeeded += sign * d.Succeeded
	l.Cached += sign * d.Cached
	l.Failed += sign * d.Failed
	l.Aborted += sign * d.Aborted
	l.Ignored += sign * d.Ignored
	l.Retries += sign * d.Retries
	l.LoadCpus += sign * d.LoadCpus
	l.LoadMemory += sign * d.LoadMemory
	l.Cpus += sign * d.Cpus
	l.CpuTime += sign * d.CpuTime
	l.CpuLoad += sign * d.CpuLoad
	l.MemoryRss += sign * d.MemoryRss
	l.MemoryReq += sign * d.MemoryReq
	l.ReadBytes += sign * d.ReadBytes
	l.WriteBytes += sign * d.WriteBytes
	l.VolCtxSwitch += sign * d.VolCtxSwitch
	l.InvCtxSwitch += sign * d.InvCtxSwitch
}

// notePeaks raises the peaks to the current loads.
func (l *Load) notePeaks() {
	l.PeakCpus = max(l.PeakCpus, l.LoadCpus)
	l.PeakMemory = max(l.PeakMemory, l.LoadMemory)
	l.PeakTasks = max(l.PeakTasks, l.Running)
}

// Tasks is how many tasks the load counts, whatever their state.
func (l Load) Tasks() int64 {
	return l.Pending + l.Submitted + l.Running + l.Succeeded + l.Cached + l.Failed + l.Aborted
}

// Task statuses the client reports besides those the plan uses.
const (
	TaskSubmitted = "SUBMITTED"
	TaskCached    = "CACHED"
)

// TaskFacts is what of one reported task its run's progress depends on.
type TaskFacts struct {
	Process     string  `json:"process,omitempty"`
	Executor    string  `json:"executor,omitempty"`
	Status      string  `json:"status,omitempty"`
	ErrorAction string  `json:"errorAction,omitempty"`
	Cpus        int64   `json:"cpus,omitempty"`
	Memory      int64   `json:"memory,omitempty"`
	Realtime    int64   `json:"realtime,omitempty"`
	Pcpu        float64 `json:"pcpu,omitempty"`
	PeakRss     int64   `json:"peakRss,omitempty"`
	Rchar       int64   `json:"rchar,omitempty"`
	Wchar       int64   `json:"wchar,omitempty"`
	VolCtxt     int64   `json:"volCtxt,omitempty"`
	InvCtxt     int64   `json:"invCtxt,omitempty"`
}

// Load is the task's share of its run's Load: one in the counter of its
// status, its requested resources in the loads while it runs, and its
// figures in the totals.
func (f TaskFacts) Load() Load {
	var l Load
	switch f.Status {
	case TaskNew:
		l.Pending = 1
	case TaskSubmitted:
		l.Submitted = 1
	case TaskRunning:
		l.Running = 1
		l.LoadCpus, l.LoadMemory = f.Cpus, f.Memory
	case TaskCompleted:
		l.Succeeded = 1
	case TaskCached:
		l.Cached = 1
	case TaskFailed:
		l.Failed = 1
		switch f.ErrorAction {
		case "IGNORE":
			l.Ignored = 1
		case "RETRY":
			l.Retries = 1
		}
	case TaskAborted:
		l.Aborted = 1
	}
	l.Cpus = f.Cpus
	l.CpuTime = f.Cpus * f.Realtime
	l.CpuLoad = int64(f.Pcpu * float64(f.Realtime) / 100)
	l.MemoryRss = f.PeakRss
	l.MemoryReq = f.Memory
	l.ReadBytes = f.Rchar
	l.WriteBytes = f.Wchar
	l.VolCtxSwitch = f.VolCtxt
	l.InvCtxSwitch = f.InvCtxt
	return l
}

// Change is one task report: what the task was before (nil: new to the
// run) and what it is now.
type Change struct {
	Old, New *TaskFacts
}

// Apply moves the run's progress by a batch of task reports: each task
// leaves the counters of its old state and enters those of its new one,
// so the cost is the batch's, not the run's, and the counters always
// agree with the tasks stored. Peaks are noted once, after the batch, as
// the client reports a batch as one moment.
func (t *Trace) Apply(changes []Change) {
	touched := map[int]bool{}
	for _, c := range changes {
		for _, side := range []struct {
			f    *TaskFacts
			sign int64
		}{{c.Old, -1}, {c.New, 1}} {
			if side.f == nil {
				continue
			}
			d := side.f.Load()
			t.Total.add(d, side.sign)
			if side.f.Process == "" {
				continue // counted in the run's totals only
			}
			i := t.process(side.f.Process)
			t.Processes[i].add(d, side.sign)
			touched[i] = true
		}
	}
	t.Total.notePeaks()
	for i := range touched {
		t.Processes[i].notePeaks()
	}
	for _, c := range changes {
		if c.New != nil && c.New.Executor != "" && !slices.Contains(t.Executors, c.New.Executor) && len(t.Executors) < MaxExecutors {
			t.Executors = append(t.Executors, c.New.Executor)
		}
	}
}

// Peaks are the highest loads a client measured, as it reports them with
// its progress (Nextflow's peakRunning, peakCpus, peakMemory): nil where it
// said nothing.
type Peaks struct {
	Tasks, Cpus, Memory *int64
}

// TakePeaks puts the peaks the client reported in place of those the fake
// worked out from the tasks: the client measures them as they happen,
// between reports, which a count from the reported tasks cannot reproduce.
// run holds the run's peaks, processes those of each process by name.
func (t *Trace) TakePeaks(run Peaks, processes map[string]Peaks) {
	t.Total.takePeaks(run)
	for name, p := range processes {
		t.Processes[t.process(name)].takePeaks(p)
	}
}

func (l *Load) takePeaks(p Peaks) {
	if p.Tasks != nil {
		l.PeakTasks = *p.Tasks
	}
	if p.Cpus != nil {
		l.PeakCpus = *p.Cpus
	}
	if p.Memory != nil {
		l.PeakMemory = *p.Memory
	}
}

// Efficiency is the used share of what the tasks asked for, in percent:
// CPU (the load over the CPU time, cpus x realtime) and memory (the peak
// resident set over the memory requested), 0 when nothing was asked. The
// formula is that of the service's open-source predecessor (nf-tower,
// ProgressRecord, 2020); nothing public says the service has changed it.
func (l Load) Efficiency() (cpu, memory float64) {
	if l.CpuTime > 0 {
		cpu = float64(l.CpuLoad) / float64(l.CpuTime) * 100
	}
	if l.MemoryReq > 0 {
		memory = float64(l.MemoryRss) / float64(l.MemoryReq) * 100
	}
	return cpu, memory
}

// NameProcesses adds the processes the client named, in its order, to
// those the run has.
func (t *Trace) NameProcesses(names []string) {
	for _, n := range names {
		t.process(n)
	}
}

// process finds a process's place, adding it at the end when it is new.
func (t *Trace) process(name string) int {
	if i := slices.IndexFunc(t.Processes, func(p ProcessLoad) bool { return p.Process == name }); i >= 0 {
		return i
	}
	t.Processes = append(t.Processes, ProcessLoad{Process: name})
	return len(t.Processes) - 1
}
