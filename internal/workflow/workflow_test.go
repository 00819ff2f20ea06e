package workflow

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }

// A run's view follows the clock from its submission; a pinned status
// holds from the moment it was set, and what the run had done by then
// stays done.
func TestRunAt(t *testing.T) {
	const sub, run = 30 * time.Second, 2 * time.Minute
	base := Run{Submit: t0, SubmittedFor: sub, RunningFor: run, EndStatus: Succeeded}
	for _, tc := range []struct {
		name       string
		end        string
		pinned     string
		pinnedAt   time.Duration
		now        time.Duration
		status     string
		start      *time.Time // nil: not started
		complete   *time.Time // nil: not completed
		frac       float64
		lastUpdate time.Duration
	}{
		{name: "just submitted", now: 0, status: Submitted, lastUpdate: 0},
		{name: "about to start", now: sub - time.Nanosecond, status: Submitted},
		{name: "started", now: sub, status: Running, start: at(sub), lastUpdate: sub},
		{name: "half way", now: sub + run/2, status: Running, start: at(sub), frac: 0.5, lastUpdate: sub},
		{name: "finished", now: sub + run, status: Succeeded, start: at(sub), complete: at(sub + run), frac: 1, lastUpdate: sub + run},
		{name: "long after", now: time.Hour, status: Succeeded, start: at(sub), complete: at(sub + run), frac: 1, lastUpdate: sub + run},
		{name: "ends failed", end: Failed, now: time.Hour, status: Failed, start: at(sub), complete: at(sub + run), frac: 1, lastUpdate: sub + run},

		{name: "cancelled while running", pinned: Cancelled, pinnedAt: time.Minute, now: time.Hour,
			status: Cancelled, start: at(sub), complete: at(time.Minute), frac: 0.25, lastUpdate: time.Minute},
		{name: "cancelled before it started", pinned: Cancelled, pinnedAt: 10 * time.Second, now: time.Hour,
			status: Cancelled, complete: at(10 * time.Second), lastUpdate: 10 * time.Second},
		{name: "failed before it started", pinned: Failed, pinnedAt: 10 * time.Second, now: time.Hour,
			status: Failed, start: at(10 * time.Second), complete: at(10 * time.Second), lastUpdate: 10 * time.Second},
		{name: "held submitted", pinned: Submitted, pinnedAt: time.Minute, now: time.Hour,
			status: Submitted, lastUpdate: time.Minute},
		{name: "held running never finishes", pinned: Running, pinnedAt: time.Minute, now: time.Hour,
			status: Running, start: at(sub), frac: 0.9, lastUpdate: time.Minute},
		{name: "held running from before its start", pinned: Running, pinnedAt: 10 * time.Second, now: 10*time.Second + 30*time.Second,
			status: Running, start: at(10 * time.Second), frac: 0.25, lastUpdate: 10 * time.Second},
		{name: "pinned in the future reads as pinned now", pinned: Failed, pinnedAt: time.Hour, now: time.Minute,
			status: Failed, start: at(sub), complete: at(time.Minute), frac: 0.25, lastUpdate: time.Minute},
		{name: "finished before the pin", pinned: Failed, pinnedAt: time.Hour, now: 2 * time.Hour,
			status: Failed, start: at(sub), complete: at(sub + run), frac: 1, lastUpdate: time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base
			if tc.end != "" {
				w.EndStatus = tc.end
			}
			if tc.pinned != "" {
				w.Pinned, w.PinnedAt = tc.pinned, at(tc.pinnedAt)
			}
			v := w.At(t0.Add(tc.now))
			if v.Status != tc.status {
				t.Errorf("status %s, want %s", v.Status, tc.status)
			}
			if !sameTime(v.Start, tc.start) || !sameTime(v.Complete, tc.complete) {
				t.Errorf("start %v complete %v, want %v %v", v.Start, v.Complete, tc.start, tc.complete)
			}
			if diff := v.Frac - tc.frac; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("frac %.3f, want %.3f", v.Frac, tc.frac)
			}
			if !v.Submit.Equal(t0) || !v.LastUpdated.Equal(t0.Add(tc.lastUpdate)) {
				t.Errorf("submit %v lastUpdated %v, want %v and +%s", v.Submit, v.LastUpdated, t0, tc.lastUpdate)
			}
		})
	}
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func TestForce(t *testing.T) {
	now := t0.Add(time.Minute)
	for _, tc := range []struct {
		name, status, end string
		err               bool
		pinned, ends      string
	}{
		{name: "nothing", pinned: "", ends: Succeeded},
		{name: "a status", status: Failed, pinned: Failed, ends: Succeeded},
		{name: "an end status", end: Cancelled, ends: Cancelled},
		{name: "both", status: Running, end: Failed, pinned: Running, ends: Failed},
		{name: "unknown status", status: "DONE", err: true, ends: Succeeded},
		{name: "end status that is not final", end: Running, err: true, ends: Succeeded},
		{name: "a good status with a bad end", status: Failed, end: Submitted, err: true, ends: Succeeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Run{Submit: t0, EndStatus: Succeeded}
			err := w.Force(tc.status, tc.end, now)
			if (err != nil) != tc.err || (err != nil && !errors.Is(err, ErrInvalidStatus)) {
				t.Fatalf("Force: %v, want an error: %v", err, tc.err)
			}
			if w.Pinned != tc.pinned || w.EndStatus != tc.ends {
				t.Errorf("pinned %q ends %q, want %q %q", w.Pinned, w.EndStatus, tc.pinned, tc.ends)
			}
			if tc.pinned != "" && (w.PinnedAt == nil || !w.PinnedAt.Equal(now)) {
				t.Errorf("pinned at %v, want %v", w.PinnedAt, now)
			}
		})
	}
}

func TestStatuses(t *testing.T) {
	for _, s := range FinalStatuses {
		if !slices.Contains(Statuses, s) || !Final(s) {
			t.Errorf("final status %s is not a status, or not final", s)
		}
	}
	for _, s := range []string{Submitted, Running, "", "succeeded"} {
		if Final(s) {
			t.Errorf("Final(%q)", s)
		}
	}
}

// Counts always add up to the plan's tasks once a run has started, and
// follow each status's rule.
func TestCountsAt(t *testing.T) {
	for _, tc := range []struct {
		status string
		frac   float64
		total  int
		want   Counts
	}{
		{Running, 0, 7, Counts{Running: 2, Pending: 5}},
		{Running, 0.5, 7, Counts{Succeeded: 3, Running: 2, Pending: 2}},
		{Running, 0.99, 7, Counts{Succeeded: 6, Running: 1}},
		{Running, 1, 1, Counts{Running: 1}}, // a running run always has work left
		{Succeeded, 0.2, 5, Counts{Succeeded: 5}},
		{Failed, 1, 5, Counts{Succeeded: 4, Failed: 1}},
		{Failed, 0, 5, Counts{Failed: 1, Aborted: 4}},
		{Cancelled, 0.5, 6, Counts{Succeeded: 3, Aborted: 3}},
		{Unknown, 0.5, 6, Counts{Succeeded: 3, Pending: 3}},
		{Submitted, 0.5, 6, Counts{}},
		{Running, 0.5, 0, Counts{}},
	} {
		v := View{Status: tc.status, Start: &t0, Frac: tc.frac}
		got := CountsAt(v, tc.total)
		if got != tc.want {
			t.Errorf("%s at %.2f of %d: %+v, want %+v", tc.status, tc.frac, tc.total, got, tc.want)
		}
		statuses := TaskStatuses(got, tc.total)
		if sum := got.Succeeded + got.Failed + got.Running + got.Aborted + got.Pending; len(statuses) != sum {
			t.Errorf("%s: %d task statuses for %d counted tasks", tc.status, len(statuses), sum)
		}
	}
	if got := CountsAt(View{Status: Running}, 5); got != (Counts{}) {
		t.Errorf("a run that never started: %+v", got)
	}
	// Task statuses come in the order work finishes.
	got := TaskStatuses(Counts{Succeeded: 1, Failed: 1, Running: 1, Aborted: 1, Pending: 1}, 5)
	if want := []string{TaskCompleted, TaskFailed, TaskRunning, TaskAborted, TaskNew}; !slices.Equal(got, want) {
		t.Errorf("TaskStatuses = %v, want %v", got, want)
	}
}

// A plan follows from the id alone, and stays within its bounds.
func TestPlanFor(t *testing.T) {
	seen := map[int]bool{}
	for _, id := range []string{"a", "b", "4Zx9", "run-1", "run-2", "run-3", "", "7a1f0c"} {
		p := PlanFor(id)
		if p != PlanFor(id) {
			t.Errorf("%q: two plans", id)
		}
		procs := p.Processes()
		if len(procs) < 3 || len(procs) > 6 {
			t.Errorf("%q: %d processes", id, len(procs))
		}
		total := 0
		for i, name := range procs {
			if name != processNames[i] {
				t.Errorf("%q: process %d is %s", id, i, name)
			}
			if n := p.Tasks(i); n < 1 || n > 3 {
				t.Errorf("%q: %s runs %d tasks", id, name, n)
			}
			total += p.Tasks(i)
		}
		if total != p.Total {
			t.Errorf("%q: Total %d, tasks add up to %d", id, p.Total, total)
		}
		seen[len(procs)] = true
	}
	if len(seen) < 2 {
		t.Errorf("every id got the same number of processes: %v", seen)
	}
}

// AppendJSON and encoding/json encode a run to the same decoded value, for
// records with every field set or empty and strings that need escaping.
func TestRunJSON(t *testing.T) {
	full := Run{
		RunName: "tiny_curie", ProjectName: "nf-core/rnaseq", Pipeline: "https://github.com/nf-core/rnaseq",
		Revision: "3.14", CommitID: "abc", WorkDir: "s3://b/w", ComputeEnvID: "ce1",
		ConfigProfiles: []string{"docker", "test"}, ConfigText: "a = \"b\"\n\tc\\d\x01\u2028é",
		ParamsText: "{\"x\":1}", Resume: true, SessionID: "s", UserName: "u", WorkspaceID: 42,
		Submit: t0.Add(123456789), SubmittedFor: 30 * time.Second, RunningFor: 2 * time.Minute,
		EndStatus: Failed, Pinned: Cancelled, PinnedAt: at(90 * time.Second),
		Launch: json.RawMessage(`{"pullLatest":true,"headJobCpus":2}`), Seeded: true,
	}
	for _, w := range []Run{full, {Pipeline: "p", Submit: t0, EndStatus: Succeeded}, {RunName: "bad \xff utf8"}} {
		want, err := json.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		got := w.AppendJSON(nil)
		var a, b Run
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("AppendJSON wrote invalid JSON %s: %v", got, err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("AppendJSON %s\nencoding/json %s", got, want)
		}
		var ma, mb map[string]any
		if json.Unmarshal(got, &ma) != nil || json.Unmarshal(want, &mb) != nil || !reflect.DeepEqual(ma, mb) {
			t.Errorf("fields differ:\nAppendJSON %v\nencoding/json %v", ma, mb)
		}
	}
}

// TestHeadJobFollowsTheRun: the head job has ended exactly when the run
// has, with success exactly when the run succeeded.
func TestHeadJobFollowsTheRun(t *testing.T) {
	for _, s := range Statuses {
		j := View{Status: s}.HeadJob()
		ended := j.Status != Submitted && j.Status != Running
		if ended != Final(s) {
			t.Errorf("run %s: head job %s", s, j.Status)
		}
		if (j.ExitCode != nil && *j.ExitCode == 0) != (s == Succeeded) {
			t.Errorf("run %s: head job exit code %v", s, j.ExitCode)
		}
		if (j.Status == Succeeded) != (s == Succeeded) {
			t.Errorf("run %s: head job %s", s, j.Status)
		}
	}
}
