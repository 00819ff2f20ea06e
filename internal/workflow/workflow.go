// Package workflow is the fake's model of a pipeline run, free of HTTP,
// storage and schemas: the service's run statuses, the stored record of a
// run, how that record reads at a given moment on the fake's clock, and the
// shape of the work (processes and tasks) the run carries out.
//
// A run is never driven by a timer. Its record holds what was launched and
// when, plus any status a caller forced, or what the client that drives it
// reported (trace.go); the status a client sees is worked out from those
// and the clock at read time. So advancing a fake clock
// moves every run at once, a restart resumes runs where the clock says they
// are, and tests never wait.
package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The run statuses of the service.
const (
	Submitted = "SUBMITTED"
	Running   = "RUNNING"
	Succeeded = "SUCCEEDED"
	Failed    = "FAILED"
	Cancelled = "CANCELLED"
	Unknown   = "UNKNOWN"
)

// Statuses lists every run status, in lifecycle order. It is the one list:
// the profile, the seed, the admin API and generation all read it.
var Statuses = []string{Submitted, Running, Succeeded, Failed, Cancelled, Unknown}

// FinalStatuses are the statuses a run can end in.
var FinalStatuses = []string{Succeeded, Failed, Cancelled, Unknown}

// Final reports whether a run in status s has ended.
func Final(s string) bool { return slices.Contains(FinalStatuses, s) }

// ErrInvalidStatus is returned for a status the service does not have, or
// an end status a run cannot end in.
var ErrInvalidStatus = errors.New("invalid workflow status")

// CheckStatuses validates a status to force and an end status; each may
// be "".
func CheckStatuses(status, endStatus string) error {
	if status != "" && !slices.Contains(Statuses, status) {
		return fmt.Errorf("%w: unknown status %q (known: %s)", ErrInvalidStatus, status, strings.Join(Statuses, ", "))
	}
	if endStatus != "" && !Final(endStatus) {
		return fmt.Errorf("%w: a run cannot end in %q (final statuses: %s)", ErrInvalidStatus, endStatus, strings.Join(FinalStatuses, ", "))
	}
	return nil
}

// Run is the stored record of one run.
type Run struct {
	RunName        string   `json:"runName"`
	ProjectName    string   `json:"projectName"`
	Pipeline       string   `json:"pipeline"`
	Revision       string   `json:"revision,omitempty"`
	CommitID       string   `json:"commitId,omitempty"`
	WorkDir        string   `json:"workDir,omitempty"`
	ComputeEnvID   string   `json:"computeEnvId,omitempty"`
	ConfigProfiles []string `json:"configProfiles,omitempty"`
	ConfigText     string   `json:"configText,omitempty"`
	ParamsText     string   `json:"paramsText,omitempty"`
	Resume         bool     `json:"resume,omitempty"`
	SessionID      string   `json:"sessionId,omitempty"`
	UserName       string   `json:"userName,omitempty"`
	// WorkspaceID is 0 for a run in the user's personal context.
	WorkspaceID int64     `json:"workspaceId,omitempty"`
	Submit      time.Time `json:"submit"`
	// SubmittedFor and RunningFor are the profile's durations when the run
	// was launched, kept so a run's history never changes afterwards.
	SubmittedFor time.Duration `json:"submittedFor"`
	RunningFor   time.Duration `json:"runningFor"`
	// EndStatus is how the run ends if nothing intervenes.
	EndStatus string `json:"endStatus"`
	// Pinned is a status forced at PinnedAt (a cancel, a control call, a
	// seed); it holds from then on.
	Pinned   string     `json:"pinned,omitempty"`
	PinnedAt *time.Time `json:"pinnedAt,omitempty"`
	// Trace is what the run's client reported, for a run a client drives
	// (see Trace); nil for a run that follows the lifecycle simulation.
	Trace *Trace `json:"trace,omitempty"`
	// Launch holds the members of the launch that made the run beyond
	// those above (pullLatest, stubRun, mainScript, headJobCpus...), as
	// the client wrote them (nulls left out), a JSON object; nil when
	// there were none.
	Launch json.RawMessage `json:"launch,omitempty"`
	// SchedRunID is the scheduler's id for the run, as a client last wrote
	// it (PATCH /workflow/{id}: Nextflow's launched runs); nil until then.
	SchedRunID *string `json:"schedRunId,omitempty"`
	// Seeded marks a run of the seeded account, whose answers may carry
	// values the fake makes up; a run a client launched or reported shows
	// only what was written and what its run derives.
	Seeded bool `json:"seeded,omitempty"`
}

// Force pins status from now on and/or sets the status the run ends in;
// each may be "". It checks both first and changes nothing on an error.
func (w *Run) Force(status, endStatus string, now time.Time) error {
	if err := CheckStatuses(status, endStatus); err != nil {
		return err
	}
	if endStatus != "" {
		w.EndStatus = endStatus
	}
	if status != "" {
		w.Pinned, w.PinnedAt = status, &now
	}
	return nil
}

// View is a run as seen at one moment.
type View struct {
	Submit          time.Time
	Status          string
	Start, Complete *time.Time
	LastUpdated     time.Time
	// Frac is the share of the run's work done, 0 to 1.
	Frac float64
}

// At works out the run's status and timestamps at now: from the reports
// of a run its client drives, else from the lifecycle simulation; a
// pinned status holds over either from the moment it was set.
func (w *Run) At(now time.Time) View {
	natural := w.simulated
	if w.Trace != nil {
		natural = w.Trace.view
	}
	var v View
	if w.Pinned == "" || w.PinnedAt == nil {
		v = natural(now)
	} else {
		at := *w.PinnedAt
		if now.Before(at) {
			at = now
		}
		n := natural(at)
		v = View{Status: w.Pinned, Start: n.Start, Frac: n.Frac, LastUpdated: n.LastUpdated}
		switch {
		case w.Pinned == Submitted:
			v.Start, v.Frac = nil, 0
		case w.Pinned == Running:
			if v.Start == nil {
				v.Start = timePtr(at)
			}
			// A run held RUNNING keeps making progress, but never finishes.
			v.Frac = min(0.9, float64(now.Sub(*v.Start))/float64(max(w.RunningFor, time.Second)))
		default: // a final status
			if v.Start == nil && w.Pinned != Cancelled {
				v.Start = timePtr(at)
			}
			v.Complete = n.Complete
			if v.Complete == nil {
				v.Complete = timePtr(at)
			}
		}
	}
	v.Submit = w.Submit
	if v.LastUpdated.Before(w.Submit) {
		v.LastUpdated = w.Submit
	}
	for _, t := range []*time.Time{v.Start, v.Complete} {
		if t != nil && t.After(v.LastUpdated) {
			v.LastUpdated = *t
		}
	}
	if w.PinnedAt != nil && w.PinnedAt.After(v.LastUpdated) && !w.PinnedAt.After(now) {
		v.LastUpdated = *w.PinnedAt
	}
	return v
}

// simulated is the run as the lifecycle simulation moves it: SUBMITTED
// for SubmittedFor, RUNNING for RunningFor, then EndStatus.
func (w *Run) simulated(at time.Time) View {
	startAt := w.Submit.Add(w.SubmittedFor)
	endAt := startAt.Add(w.RunningFor)
	switch {
	case at.Before(startAt):
		return View{Status: Submitted}
	case at.Before(endAt):
		st := startAt
		return View{Status: Running, Start: &st, Frac: float64(at.Sub(startAt)) / float64(w.RunningFor)}
	default:
		// One allocation for both times: every finished run in a list
		// is worked out on each read.
		se := &[2]time.Time{startAt, endAt}
		return View{Status: w.EndStatus, Start: &se[0], Complete: &se[1], Frac: 1}
	}
}

// timePtr is a copy of t on the heap: At takes one only in the branches
// that keep it, so the pinned time does not escape on every call.
func timePtr(t time.Time) *time.Time { return &t }
