package workflow

import "hash/fnv"

// Plan is the fixed shape of a run's work: its processes and how many
// tasks each runs. It follows from the run's id alone, so it never
// changes, and it is a value (no allocation), so nothing needs to cache it.
type Plan struct {
	procs  [len(processNames)]string
	counts [len(processNames)]int
	n      int
	// Total is the number of tasks over every process.
	Total int
}

// processNames are the processes a run's work is drawn from, in order.
var processNames = [...]string{"FASTQC", "TRIMGALORE", "STAR_ALIGN", "SAMTOOLS_SORT", "SALMON_QUANT", "MULTIQC"}

// PlanFor returns the plan of the run with this id: three to six
// processes, each running one to three tasks.
func PlanFor(id string) Plan {
	h := fnv.New64a()
	h.Write([]byte(id))
	x := h.Sum64()
	p := Plan{n: 3 + int(x%4)}
	for i := range p.n {
		c := 1 + int((x>>(8+3*i))%3)
		p.procs[i], p.counts[i] = processNames[i], c
		p.Total += c
	}
	return p
}

// Processes returns the plan's processes, in the order they run.
func (p Plan) Processes() []string { return p.procs[:p.n] }

// Tasks returns how many tasks process i runs.
func (p Plan) Tasks(i int) int { return p.counts[i] }

// Counts is how many of a run's tasks are in each state.
type Counts struct {
	Succeeded, Failed, Running, Aborted, Pending int
}

// CountsAt shares total tasks among the states a run seen as v implies:
// work done in proportion to v.Frac, at most two tasks running, one failed
// task in a failed run, the rest aborted when the run stopped early.
func CountsAt(v View, total int) Counts {
	if v.Start == nil || total == 0 {
		return Counts{}
	}
	done := func(n int) int { return min(n, max(0, int(v.Frac*float64(n)))) }
	switch v.Status {
	case Running:
		d := min(done(total), total-1)
		r := min(2, total-d)
		return Counts{Succeeded: d, Running: r, Pending: total - d - r}
	case Succeeded:
		return Counts{Succeeded: total}
	case Failed:
		d := min(done(total-1), total-1)
		return Counts{Succeeded: d, Failed: 1, Aborted: total - d - 1}
	case Cancelled:
		d := done(total)
		return Counts{Succeeded: d, Aborted: total - d}
	case Unknown:
		d := done(total)
		return Counts{Succeeded: d, Pending: total - d}
	}
	return Counts{}
}

// Task statuses, as the service names them.
const (
	TaskCompleted = "COMPLETED"
	TaskFailed    = "FAILED"
	TaskRunning   = "RUNNING"
	TaskAborted   = "ABORTED"
	TaskNew       = "NEW"
)

// TaskStatuses lists the status of each task, in task order: work finishes
// in the order it was planned, so early processes complete first.
func TaskStatuses(c Counts, total int) []string {
	out := make([]string, 0, total)
	for _, g := range [...]struct {
		n int
		s string
	}{{c.Succeeded, TaskCompleted}, {c.Failed, TaskFailed}, {c.Running, TaskRunning}, {c.Aborted, TaskAborted}, {c.Pending, TaskNew}} {
		for range g.n {
			out = append(out, g.s)
		}
	}
	return out
}
