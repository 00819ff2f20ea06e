package junit_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/junit"
)

func TestCountedFollowsTheCases(t *testing.T) {
	s := junit.Suite{Name: "s", Tests: 99, Failures: 99, Cases: []junit.Case{
		{Name: "ok"},
		{Name: "bad", Failure: &junit.Failure{Message: "m"}},
		{Name: "skip", Skipped: &junit.Skipped{Message: "why"}},
		{Name: "bad2", Failure: &junit.Failure{Message: "m"}},
	}}.Counted()
	if s.Tests != 4 || s.Failures != 2 || s.Skipped != 1 {
		t.Fatalf("counts = %d tests, %d failures, %d skipped; want 4, 2, 1", s.Tests, s.Failures, s.Skipped)
	}
}

// TestWriteRoots: both roots come out as well-formed XML a JUnit reader
// can decode back, with the declaration first and escaped text.
func TestWriteRoots(t *testing.T) {
	suite := junit.Suite{Name: "alone", Cases: []junit.Case{{Name: "a<b", Classname: "c",
		Failure: &junit.Failure{Message: "x & y", Type: "breaking", Text: "line1\nline2"}}}}.Counted()
	for name, report := range map[string]any{
		"suite":  suite,
		"suites": junit.Suites{Name: "all", Suites: []junit.Suite{suite, junit.Suite{Name: "empty"}.Counted()}},
	} {
		var b strings.Builder
		if err := junit.Write(&b, report); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.HasPrefix(out, xml.Header) || !strings.HasSuffix(out, "\n") {
			t.Errorf("%s: no declaration or no final newline:\n%s", name, out)
		}
		if strings.Contains(out, "a<b") || !strings.Contains(out, "a&lt;b") {
			t.Errorf("%s: name not escaped:\n%s", name, out)
		}
		var back struct {
			XMLName xml.Name
			Suites  []junit.Suite `xml:"testsuite"`
			Cases   []junit.Case  `xml:"testcase"`
		}
		if err := xml.Unmarshal([]byte(out), &back); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		cases := back.Cases
		if name == "suites" {
			if back.XMLName.Local != "testsuites" || len(back.Suites) != 2 {
				t.Fatalf("suites root = %s with %d suites", back.XMLName.Local, len(back.Suites))
			}
			cases = back.Suites[0].Cases
		} else if back.XMLName.Local != "testsuite" {
			t.Fatalf("suite root = %s", back.XMLName.Local)
		}
		if len(cases) != 1 || cases[0].Failure == nil || cases[0].Failure.Text != "line1\nline2" || cases[0].Failure.Type != "breaking" {
			t.Errorf("%s: cases decoded back = %+v", name, cases)
		}
	}
}
