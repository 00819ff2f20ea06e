package workflow

// A run launched by the service runs Nextflow itself as a job of the
// compute environment (the head job); answers describe it next to the run
// (jobInfo). Its state follows the run's: a head job that finished while
// its run is still SUBMITTED, or succeeded under a FAILED run, is a run
// that contradicts itself.

// HeadJob is what the run's head job shows at one moment.
type HeadJob struct {
	Status string
	// ExitCode is nil until the job has ended with one.
	ExitCode *int
	// Message is the reason a job ended other than with success.
	Message string
}

// HeadJob gives the head job of a run in status v.Status. The statuses
// are those of a batch scheduler's job (AWS Batch: SUBMITTED, RUNNING,
// SUCCEEDED, FAILED); a cancelled run's job was stopped and has no exit
// code of its own.
func (v View) HeadJob() HeadJob {
	code := func(n int) *int { return &n }
	switch v.Status {
	case Submitted:
		return HeadJob{Status: "SUBMITTED"}
	case Running:
		return HeadJob{Status: "RUNNING"}
	case Succeeded:
		return HeadJob{Status: "SUCCEEDED", ExitCode: code(0)}
	case Failed:
		return HeadJob{Status: "FAILED", ExitCode: code(1), Message: "Essential container in task exited"}
	case Cancelled:
		return HeadJob{Status: "CANCELLED", Message: "Terminated by the user"}
	default:
		return HeadJob{Status: "UNKNOWN"}
	}
}
