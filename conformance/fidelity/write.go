package fidelity

import (
	"fmt"
	"io"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/internal/junit"
	"github.com/wmsmock/wmsmock/internal/report"
)

// Markdown writes the report for people: the figures at the top, then each
// disagreement with what each server did, then the rest in a line each.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Fidelity: %s against %s\n\n", r.A, r.B)
	fmt.Fprintf(&b, "**Agreement %s** (%d of %d scenarios compared agree; %d not compared). Coverage: %s.\n\n",
		percent(r.Total), r.Total.Agreed, r.Total.Agreed+r.Total.Disagreed, r.Total.NotCompared, coverage(r.Total))
	b.WriteString("| Tier | Agreement | Agree | Disagree | Not compared | Coverage |\n|---|---|---|---|---|---|\n")
	for _, f := range r.Tiers {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s |\n", f.Tier, percent(f), f.Agreed, f.Disagreed, f.NotCompared, coverage(f))
	}
	section := func(title string, v Verdict, each func(Scenario)) {
		first := true
		for _, s := range r.Scenarios {
			if s.Verdict != v {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n\n", title)
				first = false
			}
			each(s)
		}
	}
	section("Disagreements", Disagree, func(s Scenario) {
		fmt.Fprintf(&b, "### %s: %s (%s)\n\n", s.Feature, s.Name, s.Tier)
		fmt.Fprintf(&b, "| | %s | %s |\n|---|---|---|\n", report.Cell(r.A), report.Cell(r.B))
		fmt.Fprintf(&b, "| outcome | %s | %s |\n", report.Cell(outcome(s.A)), report.Cell(outcome(s.B)))
		for _, d := range s.Differences {
			fmt.Fprintf(&b, "| call %d `%s`: %s | %s | %s |\n", d.Call, report.Cell(d.Request), report.Cell(d.Place()), code(d.A), code(d.B))
		}
		if len(s.Differences) == 0 { // the outcome alone differs: what each server answered
			fmt.Fprintf(&b, "| answers | %s | %s |\n", report.Cell(strings.Join(s.A.Observations, "\n")), report.Cell(strings.Join(s.B.Observations, "\n")))
		}
		b.WriteString("\n")
	})
	section("Agreements", Agree, func(s Scenario) {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", s.Feature, s.Name, s.Tier)
	})
	section("Not compared", NotCompared, func(s Scenario) {
		fmt.Fprintf(&b, "- %s: %s: %s\n", s.Feature, s.Name, s.Why)
	})
	if len(r.HabitsA)+len(r.HabitsB) > 0 {
		b.WriteString("\n## The service's habits\n\nNulls where the schema has a non-nullable property: how the service answers, " +
			"reported as a difference from the document, not a failure (unless --strict-schema).\n\n")
		for _, side := range []struct {
			name   string
			habits []conformance.Habit
		}{{r.A, r.HabitsA}, {r.B, r.HabitsB}} {
			fmt.Fprintf(&b, "### %s\n\n", side.name)
			if len(side.habits) == 0 {
				b.WriteString("None.\n\n")
				continue
			}
			b.WriteString("| Operation | Where | Answers |\n|---|---|---|\n")
			for _, h := range side.habits {
				fmt.Fprintf(&b, "| %s | %s | %d |\n", report.Cell(h.Operation), report.Cell(h.Path), h.Count)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes the report for tools.
func (r *Report) JSON(w io.Writer) error {
	return report.JSON(w, r)
}

// JUnit writes the report for CI: a test case per scenario, failed where
// the servers disagree, skipped where they were not compared.
func (r *Report) JUnit(w io.Writer) error {
	ts := junit.Suite{Name: fmt.Sprintf("fidelity of %s against %s", r.A, r.B)}
	for _, s := range r.Scenarios {
		tc := junit.Case{Name: s.Name, Classname: s.Feature + " (" + string(s.Tier) + ")"}
		switch s.Verdict {
		case Disagree:
			text := fmt.Sprintf("%s: %s\n%s: %s\n", r.A, outcome(s.A), r.B, outcome(s.B))
			for _, d := range s.Differences {
				text += d.String() + "\n"
			}
			if len(s.Differences) == 0 {
				text += fmt.Sprintf("%s answered:\n  %s\n%s answered:\n  %s\n", r.A, strings.Join(s.A.Observations, "\n  "), r.B, strings.Join(s.B.Observations, "\n  "))
			}
			tc.Failure = &junit.Failure{Message: "the servers disagree", Text: text}
		case NotCompared:
			tc.Skipped = &junit.Skipped{Message: s.Why}
		}
		tc.SystemOut = habitsOut(r.A, s.A.Habits) + habitsOut(r.B, s.B.Habits)
		ts.Cases = append(ts.Cases, tc)
	}
	return junit.Write(w, ts.Counted())
}

// habitsOut lists one server's habits in a scenario, for a JUnit case's
// output ("" when it has none).
func habitsOut(server string, habits []conformance.Habit) string {
	if len(habits) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the service's habits (nulls where the schema has a non-nullable property):\n", server)
	for _, h := range habits {
		fmt.Fprintf(&b, "  %s\n", h)
	}
	return b.String()
}

func percent(f Figures) string {
	if f.Agreed+f.Disagreed == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*f.Agreement)
}

func coverage(f Figures) string {
	if f.Operations == 0 {
		return "unknown (no document)"
	}
	return fmt.Sprintf("%d of %d operations", f.Exercised, f.Operations)
}

func outcome(s Side) string {
	if s.Reason == "" {
		return string(s.Status)
	}
	return string(s.Status) + ": " + s.Reason
}

// code shows a value in a table cell as code.
func code(s string) string {
	return "`" + strings.ReplaceAll(report.Cell(s), "`", "'") + "`"
}
