package schemadiff_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance/schemadiff"
)

// TestSharedComponentIsReportedUnderEveryOperation: a property removed
// from one component is a change of every operation whose request or
// response reaches that component, and of no other; the set is worked out
// from the document apart from oasdiff.
func TestSharedComponentIsReportedUnderEveryOperation(t *testing.T) {
	var want map[string]bool
	next := edited(t, func(doc map[string]any) {
		props := at(t, doc, "components", "schemas", "LabelDbDto", "properties")
		if _, ok := props["isDynamic"]; !ok {
			t.Fatal("LabelDbDto has no isDynamic property")
		}
		delete(props, "isDynamic")
		want = reaching(doc, "#/components/schemas/LabelDbDto")
	})
	if len(want) < 2 {
		t.Fatalf("LabelDbDto is reached from %v: the test needs a component several operations use", want)
	}
	rep := compare(t, embedded(t), next, nil)
	got := map[string]bool{}
	for _, c := range rep.Changes {
		if !strings.Contains(c.Text, "isDynamic") {
			t.Errorf("a change the edit did not make: %+v", c)
			continue
		}
		got[c.Operation.Key()] = true
		switch c.Direction {
		case "response":
			if c.Severity != schemadiff.Breaking {
				t.Errorf("%s: a removed response property is %s, want breaking", c.Operation, c.Severity)
			}
		case "request":
		default:
			t.Errorf("%s: change without a direction: %+v", c.Operation, c)
		}
		if c.Operation.ID == "" {
			t.Errorf("%s: no operationId", c.Operation.Key())
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("operations reported: %v\nreaching LabelDbDto: %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

// TestEnumValuesByDirection: by the service's policy a new enum value is
// safe in a response (clients must accept unknown values); a value taken
// away from a request (half of a rename) breaks the clients that send it.
func TestEnumValuesByDirection(t *testing.T) {
	next := edited(t, func(doc map[string]any) {
		status := at(t, doc, "components", "schemas", "WorkflowStatus")
		status["enum"] = append(status["enum"].([]any), "PAUSED")
		// The workflow list's attributes query parameter: a request enum.
		attr := at(t, doc, "components", "schemas", "WorkflowQueryAttribute")
		vals := attr["enum"].([]any)
		if len(vals) < 2 {
			t.Fatalf("WorkflowQueryAttribute has %v", vals)
		}
		attr["enum"] = append([]any{"renamed"}, vals[1:]...)
	})
	rep := compare(t, embedded(t), next, nil)
	var added, removed int
	for _, c := range rep.Changes {
		switch {
		case strings.Contains(c.Text, "PAUSED") && c.Direction == "response":
			added++
			if c.Severity == schemadiff.Breaking {
				t.Errorf("a new response enum value is breaking: %+v", c)
			}
		case strings.Contains(c.Rule, "enum-value-removed") && c.Direction == "request":
			removed++
			if c.Severity != schemadiff.Breaking {
				t.Errorf("a removed request enum value is %s: %+v", c.Severity, c)
			}
		}
	}
	if added == 0 || removed == 0 {
		t.Errorf("%d response enum additions and %d request enum removals reported; want both:\n%s", added, removed, text(t, rep))
	}
}

func text(t testing.TB, rep *schemadiff.Report) string {
	var b bytes.Buffer
	if err := rep.Text(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRulesFileOverridesThePolicy: a user's rules file changes the
// severity of one rule and nothing else; an unknown rule or severity is an
// error naming it.
func TestRulesFileOverridesThePolicy(t *testing.T) {
	next := edited(t, func(doc map[string]any) {
		status := at(t, doc, "components", "schemas", "WorkflowStatus")
		status["enum"] = append(status["enum"].([]any), "PAUSED")
		delete(at(t, doc, "components", "schemas", "LabelDbDto", "properties"), "isDynamic")
	})
	old := embedded(t)
	strict, err := schemadiff.DefaultPolicy().WithRules([]byte("response-property-enum-value-added: breaking\n"))
	if err != nil {
		t.Fatal(err)
	}
	def, over := compare(t, old, next, nil), compare(t, old, next, strict)
	if len(def.Changes) != len(over.Changes) {
		t.Fatalf("%d changes by default, %d with the rules file", len(def.Changes), len(over.Changes))
	}
	n := 0
	for _, c := range over.Changes {
		if c.Rule == "response-property-enum-value-added" {
			n++
			if c.Severity != schemadiff.Breaking {
				t.Errorf("overridden rule kept %s", c.Severity)
			}
		}
	}
	if n == 0 || def.Counts.Breaking+n != over.Counts.Breaking {
		t.Errorf("%d overridden changes; breaking %d by default, %d with the file", n, def.Counts.Breaking, over.Counts.Breaking)
	}
	for in, want := range map[string]string{
		"no-such-rule: safe\n":                   `unknown rule "no-such-rule"`,
		"endpoint-added: harmless\n":             `"harmless" is not a severity`,
		"- a list\n":                             "not a mapping",
		"request-property-removed: needs review": "",
	} {
		_, err := schemadiff.DefaultPolicy().WithRules([]byte(in))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: got %v, want an error with %q", in, err, want)
		}
	}
}

// TestNotOpenAPI: what is not an OpenAPI 3 document is refused with a
// reason, never read as an empty document with no changes.
func TestNotOpenAPI(t *testing.T) {
	for name, in := range map[string]string{
		"empty":   "",
		"text":    "just some words\n",
		"mapping": "title: a\npaths: {}\n",
		"json":    `[1, 2, 3]`,
		"swagger": "swagger: '2.0'\ninfo: {title: a, version: '1'}\npaths: {}\n",
		"broken":  "openapi: 3.0.0\ninfo: [\n",
	} {
		_, err := schemadiff.Load(name, []byte(in))
		if !errors.Is(err, schemadiff.ErrNotOpenAPI) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestFormats: the JSON is the report itself, the JUnit fails exactly the
// operations with a change at the threshold, and the text and Markdown
// say the severity of each change.
func TestFormats(t *testing.T) {
	next := edited(t, func(doc map[string]any) {
		status := at(t, doc, "components", "schemas", "WorkflowStatus")
		status["enum"] = append(status["enum"].([]any), "PAUSED")
		delete(at(t, doc, "components", "schemas", "AccessToken", "properties"), "lastUsed")
	})
	rep := compare(t, embedded(t), next, nil)
	if rep.Counts.Breaking == 0 || rep.Counts.Safe == 0 {
		t.Fatalf("counts %+v", rep.Counts)
	}
	var js bytes.Buffer
	if err := rep.Write(&js, "json", ""); err != nil {
		t.Fatal(err)
	}
	var back schemadiff.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Changes) != len(rep.Changes) || back.Counts != rep.Counts {
		t.Errorf("JSON does not read back: %v", err)
	}
	for _, failOn := range []schemadiff.Severity{schemadiff.Breaking, schemadiff.Safe} {
		var x bytes.Buffer
		if err := rep.Write(&x, "junit", failOn); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Suites []struct {
				Name     string `xml:"name,attr"`
				Failures int    `xml:"failures,attr"`
				Cases    []struct {
					Name    string    `xml:"name,attr"`
					Failure *struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(x.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, c := range doc.Suites[0].Cases {
			if c.Failure != nil {
				failed[c.Name] = true
			}
		}
		want := map[string]bool{}
		for _, c := range rep.Changes {
			if c.Severity.AtLeast(failOn) {
				want[c.Operation.String()] = true
			}
		}
		if !maps.Equal(failed, want) {
			t.Errorf("fail on %s: failed cases %v, want %v", failOn, failed, want)
		}
	}
	for _, f := range []string{"text", "markdown"} {
		var b bytes.Buffer
		if err := rep.Write(&b, f, ""); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"GET /tokens (TokenList)", "lastUsed", "PAUSED"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s report lacks %q:\n%s", f, want, b.String())
			}
		}
	}
	if err := rep.Write(&bytes.Buffer{}, "yaml", ""); err == nil {
		t.Error("an unknown format is accepted")
	}
}
