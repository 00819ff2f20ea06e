package main

import (
	"strings"
	"testing"
)

func TestJudgeExcuses(t *testing.T) {
	j, err := loadJudge(testSchema(t), "testdata/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	team := map[string]any{"team_id": 3, "role": "pipeline-manager"}
	member := map[string]any{"email": "ada@example.org", "role": "launch"}
	for _, c := range []struct {
		typ, path string
		after     map[string]any
		want      string
	}{
		// The provider's schema: sensitive or write-only.
		{"seqera_aws_credential", "secret_key", nil, excuseSecret},
		// The document: writeOnly, under allOf too, in camelCase.
		{"seqera_credential", "keys.azure.batch_key", nil, excuseSecret},
		{"seqera_credential", "keys.azure_entra.client_secret", nil, excuseSecret},
		{"seqera_credential", "keys.azure.batch_name", nil, ""},
		{"seqera_credential", "keys.azure_entra.client_id", nil, ""},
		// What the provider does not read back.
		{"seqera_action", "launch.compute_env_id", nil, excuseNotRead},
		{"seqera_action", "launch.label_ids.0", nil, excuseNotRead},
		{"seqera_action", "launch.work_dir", nil, ""},
		{"seqera_pipeline", "workspace_id", nil, ""},
		{"seqera_workspace_participant", "role", team, excuseNotRead},
		{"seqera_workspace_participant", "role", member, ""},
	} {
		if got := j.excuse(c.typ, strings.Split(c.path, "."), c.after); got != c.want {
			t.Errorf("%s %s: excuse %q, want %q", c.typ, c.path, got, c.want)
		}
	}
	if got := camel("azure_entra_client_secret"); got != "azureEntraClientSecret" {
		t.Errorf("camel: %q", got)
	}
}
