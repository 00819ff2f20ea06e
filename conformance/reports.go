package conformance

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// godog writes the JUnit and Cucumber reports, and to godog a @profile
// scenario that differs from the profile is a failed one. Without
// StrictProfile that is not a failure of the run, so the reports are
// rewritten once the run is over: such a scenario is skipped, with the
// difference as the reason, and the counts follow. A CI system reading the
// files then agrees with the exit status. The service's habits a scenario's
// answers showed are added to it too (the JUnit case's output, the Cucumber
// scenario's description), as godog knows nothing of them.

const differsPrefix = "differs from the profile: "

// markDifferences rewrites the report files of a run whose results hold
// differences or habits.
func markDifferences(o Options, res *Result) error {
	differ := map[[2]string]bool{}
	habits := map[[2]string]string{}
	for _, sc := range res.Scenarios {
		if sc.Status == Differs {
			differ[[2]string{sc.Feature, sc.Name}] = true
		}
		if len(sc.Habits) > 0 {
			habits[[2]string{sc.Feature, sc.Name}] = habitsNote + habitText(sc.Habits, "  ", 0)
		}
	}
	if len(differ) == 0 && len(habits) == 0 {
		return nil
	}
	if o.JUnitFile != "" {
		if err := rewrite(o.JUnitFile, func(b []byte) ([]byte, error) { return junitDifferences(b, differ, habits) }); err != nil {
			return fmt.Errorf("conformance: the JUnit report: %w", err)
		}
	}
	if o.CucumberJSONFile != "" {
		if err := rewrite(o.CucumberJSONFile, func(b []byte) ([]byte, error) { return cucumberDifferences(b, differ, habits) }); err != nil {
			return fmt.Errorf("conformance: the Cucumber report: %w", err)
		}
	}
	return nil
}

func rewrite(file string, fn func([]byte) ([]byte, error)) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := fn(b)
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}

// The JUnit shape godog writes.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string         `xml:"name,attr"`
		Status    string         `xml:"status,attr"`
		Time      string         `xml:"time,attr"`
		Failure   *junitMessage  `xml:"failure,omitempty"`
		Skipped   *junitMessage  `xml:"skipped,omitempty"`
		Errors    []junitMessage `xml:"error,omitempty"`
		SystemOut string         `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
	}
)

// habitsNote heads the list of a scenario's habits in the reports.
const habitsNote = "The service's habits (a difference from the document, not a failure unless --strict-schema): nulls where the schema has a non-nullable property, at\n"

func junitDifferences(b []byte, differ map[[2]string]bool, habits map[[2]string]string) ([]byte, error) {
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		for j := range s.Cases {
			c := &s.Cases[j]
			if h, ok := habits[[2]string{s.Name, c.Name}]; ok {
				c.SystemOut = h
			}
			if c.Failure == nil || !differ[[2]string{s.Name, c.Name}] {
				continue
			}
			c.Skipped = &junitMessage{Message: differsPrefix + c.Failure.Message}
			c.Failure, c.Status = nil, "skipped"
			s.Failures--
			s.Skipped++
			doc.Failures--
			doc.Skipped++
		}
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// cucumberDifferences marks the failed step of each differing scenario
// skipped, keeping its message, in the Cucumber JSON (read generically, so
// nothing else in the file changes but key order).
func cucumberDifferences(b []byte, differ map[[2]string]bool, habits map[[2]string]string) ([]byte, error) {
	var features []map[string]any
	if err := json.Unmarshal(b, &features); err != nil {
		return nil, err
	}
	for _, f := range features {
		fname, _ := f["name"].(string)
		elements, _ := f["elements"].([]any)
		for _, e := range elements {
			sc, _ := e.(map[string]any)
			name, _ := sc["name"].(string)
			if h, ok := habits[[2]string{fname, name}]; ok {
				desc, _ := sc["description"].(string)
				sc["description"] = strings.TrimLeft(desc+"\n"+h, "\n")
			}
			if !differ[[2]string{fname, name}] {
				continue
			}
			steps, _ := sc["steps"].([]any)
			for _, st := range steps {
				step, _ := st.(map[string]any)
				result, _ := step["result"].(map[string]any)
				if result == nil || result["status"] != "failed" {
					continue
				}
				result["status"] = "skipped"
				if msg, ok := result["error_message"].(string); ok {
					result["error_message"] = differsPrefix + msg
				}
			}
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "    ")
	if err := enc.Encode(features); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
