// Package junit writes JUnit XML reports, the format CI servers read test
// results from. Several wmsmock commands report to CI (fidelity, diff);
// they share these types so their reports look alike and the XML is
// written one way.
//
// Only the parts of the format that CI servers commonly show are modelled:
// suites with counts, cases with a class name, a failure or a skip
// reason, and free text output.
package junit

import (
	"encoding/xml"
	"io"
)

// Suites is a report of several suites (the <testsuites> root).
type Suites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	Suites  []Suite  `xml:"testsuite"`
}

// Suite is one suite of cases; it can also stand alone as a report's root.
// Counted fills its counts from its cases.
type Suite struct {
	XMLName  xml.Name `xml:"testsuite"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Cases    []Case   `xml:"testcase"`
}

// Case is one test case: passed, failed (Failure) or skipped (Skipped).
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Failure   *Failure `xml:"failure,omitempty"`
	Skipped   *Skipped `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Failure says why a case failed: a one-line message and the detail.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Skipped says why a case did not run.
type Skipped struct {
	Message string `xml:"message,attr"`
}

// Counted returns the suite with Tests, Failures and Skipped set from its
// cases, so a report's counts cannot disagree with what it lists.
func (s Suite) Counted() Suite {
	s.Tests, s.Failures, s.Skipped = len(s.Cases), 0, 0
	for _, c := range s.Cases {
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	return s
}

// Write writes report (a Suites or a Suite) as an XML document: the XML
// declaration, the indented report, and a final newline.
func Write(w io.Writer, report any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
