package workflow

import (
	"fmt"
	"hash/fnv"
	"math"
	"time"
)

// The console log of a run the fake launched: what its Nextflow head job
// would have printed by a moment, worked out from the run's plan and its
// view at that moment, as everything else about the run is. A client
// that polls the log (Nextflow's launch command prints the entries past
// the ones it has seen, by count) must see it grow and never change what
// it already showed, so every entry is a fixed function of the run and
// entries only follow the run's progress: a later view never has fewer
// tasks started than an earlier one.

// TaskOf names task j (0-based, in plan order) of the plan: its process
// and its index within the process, from 1.
func (p Plan) TaskOf(j int) (process string, n int) {
	for i := range p.n {
		if j < p.counts[i] {
			return p.procs[i], j + 1
		}
		j -= p.counts[i]
	}
	return "", 0
}

// started is how many of total tasks a run seen as v has submitted: the
// done ones and the (at most two) running after them, all of them once
// it succeeded; a run that stopped keeps the count it had then.
func started(v View, total int) int {
	switch {
	case v.Start == nil || total == 0:
		return 0
	case v.Status == Succeeded:
		return total
	}
	done := min(int(math.Floor(v.Frac*float64(total))), total-1)
	return min(total, max(0, done)+2)
}

// FailedTask is the index of the task a failed run seen as v failed in
// (the one after those that succeeded), or -1.
func FailedTask(v View, total int) int {
	if v.Status != Failed || total == 0 {
		return -1
	}
	return CountsAt(v, total).Succeeded
}

// LogAt is the run's console output at now, one line an entry: its
// submission; once started, Nextflow's banner and launch line and each
// task as it is submitted; once ended, how it ended (the summary of a
// success, the failed task's error, a cancellation). A run that stopped
// reporting (UNKNOWN) shows what it had printed.
func (w *Run) LogAt(id string, now time.Time) []string {
	v := w.At(now)
	cmd := "nextflow run " + w.Pipeline + " -name " + w.RunName
	if w.Revision != "" {
		cmd += " -r " + w.Revision
	}
	out := []string{fmt.Sprintf("Run %s submitted at %s: %s", w.RunName, logStamp(w.Submit), cmd)}
	if v.Start == nil {
		if v.Status == Cancelled && v.Complete != nil {
			out = append(out, "Run cancelled at "+logStamp(*v.Complete)+" before it started")
		}
		return out
	}
	launching := "Launching `" + w.Pipeline + "` [" + w.RunName + "] DSL2"
	switch {
	case w.Revision != "":
		launching += " - revision: " + w.Revision
	case w.CommitID != "":
		launching += " - revision: " + w.CommitID
	}
	out = append(out, "N E X T F L O W  ~  version "+NextflowVersion, launching, "")
	plan := PlanFor(id)
	for j := range started(v, plan.Total) {
		proc, n := plan.TaskOf(j)
		out = append(out, fmt.Sprintf("[%s] Submitted process > %s (%d)", taskHash(id, j), proc, n))
	}
	if v.Complete == nil {
		return out
	}
	switch v.Status {
	case Succeeded:
		out = append(out, "",
			"Completed at: "+logStamp(*v.Complete),
			"Duration    : "+v.Complete.Sub(*v.Start).String(),
			fmt.Sprintf("Succeeded   : %d", plan.Total))
	case Failed:
		proc, n := plan.TaskOf(FailedTask(v, plan.Total))
		out = append(out,
			fmt.Sprintf("ERROR ~ Error executing process > '%s (%d)'", proc, n),
			"",
			"Caused by:",
			fmt.Sprintf("  Process `%s (%d)` terminated with an error exit status (1)", proc, n))
	case Cancelled:
		c := CountsAt(v, plan.Total)
		out = append(out, fmt.Sprintf("Run cancelled at %s: %d tasks aborted", logStamp(*v.Complete), c.Aborted))
	}
	return out
}

// taskHash is the short work directory hash Nextflow prints before a
// task ("[3f/a1b2c3]"), fixed for the run's task.
func taskHash(id string, j int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", id, j)
	x := fmt.Sprintf("%08x", h.Sum32())
	return x[:2] + "/" + x[2:8]
}

func logStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
