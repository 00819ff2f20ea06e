package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The id `tofu import` takes for each resource type, built from the
// attributes of the applied resource. The formats are those of the
// provider's documentation (docs/resources/*.md, "Import") and of its
// ImportState methods (internal/provider/*_resource.go and
// internal/seqera/*/resource.go in seqeralabs/terraform-provider-seqera).
var importIDs = map[string]func(v map[string]any) (string, error){
	"seqera_action":     attrID("action_id"),
	"seqera_credential": attrID("credentials_id"),
	"seqera_data_link":  attrID("data_link_id"),
	"seqera_orgs":       attrID("org_id"),
	"seqera_studios":    attrID("session_id"),
	"seqera_workflows":  attrID("workflow_id"),

	"seqera_aws_batch_ce":        jsonID("compute_env_id", "workspace_id"),
	"seqera_aws_cloud_ce":        jsonID("compute_env_id", "workspace_id"),
	"seqera_aws_compute_env":     jsonID("compute_env_id", "workspace_id"),
	"seqera_azure_batch_ce":      jsonID("compute_env_id", "workspace_id"),
	"seqera_azure_cloud_ce":      jsonID("compute_env_id", "workspace_id"),
	"seqera_compute_env":         jsonID("compute_env_id", "workspace_id"),
	"seqera_gcp_batch_ce":        jsonID("compute_env_id", "workspace_id"),
	"seqera_gcp_cloud_ce":        jsonID("compute_env_id", "workspace_id"),
	"seqera_managed_compute_ce":  jsonID("compute_env_id", "workspace_id"),
	"seqera_slurm_ce":            jsonID("compute_env_id", "workspace_id"),
	"seqera_custom_role":         jsonID("name", "org_id"),
	"seqera_pipeline":            jsonID("pipeline_id", "workspace_id"),
	"seqera_pipeline_secret":     jsonID("secret_id", "workspace_id"),
	"seqera_teams":               jsonID("org_id", "team_id"),
	"seqera_workspace":           jsonID("id", "org_id"),
	"seqera_dataset_version":     pathID("workspace_id", "dataset_id", "version"),
	"seqera_organization_member": pathID("org_id", "email"),
	"seqera_team_member":         pathID("org_id", "team_id", "email"),

	"seqera_workspace_participant": participantID,
}

// credentialTypes import as {"credentials_id": ..., "workspace_id": ...}.
var credentialTypes = []string{
	"aws", "azure_cloud", "azure", "azure_entra", "bitbucket", "codecommit",
	"container_registry", "gitea", "github_app", "github", "gitlab", "google",
	"kubernetes", "ssh", "tower_agent",
}

func init() {
	for _, c := range credentialTypes {
		importIDs["seqera_"+c+"_credential"] = jsonID("credentials_id", "workspace_id")
	}
}

// noImport holds the types the provider cannot import, with the reason it
// gives (its ImportState answers "Not Implemented", or it has none).
var noImport = map[string]string{
	"seqera_datasets":            "the provider does not implement import",
	"seqera_labels":              "the provider does not implement import",
	"seqera_tokens":              "the provider does not implement import",
	"seqera_primary_compute_env": "the provider does not implement import",
	"seqera_compute_env_enabled": "the provider has no import (an assignment)",
	"seqera_pipeline_schema":     "the provider has no import (the service cannot read a schema)",
	"seqera_pipeline_version":    "the provider has no import (an assignment)",
}

// importBroken holds the types whose import the provider has but cannot
// carry out against any service, with why: the sweep skips their import
// step rather than report the provider's fault as the fake's.
var importBroken = map[string]string{
	// Its Read fills the nested compute_env object, which an import leaves
	// unset: a nil dereference for every answer that holds a computeEnv.
	"seqera_compute_env": "the provider crashes reading an import (RefreshFromSharedDescribeComputeEnvResponse, computeenv_resource_sdk.go:32: writes into the unset compute_env)",
	// Its Read sets only pipeline_info, workspace_id and
	// intelligent_compute_enabled: the launch (pipeline, revision, work_dir,
	// compute_env_id...) an import leaves null, so the plan replaces the run.
	"seqera_workflows": "the provider reads back none of the launch (RefreshFromSharedDescribeWorkflowResponse, workflows_resource_sdk.go), so an imported run always plans a replacement",
	// Its ImportState sets file_path null ("file_path and file_hash cannot
	// be recovered from import"), and a changed file_path forces a new
	// version: an imported version always plans a replacement.
	"seqera_dataset_version": "the provider's import leaves file_path null (dataset_version/resource.go, ImportState), and file_path forces a new version, so an imported version always plans a replacement",
	// Likewise with configuration, which every studio's answer holds.
	"seqera_studios": "the provider crashes reading an import (RefreshFromSharedDataStudioDto, studios_resource_sdk.go:51: writes into the unset configuration)",
}

func attrID(name string) func(map[string]any) (string, error) {
	return func(v map[string]any) (string, error) { return scalar(v, name) }
}

func jsonID(names ...string) func(map[string]any) (string, error) {
	return func(v map[string]any) (string, error) {
		obj := map[string]any{}
		for _, n := range names {
			if v[n] == nil {
				return "", fmt.Errorf("no %s", n)
			}
			obj[n] = v[n]
		}
		b, err := json.Marshal(obj)
		return string(b), err
	}
}

func pathID(names ...string) func(map[string]any) (string, error) {
	return func(v map[string]any) (string, error) {
		parts := make([]string, len(names))
		for i, n := range names {
			s, err := scalar(v, n)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, "/"), nil
	}
}

// participantID is org_id/workspace_id/ followed by the participant as it
// was named: an e-mail, team:<team_id> or member:<member_id>.
func participantID(v map[string]any) (string, error) {
	prefix, err := pathID("org_id", "workspace_id")(v)
	if err != nil {
		return "", err
	}
	switch {
	case v["team_id"] != nil:
		s, err := scalar(v, "team_id")
		return prefix + "/team:" + s, err
	case v["email"] != nil:
		s, err := scalar(v, "email")
		return prefix + "/" + s, err
	default:
		s, err := scalar(v, "member_id")
		return prefix + "/member:" + s, err
	}
}

func scalar(v map[string]any, name string) (string, error) {
	switch x := v[name].(type) {
	case nil:
		return "", fmt.Errorf("no %s", name)
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case float64, bool:
		return fmt.Sprint(x), nil
	default:
		return "", fmt.Errorf("%s is %T, not a scalar", name, x)
	}
}
