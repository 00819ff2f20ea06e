package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func testSchema(t *testing.T) *providerSchema {
	t.Helper()
	data, err := os.ReadFile("testdata/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseSchema(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testChanges(t *testing.T) map[string]change {
	t.Helper()
	data, err := os.ReadFile("testdata/plan.json")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := planChanges(data, &judge{schema: testSchema(t), writeOnly: map[string]bool{}})
	if err != nil {
		t.Fatal(err)
	}
	byAddress := map[string]change{}
	for _, c := range changes {
		byAddress[c.address] = c
	}
	return byAddress
}

func TestPlanChangesLeavesOutNoOps(t *testing.T) {
	changes := testChanges(t)
	if _, ok := changes["seqera_orgs.main"]; ok {
		t.Error("a no-op is listed as a change")
	}
	if len(changes) != 5 {
		t.Errorf("got %d changes, want 5: %v", len(changes), changes)
	}
}

// Each leaf that differs is reported with what the fake answered (before)
// and what was written (after), nested objects and lists walked down to the
// leaf; unknowns are listed apart.
func TestPlanChangesNameEachLeafThatDiffers(t *testing.T) {
	c := testChanges(t)["seqera_aws_batch_ce.this"]
	got := map[string]string{}
	for _, d := range c.diffs {
		got[d.path] = short(d.fake) + " -> " + short(d.written)
		if d.excuse != "" {
			t.Errorf("%s is excused (%s); the fake answered a value for it", d.path, d.excuse)
		}
	}
	want := map[string]string{
		"config.region":               "\"eu-west-1\" -> \"us-east-1\"",
		"config.forge.instance_types": "[\"m5.xlarge\"] -> [\"m5.xlarge\",\"c5.xlarge\"]",
		"config.environment.0.value":  "\"1\" -> \"2\"",
		"labels":                      "null -> []",
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("%s: got %q, want %q", path, got[path], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("diffs %v, want exactly %v", got, want)
	}
	if !slices.Equal(c.unknown, []string{"status"}) {
		t.Errorf("unknown %v, want [status]", c.unknown)
	}
	if !slices.Equal(c.replace, []string{"config.region"}) {
		t.Errorf("replace %v, want [config.region]", c.replace)
	}
	if c.action() != "to be replaced" {
		t.Errorf("action %q", c.action())
	}
	if c.excused() {
		t.Error("a drifted region is excused as a write-only value")
	}
	lines := strings.Join(c.lines(20), "\n")
	for _, w := range []string{"forced by config.region", `config.region: fake "eu-west-1", written "us-east-1"`, "known after apply: status"} {
		if !strings.Contains(lines, w) {
			t.Errorf("lines lack %q:\n%s", w, lines)
		}
	}
}

// A sensitive or write-only attribute the fake answered null for is the
// service keeping a secret: after an import, only such values may change.
func TestOnlySecretsExcusesWriteOnlyValuesTheFakeDoesNotReturn(t *testing.T) {
	changes := testChanges(t)
	cred := changes["seqera_aws_credential.this"]
	if !cred.excused() {
		t.Errorf("a credential whose secret_key and keys.token are set again is not excused: %+v", cred.diffs)
	}
	var paths []string
	for _, d := range cred.diffs {
		paths = append(paths, d.path)
	}
	if !slices.Equal(paths, []string{"keys.token", "secret_key"}) {
		t.Errorf("secret diffs %v", paths)
	}
	// A sensitive value the fake did return, and returned wrong, is drift.
	if secret := changes["seqera_pipeline_secret.this"]; secret.excused() {
		t.Error("a sensitive value the fake answered differently is excused")
	}
	// A creation is never excused.
	if team := changes["seqera_teams.this"]; team.excused() || team.action() != "to be created" || len(team.diffs) != 0 {
		t.Errorf("creation: %+v", team)
	}
	if read := changes["data.seqera_team.this"]; !read.data || read.action() != "to be read during apply" {
		t.Errorf("data read: %+v", read)
	}
}

func TestLinesAreCut(t *testing.T) {
	c := change{address: "x.y", actions: []string{"update"}}
	for i := 0; i < 30; i++ {
		c.diffs = append(c.diffs, diff{path: "a", fake: i, written: i + 1})
	}
	lines := c.lines(5)
	if len(lines) != 5 || !strings.Contains(lines[4], "27 more lines") {
		t.Errorf("lines: %q", lines)
	}
	long := strings.Repeat("x", 500)
	if s := short(long); len(s) != 120 || !strings.HasSuffix(s, "...") {
		t.Errorf("short: %d characters", len(s))
	}
}
