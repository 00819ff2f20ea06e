package resources

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TestRunTimeline: a run's status follows the clock from its submission,
// and a pinned status holds from the moment it was set.
func TestRunTimeline(t *testing.T) {
	w := &Workflow{Submit: t0, SubmittedFor: 30 * time.Second, RunningFor: 2 * time.Minute, EndStatus: StatusSucceeded}
	for _, c := range []struct {
		at        time.Duration
		status    string
		started   bool
		completed bool
	}{
		{0, StatusSubmitted, false, false},
		{29 * time.Second, StatusSubmitted, false, false},
		{30 * time.Second, StatusRunning, true, false},
		{149 * time.Second, StatusRunning, true, false},
		{150 * time.Second, StatusSucceeded, true, true},
		{time.Hour, StatusSucceeded, true, true},
	} {
		v := w.view(t0.Add(c.at))
		if v.status != c.status || (v.start != nil) != c.started || (v.complete != nil) != c.completed {
			t.Errorf("at +%s: %s start=%v complete=%v, want %s", c.at, v.status, v.start, v.complete, c.status)
		}
	}
	// Cancelled while running: it stops there, with the time of the cancel.
	at := t0.Add(time.Minute)
	w.Pinned, w.PinnedAt = StatusCancelled, &at
	v := w.view(t0.Add(time.Hour))
	if v.status != StatusCancelled || v.start == nil || v.complete == nil || !v.complete.Equal(at) {
		t.Errorf("cancelled: %+v", v)
	}
	c := countsFor(v, 10)
	if c.succeeded+c.aborted != 10 || c.aborted == 0 || c.running != 0 || c.pending != 0 {
		t.Errorf("cancelled counts %+v", c)
	}
	// Cancelled before it started: it never starts.
	early := t0.Add(10 * time.Second)
	w.PinnedAt = &early
	if v := w.view(t0.Add(time.Hour)); v.start != nil || countsFor(v, 10) != (taskCounts{}) {
		t.Errorf("cancelled before start: %+v", v)
	}
}

func TestCountsAddUp(t *testing.T) {
	for _, st := range WorkflowStatuses {
		for _, frac := range []float64{0, 0.3, 0.99, 1} {
			start := t0
			v := runView{status: st, start: &start, frac: frac}
			c := countsFor(v, 7)
			sum := c.succeeded + c.failed + c.running + c.aborted + c.pending
			if st != StatusSubmitted && sum != 7 {
				t.Errorf("%s at %.2f: %+v adds up to %d", st, frac, c, sum)
			}
			if len(taskStatuses(c, 7)) != sum {
				t.Errorf("%s: %d task statuses for %d tasks", st, len(taskStatuses(c, 7)), sum)
			}
		}
	}
	if c := countsFor(runView{status: StatusSucceeded, start: &t0}, 5); c.succeeded != 5 {
		t.Errorf("succeeded run: %+v", c)
	}
	if c := countsFor(runView{status: StatusFailed, start: &t0, frac: 1}, 5); c.failed != 1 || c.succeeded != 4 {
		t.Errorf("failed run: %+v", c)
	}
}

func TestProjectName(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/nf-core/rnaseq":     "nf-core/rnaseq",
		"https://github.com/nf-core/rnaseq.git": "nf-core/rnaseq",
		"nf-core/sarek":                         "nf-core/sarek",
		"https://gitlab.example/a/b/":           "a/b",
	} {
		if got := projectName(in); got != want {
			t.Errorf("projectName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A launch body is read the same whether it fits the typed fast path or
// needs the map path (a field of an unexpected type, which a document
// other than the service's may allow): the fields of the expected types
// are kept either way.
func TestReadLaunch(t *testing.T) {
	typed, err := readLaunch([]byte(`{"launch":{"pipeline":"p","runName":"r","resume":true,"configProfiles":["a","b"],"workDir":"w"}}`))
	if err != nil {
		t.Fatal(err)
	}
	loose, err := readLaunch([]byte(`{"launch":{"pipeline":"p","runName":"r","resume":true,"configProfiles":["a",3,"b"],"workDir":"w","revision":7}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(typed, loose) {
		t.Errorf("typed %+v\nloose %+v", typed.Launch, loose.Launch)
	}
	if typed.Launch.Pipeline != "p" || !typed.Launch.Resume || len(typed.Launch.ConfigProfiles) != 2 {
		t.Errorf("typed read lost fields: %+v", typed.Launch)
	}
	if _, err := readLaunch([]byte(`{"launch":`)); err == nil {
		t.Error("a body that is not JSON was read")
	}
}

// appendJSON and encoding/json encode a run record to the same decoded
// value, for records with every field set or empty and strings that need
// escaping.
func TestWorkflowJSON(t *testing.T) {
	pinned := t0.Add(90 * time.Second)
	full := Workflow{
		RunName: "tiny_curie", ProjectName: "nf-core/rnaseq", Pipeline: "https://github.com/nf-core/rnaseq",
		Revision: "3.14", CommitID: "abc", WorkDir: "s3://b/w", ComputeEnvID: "ce1",
		ConfigProfiles: []string{"docker", "test"}, ConfigText: "a = \"b\"\n\tc\\d\x01\u2028é",
		ParamsText: "{\"x\":1}", Resume: true, SessionID: "s", UserName: "u", WorkspaceID: 42,
		Submit: t0.Add(123456789), SubmittedFor: 30 * time.Second, RunningFor: 2 * time.Minute,
		EndStatus: StatusFailed, Pinned: StatusCancelled, PinnedAt: &pinned,
	}
	for _, w := range []Workflow{full, {Pipeline: "p", Submit: t0, EndStatus: StatusSucceeded}, {RunName: "bad \xff utf8"}} {
		want, err := json.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		got := w.appendJSON(nil)
		var a, b Workflow
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("appendJSON wrote invalid JSON %s: %v", got, err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("appendJSON %s\nencoding/json %s", got, want)
		}
		var ma, mb map[string]any
		json.Unmarshal(got, &ma)
		json.Unmarshal(want, &mb)
		if !reflect.DeepEqual(ma, mb) {
			t.Errorf("fields differ:\nappendJSON %v\nencoding/json %v", ma, mb)
		}
	}
}
