package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSecretFollowsNestedAttributes(t *testing.T) {
	s := testSchema(t)
	for _, c := range []struct {
		typ  string
		path string
		want bool
	}{
		{"seqera_aws_credential", "secret_key", true},
		{"seqera_aws_credential", "name", false},
		{"seqera_aws_credential", "keys.token", true},
		{"seqera_aws_credential", "keys.user", false},
		{"seqera_aws_batch_ce", "config.environment.3.value", true}, // a list element
		{"seqera_aws_batch_ce", "config.environment.3.name", false},
		{"seqera_aws_batch_ce", "config.tags.team", false}, // a map key
		{"seqera_aws_batch_ce", "config.nothing", false},
		{"seqera_nothing", "secret_key", false},
	} {
		if got := s.secret(c.typ, strings.Split(c.path, ".")); got != c.want {
			t.Errorf("%s %s: secret %v, want %v", c.typ, c.path, got, c.want)
		}
	}
}

func TestParseSchemaWantsTheProvider(t *testing.T) {
	if _, err := parseSchema([]byte(`{"provider_schemas": {"registry.opentofu.org/hashicorp/aws": {}}}`)); err == nil {
		t.Error("a schema without the Seqera provider is accepted")
	}
	s := testSchema(t)
	if len(s.resources) != 4 || len(s.dataSources) != 1 {
		t.Errorf("resources %v, data sources %v", sortedKeys(s.resources), sortedKeys(s.dataSources))
	}
}

func TestImportIDs(t *testing.T) {
	values := func(js string) map[string]any {
		dec := json.NewDecoder(strings.NewReader(js))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ typ, values, want string }{
		{"seqera_orgs", `{"org_id": 1234567890123, "name": "o"}`, `1234567890123`},
		{"seqera_action", `{"action_id": "4Gx", "workspace_id": 7}`, `4Gx`},
		{"seqera_aws_batch_ce", `{"compute_env_id": "ce1", "workspace_id": 7}`, `{"compute_env_id":"ce1","workspace_id":7}`},
		{"seqera_github_credential", `{"credentials_id": "c1", "workspace_id": 7}`, `{"credentials_id":"c1","workspace_id":7}`},
		{"seqera_workspace", `{"id": 7, "org_id": 3}`, `{"id":7,"org_id":3}`},
		{"seqera_custom_role", `{"name": "pipeline-manager", "org_id": 3}`, `{"name":"pipeline-manager","org_id":3}`},
		{"seqera_team_member", `{"org_id": 3, "team_id": 9, "email": "a@b.org"}`, `3/9/a@b.org`},
		{"seqera_dataset_version", `{"workspace_id": 7, "dataset_id": "ds1", "version": 1}`, `7/ds1/1`},
		{"seqera_workspace_participant", `{"org_id": 3, "workspace_id": 7, "email": "a@b.org", "team_id": null}`, `3/7/a@b.org`},
		{"seqera_workspace_participant", `{"org_id": 3, "workspace_id": 7, "email": null, "team_id": 9}`, `3/7/team:9`},
		{"seqera_workspace_participant", `{"org_id": 3, "workspace_id": 7, "member_id": 5}`, `3/7/member:5`},
	} {
		got, err := importIDs[c.typ](values(c.values))
		if err != nil || got != c.want {
			t.Errorf("%s %s: got %q, %v; want %q", c.typ, c.values, got, err, c.want)
		}
	}
	if _, err := importIDs["seqera_aws_batch_ce"](values(`{"compute_env_id": "ce1"}`)); err == nil {
		t.Error("an id without its workspace is built")
	}
	for typ := range noImport {
		if _, ok := importIDs[typ]; ok {
			t.Errorf("%s both imports and does not", typ)
		}
	}
	for typ := range importBroken {
		if _, ok := importIDs[typ]; !ok {
			t.Errorf("%s: an import the provider cannot carry out, but no id format for it", typ)
		}
	}
}

func TestListKindsJoinsTheProviderAndTheConfigurations(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("seqera_teams.tf", "# a team\nresource \"seqera_teams\" \"this\" {}\n")
	write("seqera_pipeline_secret.tf", "# a secret\n# skip: needs a vault the fake cannot be\nresource {}\n")
	write("seqera_aws_credential.tf", "resource {}\n# skip: not a header comment, so not a skip\n")
	write("data.seqera_team.tf", "")
	write("seqera_gone.tf", "")
	kinds, err := listKinds(testSchema(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]kind{}
	var names []string
	for _, k := range kinds {
		byName[k.name] = k
		names = append(names, k.name)
	}
	want := []string{"seqera_aws_batch_ce", "seqera_aws_credential", "seqera_pipeline_secret", "seqera_teams", "data.seqera_team", "seqera_gone"}
	if !slices.Equal(names, want) {
		t.Fatalf("kinds %v, want %v", names, want)
	}
	if k := byName["seqera_aws_batch_ce"]; k.file != "" {
		t.Errorf("a kind without a configuration has file %q", k.file)
	}
	if k := byName["seqera_pipeline_secret"]; k.skip != "needs a vault the fake cannot be" {
		t.Errorf("skip %q", k.skip)
	}
	if k := byName["seqera_aws_credential"]; k.skip != "" {
		t.Errorf("a skip line below the header counts: %q", k.skip)
	}
	if k := byName["data.seqera_team"]; !k.data || k.typ != "seqera_team" || k.file == "" {
		t.Errorf("data source: %+v", k)
	}
	if k := byName["seqera_gone"]; !k.unknown {
		t.Errorf("a configuration for no kind is not marked unknown: %+v", k)
	}

	got := selectKinds(kinds, []string{"seqera_*_credential", "data.*"})
	names = names[:0]
	for _, k := range got {
		names = append(names, k.name)
	}
	if !slices.Equal(names, []string{"seqera_aws_credential", "data.seqera_team"}) {
		t.Errorf("selected %v", names)
	}
	if len(selectKinds(kinds, nil)) != len(kinds) {
		t.Error("no pattern does not select every kind")
	}
}

func TestErrorLinesKeepTheDiagnostic(t *testing.T) {
	out := `seqera_orgs.main: Creating...
╷
│ Error: unexpected response from API. Got an unexpected response code 403
│ 
│   with seqera_custom_role.this,
│   on seqera_custom_role.tf line 24, in resource "seqera_custom_role" "this":
│   24: resource "seqera_custom_role" "this" {
│ 
│ **Request**:
│ POST /orgs/1/roles HTTP/1.1
│ with a body the provider prints
╵
╷
│ Error: Resource postcondition failed
│ 
│   on data.seqera_team.tf line 21, in data "seqera_team" "this":
│   21:       condition     = self.team_id == seqera_teams.main.team_id
│     ├────────────────
│     │ self.team_id is 12
│ 
│ the team looked up by name is not the one written
╵
`
	got := runResult{output: []byte(out)}.errorLines()
	want := []string{
		"Error: unexpected response from API. Got an unexpected response code 403",
		"**Request**:",
		"POST /orgs/1/roles HTTP/1.1",
		"with a body the provider prints",
		"Error: Resource postcondition failed",
		"self.team_id is 12",
		"the team looked up by name is not the one written",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// Without a diagnostic, the end of the output and the exit.
	r := runResult{output: []byte("a\nb\nc\n"), err: os.ErrDeadlineExceeded}
	if got := r.errorLines(); len(got) != 4 || got[2] != "c" {
		t.Errorf("no diagnostic: %q", got)
	}
}

func TestReadyURL(t *testing.T) {
	u, ok := readyURL("wmsmock: ready in 152ms at http://127.0.0.1:40123/api")
	if !ok || u != "http://127.0.0.1:40123/api" {
		t.Errorf("got %q %v", u, ok)
	}
	for _, line := range []string{"wmsmock: serving \"x\" 1.0 as API version 1 (3 operations)", "ready in 1s at http://x"} {
		if _, ok := readyURL(line); ok {
			t.Errorf("%q read as ready", line)
		}
	}
}

func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TOFU": bin, "WMSMOCK_BIN": bin, "SPEC": bin, "KINDS_DIR": dir, "KINDS": "seqera_orgs, data.*"}
	getenv := func(k string) string { return env[k] }
	var stderr bytes.Buffer
	c, err := parseConfig(nil, getenv, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.kinds, []string{"seqera_orgs", "data.*"}) || c.stepTimeout != 15*time.Minute || c.logs == "" {
		t.Errorf("config %+v", c)
	}
	os.RemoveAll(c.logs)
	c, err = parseConfig([]string{"-kinds", "seqera_teams", "-step-timeout", "1m", "-logs", dir}, getenv, &stderr)
	if err != nil || !slices.Equal(c.kinds, []string{"seqera_teams"}) || c.stepTimeout != time.Minute {
		t.Errorf("flags over the environment: %+v, %v", c, err)
	}
	env = map[string]string{"KINDS_DIR": dir}
	_, err = parseConfig([]string{"-step-timeout", "soon", "-kinds", "[x"}, getenv, &stderr)
	for _, w := range []string{"-tofu is required", "-wmsmock is required", "-spec is required", "-step-timeout", "pattern \"[x\""} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

// The runner keeps stdout apart for -json, both streams together for the
// log and the diagnostics, and the exit codes a step allows.
func TestTofuRunKeepsBothStreams(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tofu")
	script := "#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8 9; do echo out$i; echo err$i >&2; done\necho \"provider says $1\" >>\"$TF_LOG_PATH\"\nexit $1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tf := tofu{bin: bin, dir: dir, timeout: time.Minute}
	res := tf.run(t.Context(), "step", "0")
	if res.err != nil || res.code != 0 {
		t.Fatalf("code %d, %v", res.code, res.err)
	}
	for i := 1; i <= 9; i++ {
		out, errLine := fmt.Sprintf("out%d\n", i), fmt.Sprintf("err%d\n", i)
		if !bytes.Contains(res.output, []byte(out)) || !bytes.Contains(res.output, []byte(errLine)) {
			t.Errorf("output lacks line %d: %q", i, res.output)
		}
		if bytes.Contains(res.stdout, []byte(errLine)) || !bytes.Contains(res.stdout, []byte(out)) {
			t.Errorf("stdout is not stdout alone: %q", res.stdout)
		}
	}
	if string(res.providerLog) != "provider says 0\n" {
		t.Errorf("provider log %q", res.providerLog)
	}
	if res := tf.run(t.Context(), "step", "2"); res.err == nil || res.code != 2 || string(res.providerLog) != "provider says 2\n" {
		t.Errorf("exit 2 not allowed: %d, %v; provider log of this call only: %q", res.code, res.err, res.providerLog)
	}
	if res := tf.runAllowing(t.Context(), "step", []int{2}, "2"); res.err != nil || res.code != 2 {
		t.Errorf("exit 2 allowed: %d, %v", res.code, res.err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "step.log"))
	if err != nil || strings.Count(string(log), "$ tofu") != 3 || !strings.Contains(string(log), "err9") {
		t.Errorf("log %q, %v", log, err)
	}
}

// A provider's crash shows as its panic and the frame in its own code, not
// only as tofu's "Plugin did not respond".
func TestErrorLinesNameAProviderPanic(t *testing.T) {
	log := `2026-11-27T01:04:24.098Z [ERROR] provider.terraform-provider-seqera_v99.0.0: panic: runtime error: invalid memory address or nil pointer dereference
2026-11-27T01:04:24.099Z [ERROR] provider.terraform-provider-seqera_v99.0.0: goroutine 37 [running]:
2026-11-27T01:04:24.099Z [ERROR] provider.terraform-provider-seqera_v99.0.0: github.com/seqeralabs/terraform-provider-seqera/internal/provider.(*TokensResourceModel).RefreshFromSharedCreateAccessTokenResponse(0x3f49162e3b00, {0x16136d0?, 0x3f49162f0360?}, 0x3f49161cfec0)
2026-11-27T01:04:24.099Z [ERROR] provider.terraform-provider-seqera_v99.0.0: 	/root/.cache/wmsmock-tofu/src-provider/internal/provider/tokens_resource_sdk.go:34 +0xf2
2026-11-27T01:04:24.099Z [ERROR] provider.terraform-provider-seqera_v99.0.0: github.com/seqeralabs/terraform-provider-seqera/internal/provider.(*TokensResource).Create(0x3f49161044e8)
`
	diag := `seqera_tokens.this: Creating...
╷
│ Error: Plugin did not respond
│ 
│ The plugin encountered an error, and failed to respond to the
2026-11-27T01:05:28.650Z [ERROR] provider: plugin process exited: plugin=.terraform/x error="exit status 2"
╵
`
	got := runResult{output: []byte(diag), providerLog: []byte(log)}.errorLines()
	want := []string{
		"Error: Plugin did not respond",
		"The plugin encountered an error, and failed to respond to the",
		"provider panic: runtime error: invalid memory address or nil pointer dereference",
		"  in provider.(*TokensResourceModel).RefreshFromSharedCreateAccessTokenResponse (internal/provider/tokens_resource_sdk.go:34)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestWriteTable(t *testing.T) {
	ok := outcome{status: "ok"}
	results := []result{
		{kind: "seqera_orgs", steps: [nSteps]outcome{ok, ok, ok, ok}, took: 7 * time.Second},
		{kind: "seqera_action", steps: [nSteps]outcome{ok, ok, {status: "ok", note: "set again, write-only: secret"}, ok}},
		{kind: "seqera_teams", steps: [nSteps]outcome{ok, {status: "FAIL", detail: []string{"seqera_teams.this: to be updated", "  avatar_id: fake \"x\", written null"}}, ok, ok}},
		{kind: "seqera_tokens", steps: [nSteps]outcome{{status: "skip"}, {status: "skip"}, {status: "skip"}, {status: "skip"}}, why: "the provider crashes"},
		{kind: "seqera_studios", steps: [nSteps]outcome{ok, ok, {status: "skip", note: "import crashes"}, ok}},
		{kind: "data.seqera_team", steps: [nSteps]outcome{{status: "FAIL", detail: []string{"Error: no"}}, {}, {}, ok}},
	}
	var b bytes.Buffer
	writeTable(&b, results)
	got := b.String()
	for _, want := range []string{
		"kind              apply  plan  import+plan  destroy  time",
		"seqera_orgs       ok     ok    ok           ok       7s",
		"data.seqera_team  FAIL   -     -            ok       0s",
		"6 kinds: 3 passed, 2 failed, 1 skipped",
		"seqera_action:\n  import+plan: ok, set again, write-only: secret\n",
		"seqera_teams:\n  plan:\n    seqera_teams.this: to be updated\n      avatar_id: fake \"x\", written null\n",
		"seqera_tokens:\n  skipped: the provider crashes\n",
		"seqera_studios:\n  import+plan: skipped: import crashes\n",
		"data.seqera_team:\n  apply:\n    Error: no\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "seqera_orgs:") {
		t.Errorf("a kind that passed without a note has a section:\n%s", got)
	}
}
