package fidelity_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/fidelity"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

func runAgainst(t *testing.T, tags string, opts ...mock.Option) *conformance.Result {
	t.Helper()
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: inprocess.New(inprocess.Options{Mock: opts}),
		Tags:   tags,
		Output: io.Discard,
	})
	if res == nil {
		t.Fatalf("the suite did not run: %v", err)
	}
	return res
}

// TestFidelityListsWhatDiffers: the default fake against a fake whose
// profile differs on a few open points; the report's disagreements are
// the scenarios that meet those points, and nothing else: the @profile
// scenario of each point, and the @contract scenario that sends a Basic
// credential (both fakes refuse it, as the contract asks, with other
// statuses).
func TestFidelityListsWhatDiffers(t *testing.T) {
	other, err := profile.Parse([]byte(`auth:
  bad_scheme: {status: 401, body: empty}
unknown_route: {status: 404, body: template, message: "Not found"}
versions: {unserved_as_default: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	const tags = "@auth,@unknown-path,@versions"
	a := runAgainst(t, tags)
	b := runAgainst(t, tags, mock.WithProfile(other))
	rep := fidelity.Compare(a, b)
	var md bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"A call with a scheme other than Bearer gets the profile's reply",
		"A call with a scheme other than Bearer is refused",
		"A method the path does not define is refused",
		"A path the service does not have is refused",
		"A version the service does not serve is answered as the profile says",
	}
	if got := rep.Disagreements(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("disagreements:\n  %s\nwant:\n  %s\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), md.String())
	}
	if rep.Total.Agreed == 0 || rep.Total.Disagreed != len(want) || rep.Total.Agreement <= 0 || rep.Total.Agreement >= 1 {
		t.Errorf("figures %+v", rep.Total)
	}
	if rep.Total.Operations == 0 || rep.Total.Exercised == 0 || rep.Total.Exercised > rep.Total.Operations {
		t.Errorf("coverage %d of %d", rep.Total.Exercised, rep.Total.Operations)
	}
	for _, s := range []string{"| profile |", "| contract |", "status | `403` | `401` |", "body | `empty` | `{\"message\":\"string\"}` |"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the markdown report lacks %q:\n%s", s, md.String())
		}
	}
	var js bytes.Buffer
	if err := rep.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var back fidelity.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Total != rep.Total || len(back.Scenarios) != len(rep.Scenarios) {
		t.Errorf("JSON report does not read back: %v", err)
	}
	var ju bytes.Buffer
	if err := rep.JUnit(&ju); err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &suite); err != nil || suite.Failures != len(want) || len(suite.Cases) != len(rep.Scenarios) {
		t.Errorf("JUnit report: %v, %d failures of %d cases", err, suite.Failures, len(suite.Cases))
	}

	// A server compared with itself agrees on everything it ran.
	if self := fidelity.Compare(a, runAgainst(t, tags)); self.Total.Disagreed != 0 {
		t.Errorf("the default fake disagrees with itself: %q", self.Disagreements())
	}
}

// TestFidelityShowsEachServersHabits: a run whose answers showed the
// service's habits against one whose did not; the report lists the first's,
// by operation and place, in each format, and none for the second.
func TestFidelityShowsEachServersHabits(t *testing.T) {
	habit := conformance.Habit{Operation: "GET /workflow", Path: "$.workflows[*].workflow.errorMessage", Kind: conformance.HabitNull, Count: 3}
	scenario := func(habits ...conformance.Habit) conformance.ScenarioResult {
		return conformance.ScenarioResult{Feature: "Answers match the published schema", Name: "A list of runs matches its schema",
			URI: "schema.feature", Tags: []string{"@contract"}, Status: conformance.Passed, Habits: habits,
			Calls: []conformance.Call{{Method: "GET", Path: "/workflow", Status: 200, Shape: `{"workflows":[]}`}}}
	}
	a := &conformance.Result{Target: "fake", Scenarios: []conformance.ScenarioResult{scenario(habit)}}
	b := &conformance.Result{Target: "service", Scenarios: []conformance.ScenarioResult{scenario()}}
	rep := fidelity.Compare(a, b)
	if len(rep.HabitsA) != 1 || len(rep.HabitsB) != 0 || len(rep.Scenarios[0].A.Habits) != 1 {
		t.Fatalf("habits: first %v, second %v, scenario %v", rep.HabitsA, rep.HabitsB, rep.Scenarios[0].A.Habits)
	}
	var md, js, ju bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.JSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.JUnit(&ju); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## The service's habits") || !strings.Contains(md.String(), "| GET /workflow | $.workflows[*].workflow.errorMessage | 3 |") ||
		!strings.Contains(md.String(), "### service\n\nNone.") {
		t.Errorf("the markdown report does not show the habits:\n%s", md.String())
	}
	var back fidelity.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.HabitsA) != 1 || back.HabitsA[0] != habit {
		t.Errorf("the JSON report does not carry the habits: %v %+v", err, back.HabitsA)
	}
	if !strings.Contains(ju.String(), "<system-out>fake: the service&#39;s habits") || !strings.Contains(ju.String(), habit.Path) {
		t.Errorf("the JUnit report does not carry the habits:\n%s", ju.String())
	}
}

// TestFidelityNamesTheField: where two servers' answers differ, the report
// names the field by its JSON Pointer and shows both values; a null
// against a value is data, not a difference; a property left out against
// one sent (null or not) is one where the profile says the service sends
// its nulls, and is not where it says they are left out (left out is null
// then).
func TestFidelityNamesTheField(t *testing.T) {
	result := func(nulls string, fields map[string]string, headers ...string) *conformance.Result {
		return &conformance.Result{Target: "server", Nulls: nulls, Scenarios: []conformance.ScenarioResult{{
			Feature: "Workflow lifecycle", Name: "A run is described", URI: "workflows.feature", Tags: []string{"@contract"},
			Status: conformance.Passed,
			Calls: []conformance.Call{
				{Method: "POST", Path: "/workflow/launch", Status: 200, Fields: map[string]string{"/workflowId": `"4Jk2"`}},
				{Method: "GET", Path: "/workflow/4Jk2", Status: 200, Fields: fields, Headers: headers},
			},
		}}}
	}
	used := map[string]string{"/workflow/id": `"4Jk2"`, "/workflow/errorMessage": `"exit 1"`, "/workflow/params/0/name": `"a"`, "/progress": "null"}
	fresh := map[string]string{"/workflow/id": `"9xQ"`, "/workflow/errorMessage": "null", "/workflow/params": "[]", "/progress": "null"}
	cases := []struct {
		name     string
		a, b     *conformance.Result
		agree    bool
		where, x string // the difference named, and a value shown
	}{
		{"null against a value, and an empty list against a full one", result("service", used), result("service", fresh), true, "", ""},
		{"a value of another kind", result("service", used), result("service", map[string]string{"/workflow/id": "42", "/workflow/errorMessage": "null", "/workflow/params": "[]", "/progress": "null"}), false, "/workflow/id", `"4Jk2"`},
		{"null against left out, nulls sent", result("service", used), result("service", map[string]string{"/workflow/id": `"9xQ"`, "/workflow/errorMessage": "null", "/workflow/params": "[]"}), false, "/progress", absent},
		{"null against left out, nulls omitted", result("omit", used), result("omit", map[string]string{"/workflow/id": `"9xQ"`, "/workflow/params": "[]"}), true, "", ""},
		{"a value against left out, nulls sent", result("service", used), result("service", map[string]string{"/progress": "null"}), false, "/workflow/id", `"4Jk2"`},
		{"a header only one sends", result("service", used, "X-Ratelimit-Limit"), result("service", fresh), false, "header X-Ratelimit-Limit", "present"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := fidelity.Compare(c.a, c.b)
			s := rep.Scenarios[0]
			if (s.Verdict == fidelity.Agree) != c.agree {
				t.Fatalf("verdict %s, want agree=%v; differences %v", s.Verdict, c.agree, s.Differences)
			}
			if c.agree {
				return
			}
			var md bytes.Buffer
			if err := rep.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range s.Differences {
				if d.Where == c.where && d.Call == 2 && (d.A == c.x || d.B == c.x) {
					found = true
				}
			}
			if !found {
				t.Errorf("differences %+v: none at %s showing %s", s.Differences, c.where, c.x)
			}
			if !strings.Contains(md.String(), c.where) || !strings.Contains(md.String(), "`"+c.x+"`") {
				t.Errorf("the markdown report does not show %s with %s:\n%s", c.where, c.x, md.String())
			}
		})
	}
}

const absent = "absent"
