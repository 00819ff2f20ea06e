package conformance

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteSummary writes a report a person reads at the end of a run: per
// feature, what passed, and each failed, differing or skipped scenario with
// the reason (for a difference: what the profile expected and what the
// server did), so a skipped check is never mistaken for a passed one and a
// difference from the profile never for a broken contract.
func (r *Result) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "\nConformance of %s\n", r.Target)
	var order []string
	byFeature := map[string][]ScenarioResult{}
	for _, sc := range r.Scenarios {
		if _, ok := byFeature[sc.Feature]; !ok {
			order = append(order, sc.Feature)
		}
		byFeature[sc.Feature] = append(byFeature[sc.Feature], sc)
	}
	for _, f := range order {
		scs := byFeature[f]
		counts := map[Status]int{}
		for _, sc := range scs {
			counts[sc.Status]++
		}
		fmt.Fprintf(w, "\n  %s: %d passed, %d failed, %d skipped", f, counts[Passed], counts[Failed], counts[Skipped])
		if counts[Differs] > 0 {
			fmt.Fprintf(w, ", %d differ from the profile", counts[Differs])
		}
		if counts[NotRun] > 0 {
			fmt.Fprintf(w, ", %d not run", counts[NotRun])
		}
		fmt.Fprintln(w)
		for _, sc := range scs {
			switch sc.Status {
			case Failed, NotRun, Differs:
				fmt.Fprintf(w, "    %-7s %s (%s:%d)\n", strings.ToUpper(string(sc.Status)), sc.Name, sc.URI, sc.Line)
				fmt.Fprintf(w, "            %s\n", indent(firstLines(sc.Reason, 6), "            "))
			case Skipped:
				fmt.Fprintf(w, "    skipped %s: %s\n", sc.Name, sc.Reason)
			}
			for _, warn := range sc.Warnings {
				fmt.Fprintf(w, "    warning %s: %s\n", sc.Name, warn)
			}
		}
	}
	fmt.Fprintf(w, "\n%d scenarios: %d passed, %d failed, %d skipped", len(r.Scenarios), r.Count(Passed), r.Count(Failed), r.Count(Skipped))
	if n := r.Count(Differs); n > 0 {
		fmt.Fprintf(w, ", %d differ from the profile (not contract failures)", n)
	}
	if n := r.Count(NotRun); n > 0 {
		fmt.Fprintf(w, ", %d not run", n)
	}
	fmt.Fprintf(w, " in %s\n", r.Duration.Round(time.Millisecond))
	r.writeHabits(w)
	if r.Seed != 0 {
		fmt.Fprintf(w, "Scenarios ran in a shuffled order; --order-seed %d repeats it.\n", r.Seed)
	}
}

// firstLines keeps a reason readable: at most n lines, each shortened.
func firstLines(s string, n int) string {
	const width = 400
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	for i, l := range lines {
		if len(l) > width {
			lines[i] = l[:width] + "..."
		}
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// writeHabits says in one line how often the answers departed from the
// document as the service's own do (docs/contract.md, the service's
// habits): reported, not failed, unless StrictSchema. The reports (JUnit,
// Cucumber, the result's JSON) list every place.
func (r *Result) writeHabits(w io.Writer) {
	habits := r.Habits()
	if len(habits) == 0 {
		return
	}
	count, ops := 0, map[string]bool{}
	for _, h := range habits {
		count += h.Count
		ops[h.Operation] = true
	}
	how := "the service's habit, reported, not failed (--strict-schema fails them)"
	if r.StrictSchema {
		how = "failed, as --strict-schema asks"
	}
	fmt.Fprintf(w, "Habits: %d nulls where the schema has a non-nullable property, at %d places in %d operations: %s; every place is in the JUnit and Cucumber reports (docs/contract.md#the-services-habits).\n",
		count, len(habits), len(ops), how)
}
