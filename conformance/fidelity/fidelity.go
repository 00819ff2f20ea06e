// Package fidelity compares two conformance runs of the same scenarios, one
// against each of two servers (typically the fake on its profile and the
// real service), scenario by scenario: whether the two behaved alike, and
// where they did not, what each did.
//
// Two runs agree on a scenario when it ended the same way on both (passed,
// failed, or differed from the profile) and their calls got the same kinds
// of answer: the same statuses, rate-limit headers and body fields of the
// same kinds, in any order (a burst's answers arrive in any order),
// whatever the values (ids and times always differ between two servers).
// Where they disagree, the report names each field that differs by its
// JSON Pointer, with both servers' values.
package fidelity

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/profile"
)

// Tier groups scenarios by what they check.
type Tier string

// The tiers. A scenario that creates and follows resources through their
// lifecycle (tagged @destructive) is a lifecycle scenario whatever else it
// checks; the others are contract or profile scenarios by their tag.
const (
	Contract  Tier = "contract"
	Profile   Tier = "profile"
	Lifecycle Tier = "lifecycle"
)

var tiers = []Tier{Contract, Profile, Lifecycle}

// TierOf is the tier of a scenario with these tags.
func TierOf(tags []string) Tier {
	switch {
	case slices.Contains(tags, "@destructive"):
		return Lifecycle
	case slices.Contains(tags, "@profile"):
		return Profile
	}
	return Contract
}

// Verdict is what a comparison found for one scenario.
type Verdict string

// The verdicts.
const (
	Agree       Verdict = "agree"
	Disagree    Verdict = "disagree"
	NotCompared Verdict = "not compared"
)

// Side is one server's part of a scenario.
type Side struct {
	Status conformance.Status `json:"status"`
	Reason string             `json:"reason,omitempty"`
	// Observations are the kinds of answer the calls got, in the order
	// first seen, each with how many calls got it ("GET -> 200 {...} x3").
	Observations []string `json:"observations"`
	// Habits are where the answers departed from the document the way the
	// service's own do (conformance.Habit): not failures, but a
	// difference from the document worth seeing beside the other server's.
	Habits []conformance.Habit `json:"habits,omitempty"`
}

// Scenario is the comparison of one scenario.
type Scenario struct {
	Feature string  `json:"feature"`
	Name    string  `json:"name"`
	Tier    Tier    `json:"tier"`
	Verdict Verdict `json:"verdict"`
	// Why says why a scenario was not compared.
	Why string `json:"why,omitempty"`
	A   Side   `json:"a"`
	B   Side   `json:"b"`
	// Differences name where the answers of a disagreement differ, each
	// with both servers' values (the first of them; see compareCalls).
	Differences []Difference `json:"differences,omitempty"`

	operations []string
}

// Figures are the counts of a tier, or of the whole report.
type Figures struct {
	Tier        Tier `json:"tier,omitempty"`
	Agreed      int  `json:"agreed"`
	Disagreed   int  `json:"disagreed"`
	NotCompared int  `json:"notCompared"`
	// Agreement is Agreed / (Agreed + Disagreed), 0 when nothing was
	// compared.
	Agreement float64 `json:"agreement"`
	// Exercised is how many of the document's operations the compared
	// scenarios called, of Operations (0 when no document was known).
	Exercised  int `json:"operationsExercised"`
	Operations int `json:"operations"`
}

// Report is a whole comparison.
type Report struct {
	A         string     `json:"a"`
	B         string     `json:"b"`
	Total     Figures    `json:"total"`
	Tiers     []Figures  `json:"tiers"`
	Scenarios []Scenario `json:"scenarios"`
	// HabitsA and HabitsB are each run's habits over all its scenarios.
	HabitsA []conformance.Habit `json:"habitsA,omitempty"`
	HabitsB []conformance.Habit `json:"habitsB,omitempty"`
}

// Compare compares two runs of the same scenarios. Scenarios are matched
// by feature file and name; one that only one run has, or that either run
// skipped, is not compared.
func Compare(a, b *conformance.Result) *Report {
	rep := &Report{A: a.Target, B: b.Target, HabitsA: a.Habits(), HabitsB: b.Habits()}
	// With the profile's answers.nulls: omit, a server that leaves out a
	// property it has no value for answers as one that sends it as null.
	nullsAbsent := a.Nulls == profile.NullsOmit || b.Nulls == profile.NullsOmit
	bs := map[string]conformance.ScenarioResult{}
	for _, s := range b.Scenarios {
		bs[s.URI+"\x00"+s.Name] = s
	}
	for _, sa := range a.Scenarios {
		sc := Scenario{Feature: sa.Feature, Name: sa.Name, Tier: TierOf(sa.Tags), A: side(sa)}
		sb, ok := bs[sa.URI+"\x00"+sa.Name]
		delete(bs, sa.URI+"\x00"+sa.Name)
		switch {
		case !ok:
			sc.Verdict, sc.Why = NotCompared, "only the first run has it"
		case !ran(sa.Status) || !ran(sb.Status):
			sc.B = side(sb)
			sc.Verdict, sc.Why = NotCompared, notRunWhy(sa, sb)
		default:
			sc.B = side(sb)
			sc.Differences = compareCalls(sa.Calls, sb.Calls, nullsAbsent)
			sc.Verdict = Disagree
			if sa.Status == sb.Status && len(sc.Differences) == 0 {
				sc.Verdict = Agree
			}
			sc.operations = union(sa.Operations, sb.Operations)
		}
		rep.Scenarios = append(rep.Scenarios, sc)
	}
	for _, sb := range b.Scenarios { // in the second run only
		if _, left := bs[sb.URI+"\x00"+sb.Name]; left {
			rep.Scenarios = append(rep.Scenarios, Scenario{Feature: sb.Feature, Name: sb.Name, Tier: TierOf(sb.Tags),
				Verdict: NotCompared, Why: "only the second run has it", B: side(sb)})
		}
	}
	total := max(a.DocumentOperations, b.DocumentOperations)
	rep.Total = figures("", rep.Scenarios, total)
	for _, t := range tiers {
		var in []Scenario
		for _, s := range rep.Scenarios {
			if s.Tier == t {
				in = append(in, s)
			}
		}
		if len(in) > 0 {
			rep.Tiers = append(rep.Tiers, figures(t, in, total))
		}
	}
	return rep
}

// Disagreements names the scenarios the two servers did not agree on.
func (r *Report) Disagreements() []string {
	var out []string
	for _, s := range r.Scenarios {
		if s.Verdict == Disagree {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

func ran(s conformance.Status) bool {
	return s == conformance.Passed || s == conformance.Failed || s == conformance.Differs
}

func notRunWhy(a, b conformance.ScenarioResult) string {
	var parts []string
	if !ran(a.Status) {
		parts = append(parts, fmt.Sprintf("first: %s (%s)", a.Status, a.Reason))
	}
	if !ran(b.Status) {
		parts = append(parts, fmt.Sprintf("second: %s (%s)", b.Status, b.Reason))
	}
	return strings.Join(parts, "; ")
}

func side(s conformance.ScenarioResult) Side {
	out := Side{Status: s.Status, Observations: []string{}, Habits: s.Habits}
	if s.Status != conformance.Passed {
		out.Reason = s.Reason
	}
	var order []string
	count := map[string]int{}
	for _, c := range s.Calls {
		o := c.Observation()
		if count[o] == 0 {
			order = append(order, o)
		}
		count[o]++
	}
	for _, o := range order {
		if n := count[o]; n > 1 {
			o += fmt.Sprintf(" x%d", n)
		}
		out.Observations = append(out.Observations, o)
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	sort.Strings(out)
	return slices.Compact(out)
}

func figures(t Tier, scs []Scenario, operations int) Figures {
	f := Figures{Tier: t, Operations: operations}
	var ops []string
	for _, s := range scs {
		switch s.Verdict {
		case Agree:
			f.Agreed++
		case Disagree:
			f.Disagreed++
		default:
			f.NotCompared++
		}
		ops = union(ops, s.operations)
	}
	if n := f.Agreed + f.Disagreed; n > 0 {
		f.Agreement = float64(f.Agreed) / float64(n)
	}
	if operations > 0 {
		f.Exercised = len(ops)
	}
	return f
}
