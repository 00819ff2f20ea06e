package schemadiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/wmsmock/wmsmock/internal/junit"
	"github.com/wmsmock/wmsmock/internal/report"
)

// Formats are the report's renderings.
var Formats = []string{"text", "markdown", "json", "junit"}

// Write renders the report in format (one of Formats). failOn is the
// least severity a JUnit report counts as a failure ("" means breaking).
func (r *Report) Write(w io.Writer, format string, failOn Severity) error {
	switch format {
	case "", "text":
		return r.Text(w)
	case "markdown", "md":
		return r.Markdown(w)
	case "json":
		return r.JSON(w)
	case "junit":
		return r.JUnit(w, failOn)
	}
	return fmt.Errorf("unknown format %q (%s)", format, strings.Join(Formats, ", "))
}

// sections are the severities in the order reports list them.
var sections = []Severity{Breaking, Review, Safe}

func (r *Report) summary() string {
	if len(r.Changes) == 0 {
		return "no changes"
	}
	return fmt.Sprintf("%d changes: %d breaking, %d need review, %d safe",
		len(r.Changes), r.Counts.Breaking, r.Counts.Review, r.Counts.Safe)
}

func sideName(s Side) string {
	if s.Version == "" {
		return s.Name
	}
	return s.Version + " (" + s.Name + ")"
}

func where(c Change) string {
	s := c.Text
	if c.Direction != "" {
		s = c.Direction + ": " + s
	}
	return s + " [" + c.Rule + "]"
}

// Text is the report for a person at a terminal.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s\n%s\n", sideName(r.Old), sideName(r.New), r.summary())
	for _, sev := range sections {
		first, last := true, ""
		for _, c := range r.Changes {
			if c.Severity != sev {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", strings.ToUpper(sev.Label()))
				first, last = false, ""
			}
			if op := c.Operation.String(); op != last {
				fmt.Fprintf(&b, "  %s\n", op)
				last = op
			}
			fmt.Fprintf(&b, "      %s\n", where(c))
		}
	}
	for _, imp := range []struct {
		title string
		i     *Impact
	}{{"scenarios", r.Scenarios}, {"calls", r.Calls}} {
		if imp.i == nil {
			continue
		}
		fmt.Fprintf(&b, "\n%s affected (changes at least %s): %d of %d, from %s\n",
			strings.ToUpper(imp.title[:1])+imp.title[1:], imp.i.Min.Label(), len(imp.i.Affected), imp.i.Checked, imp.i.Source)
		if imp.i.Unmatched > 0 {
			fmt.Fprintf(&b, "  (%d calls addressed no operation of the old document)\n", imp.i.Unmatched)
		}
		for _, name := range imp.i.Failed {
			fmt.Fprintf(&b, "  FAILED on the old document: %s\n", name)
		}
		for _, a := range imp.i.Affected {
			fmt.Fprintf(&b, "  %s\n", a.Name)
			for _, c := range a.Changes {
				fmt.Fprintf(&b, "      %s %s: %s\n", c.Severity.Label(), c.Operation, where(c))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown is the report for a pull request or a CI summary page.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Schema changes: %s → %s\n\n%s.\n", report.Cell(sideName(r.Old)), report.Cell(sideName(r.New)), r.summary())
	for _, sev := range sections {
		first := true
		for _, c := range r.Changes {
			if c.Severity != sev {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n\n| operation | direction | change | rule |\n|---|---|---|---|\n", strings.ToUpper(sev.Label()[:1])+sev.Label()[1:])
				first = false
			}
			dir := c.Direction
			if dir == "" {
				dir = "-"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` |\n", report.Cell(c.Operation.String()), dir, report.Cell(c.Text), c.Rule)
		}
	}
	for _, imp := range []struct {
		title string
		i     *Impact
	}{{"Scenarios", r.Scenarios}, {"Calls", r.Calls}} {
		if imp.i == nil {
			continue
		}
		fmt.Fprintf(&b, "\n## %s affected\n\n%d of %d (changes at least %s), from %s.\n",
			imp.title, len(imp.i.Affected), imp.i.Checked, imp.i.Min.Label(), report.Cell(imp.i.Source))
		if len(imp.i.Failed) > 0 {
			fmt.Fprintf(&b, "\n**%d failed on the old document:** %s.\n", len(imp.i.Failed), report.Cell(strings.Join(imp.i.Failed, "; ")))
		}
		if len(imp.i.Affected) > 0 {
			b.WriteString("\n| who | severity | operation | change |\n|---|---|---|---|\n")
		}
		for _, a := range imp.i.Affected {
			for _, c := range a.Changes {
				fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", report.Cell(a.Name), c.Severity.Label(), report.Cell(c.Operation.String()), report.Cell(c.Text))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is the report for programs: the Report type, indented.
func (r *Report) JSON(w io.Writer) error {
	return report.JSON(w, r)
}

// JUnit is the report for a CI server: a test case per changed operation,
// and one per affected scenario or call, failed when a change there is at
// least failOn (breaking when "").
func (r *Report) JUnit(w io.Writer, failOn Severity) error {
	if failOn == "" {
		failOn = Breaking
	}
	doc := junit.Suites{Name: "wmsmock diff " + sideName(r.Old) + " -> " + sideName(r.New)}
	ops := junit.Suite{Name: "operations"}
	var order []string
	byOp := map[string][]Change{}
	for _, c := range r.Changes {
		k := c.Operation.String()
		if _, ok := byOp[k]; !ok {
			order = append(order, k)
		}
		byOp[k] = append(byOp[k], c)
	}
	for _, k := range order {
		ops.Cases = append(ops.Cases, junitCaseOf(k, "operations", byOp[k], failOn))
	}
	doc.Suites = append(doc.Suites, ops.Counted())
	for _, imp := range []struct {
		name string
		i    *Impact
	}{{"scenarios", r.Scenarios}, {"calls", r.Calls}} {
		if imp.i == nil {
			continue
		}
		s := junit.Suite{Name: imp.name}
		for _, name := range imp.i.Failed {
			s.Cases = append(s.Cases, junit.Case{Name: name, Classname: imp.name,
				Failure: &junit.Failure{Message: "failed against the fake serving the old document"}})
		}
		for _, a := range imp.i.Affected {
			s.Cases = append(s.Cases, junitCaseOf(a.Name, imp.name, a.Changes, failOn))
		}
		doc.Suites = append(doc.Suites, s.Counted())
	}
	return junit.Write(w, doc)
}

// junitCaseOf is one case; it fails with the changes at least failOn, and
// lists the others as output.
func junitCaseOf(name, class string, changes []Change, failOn Severity) junit.Case {
	tc := junit.Case{Name: name, Classname: class}
	var failing, other []string
	for _, c := range changes {
		line := c.Severity.Label() + " " + c.Operation.String() + " " + where(c)
		if c.Severity.AtLeast(failOn) {
			failing = append(failing, line)
		} else {
			other = append(other, line)
		}
	}
	if len(failing) > 0 {
		tc.Failure = &junit.Failure{
			Message: fmt.Sprintf("%d changes at least %s", len(failing), failOn.Label()),
			Type:    string(failOn),
			Text:    strings.Join(failing, "\n"),
		}
	}
	tc.SystemOut = strings.Join(other, "\n")
	return tc
}
