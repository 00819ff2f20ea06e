package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance/schemadiff"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"go.yaml.in/yaml/v4"
)

func runDiff(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"diff"}, args...), func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// TestDiffPublishedSelf: the published schema compared with itself has no
// changes, and the command exits 0 even when failing on any review.
func TestDiffPublishedSelf(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("the published schema is compared without -race")
	}
	p := testenv.PublishedSpec(t, "")
	code, out, errs := runDiff(t, p, p, "--fail-on", "review")
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestDiffBadInput: a file that is not an OpenAPI document, a missing
// file and a wrong command line each get a message naming the problem and
// exit 2.
func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	notOAS := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(notOAS, []byte("title: shopping list\nitems: [milk]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badRules := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(badRules, []byte("no-such-rule: safe\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{embeddedName, notOAS}, "not an OpenAPI 3 document"},
		{[]string{notOAS, embeddedName}, "notes.yaml"},
		{[]string{embeddedName, filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{embeddedName}, "want two documents"},
		{[]string{embeddedName, embeddedName, "--format", "yaml"}, "--format"},
		{[]string{embeddedName, embeddedName, "--fail-on", "safe"}, "--fail-on"},
		{[]string{embeddedName, embeddedName, "--rules", badRules}, `unknown rule "no-such-rule"`},
		{[]string{embeddedName, embeddedName, "--tags", "@tokens"}, "--tags"},
	} {
		code, _, errs := runDiff(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestDiffScenariosAndCalls: the embedded document against an edit of it
// that drops a field of the access token. --scenarios runs the token
// scenarios against the fake serving the old document and names those
// that call the token operations; --journal names the user's call of the
// token list and not the workflow list; --fail-on breaking exits 1; flags
// after the documents are read.
func TestDiffScenariosAndCalls(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	var doc map[string]any
	if err := yaml.Unmarshal(fixtures.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["components"].(map[string]any)["schemas"].(map[string]any)["AccessToken"].(map[string]any)["properties"].(map[string]any)
	delete(props, "lastUsed")
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	next := filepath.Join(dir, "next.yaml")
	journal := filepath.Join(dir, "journal.json")
	out := filepath.Join(dir, "report.json")
	if err := os.WriteFile(next, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, []byte(`{"requests":[
		{"time":"2026-01-01T00:00:00Z","method":"GET","path":"/api/tokens","operation":"TokenList","status":200,"latencyMs":1},
		{"time":"2026-01-01T00:00:01Z","method":"GET","path":"/api/workflow?max=5","operation":"ListWorkflows","status":200,"latencyMs":1}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runDiff(t, embeddedName, next, "--scenarios", "--tags", "@tokens", "--journal", journal,
		"--format", "json", "--out", out, "--fail-on", "breaking")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errs)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep schemadiff.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Scenarios == nil || len(rep.Scenarios.Affected) == 0 {
		t.Fatalf("no scenario affected: %s", raw)
	}
	for _, a := range rep.Scenarios.Affected {
		if !strings.HasPrefix(a.Name, "tokens.feature: ") {
			t.Errorf("affected %q", a.Name)
		}
	}
	if rep.Calls == nil || len(rep.Calls.Affected) != 1 || rep.Calls.Affected[0].Name != "GET /api/tokens" || rep.Calls.Checked != 2 {
		t.Errorf("calls: %+v", rep.Calls)
	}
	code, listing, _ := runDiff(t, "--list-rules")
	if code != 0 || !strings.Contains(listing, "response-property-enum-value-added") {
		t.Errorf("--list-rules: exit %d", code)
	}
}

// TestDiffScenariosThatFail: a scenario that fails against the fake
// serving OLD (here, OLD has no way to create a token) is named in the
// report, and the command exits 1 even with no change at --fail-on.
func TestDiffScenariosThatFail(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	var doc map[string]any
	if err := yaml.Unmarshal(fixtures.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["paths"].(map[string]any)["/tokens"].(map[string]any), "post")
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "old.yaml")
	if err := os.WriteFile(old, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runDiff(t, old, old, "--scenarios", "--tags", "@tokens")
	if code != 1 || !strings.Contains(errs, "scenarios failed against "+old) {
		t.Fatalf("exit %d, want 1 naming the failure\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "FAILED on the old document: tokens.feature: ") {
		t.Errorf("the report does not name the failed scenario:\n%s", out)
	}
}
