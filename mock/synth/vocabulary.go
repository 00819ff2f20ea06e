package synth

import (
	"slices"
	"strings"

	"github.com/wmsmock/wmsmock/mock/catalogue"
)

// The service draws some strings from small sets that its schema does not
// always spell out: a property typed as a plain string in one answer (a
// list entry's visibility) carries the values an enum gives it elsewhere
// (the Visibility component), and a compute environment's status is one
// of a handful whatever its schema says. Generated answers take their
// values from these sets, so a client sees values the service would send
// ("PRIVATE", not "default-ritchie"). A schema's own enum, const or
// pattern still wins: a set only proposes, as the name heuristics do.
//
// Each set says where it was seen. The sets are facts about the service
// (values), written out here as data.

// vocabulary is one set: the values of property prop (lower case) in the
// components whose lower-cased name contains in ("" for any).
type vocabulary struct {
	in, prop string
	values   []string
}

var vocabularies = []vocabulary{
	// Seen: the published schema's Visibility enum (pipelines, datasets);
	// compute environment list entries carry the same two values.
	{"computeenv", "visibility", []string{"PRIVATE", "SHARED"}},
	{"pipeline", "visibility", []string{"PRIVATE", "SHARED"}},
	// Seen: the published schema's ComputeEnv.Status enum and the
	// descriptions of the compute environment delete and validate calls
	// (ERRORED, INVALID, DELETING).
	{"computeenv", "status", []string{"AVAILABLE", "AVAILABLE", "AVAILABLE", "CREATING", "ERRORED", "INVALID", "DELETING", "DISABLED"}},
	// Seen: the published schema's credentials status description
	// (AVAILABLE after a good probe, INVALID after a rejected one).
	{"credentials", "status", []string{"AVAILABLE", "AVAILABLE", "INVALID"}},
	// Seen: the published schema's DataStudioStatus enum.
	{"studio", "status", []string{"running", "stopped", "starting", "stopping", "errored", "building", "buildFailed"}},
	// Seen: the published schema's OrgRole enum (organization members and
	// collaborators).
	{"member", "role", []string{"owner", "member", "member", "collaborator"}},
	{"", "orgrole", []string{"owner", "member", "collaborator"}},
	// Seen: the published schema's WspRole enum (workspace participants;
	// the predefined roles /roles lists).
	{"", "wsprole", []string{"owner", "admin", "maintain", "launch", "connect", "view"}},
	// Seen: the same WspRole enum names the predefined roles /roles lists
	// and /roles/{roleName} describes (isPredefined in ListRolesResponse).
	{"", "rolename", []string{"owner", "admin", "maintain", "launch", "connect", "view"}},
	// Seen: the enum of a compute configuration's platform in the
	// published schema (ComputeEnv_ComputeConfig_.platform); the platform
	// ids /platforms/{platformId} takes.
	{"", "platform", Platforms},
	{"", "platformid", Platforms},
	// Seen: the regions of the Terraform provider's examples and the
	// published schema's examples (AWS and Google Cloud names); a
	// platform's regions (ComputeRegion) go by them.
	{"", "region", regions},
	{"", "regionid", regions},
	{"computeregion", "id", regions},
	// Seen: the service's permissions (mock/catalogue, with where each was
	// seen): what a role grants.
	{"role", "permissions", catalogue.PermissionNames()},
	{"role", "permission", catalogue.PermissionNames()},
	// Seen: Seqera's documentation names one currency, the US dollar (a
	// credit is one USD; billing in USD): a run's costCurrency.
	{"", "costcurrency", []string{"USD"}},
	// Seen: the instance types of the Terraform provider's AWS Batch and
	// Azure Batch examples.
	{"", "instancetype", []string{"m5.large", "c5.2xlarge", "r5.xlarge", "m6i.4xlarge", "n2-standard-4", "Standard_D4s_v3"}},
}

// Platforms are the compute platforms' ids (the published schema's enum
// of a compute configuration's platform), in the schema's order.
var Platforms = []string{
	"aws-batch", "aws-cloud", "seqeracompute-platform", "google-batch", "google-cloud", "azure-batch", "azure-cloud",
	"k8s-platform", "eks-platform", "gke-platform", "uge-platform", "slurm-platform", "lsf-platform", "altair-platform",
	"moab-platform", "local-platform",
}

// Vocabulary is the set of values property prop takes in component
// (either may be ""), or nil when the service's values are not a known
// set.
func Vocabulary(component, prop string) []string {
	lc, lp := strings.ToLower(component), strings.ToLower(prop)
	for _, v := range vocabularies {
		if v.prop == lp && strings.Contains(lc, v.in) {
			return slices.Clone(v.values)
		}
	}
	return nil
}

// usualProperties are the properties the service always fills in its
// answers for a component (lower-cased name containing in), though the
// schema leaves them optional: a platform's usual shape. Generated
// answers carry them; requests and a schema's own rules are unchanged.
var usualProperties = []struct {
	in    string
	props []string
}{
	// Seen: the Terraform provider's AWS Batch compute environment
	// resource (seqeralabs/terraform-provider-seqera,
	// internal/provider/awsbatchce_resource.go): region and work_dir are
	// required, head_queue and compute_queue computed (the service names
	// them when Forge creates the queues), and its SDK's AwsBatchConfig
	// has region as its one non-optional field.
	{"awsbatchconfig", []string{"region", "workDir", "headQueue", "computeQueue"}},
	// Seen: the provider SDK's ForgeConfig: type, minCpus and maxCpus are
	// its non-optional fields (a Forge block always says them).
	{"forgeconfig", []string{"type", "minCpus", "maxCpus"}},
}

// usual reports a property the service always fills in component's
// answers.
func usual(component, prop string) bool {
	lc := strings.ToLower(component)
	for _, u := range usualProperties {
		if strings.Contains(lc, u.in) && slices.Contains(u.props, prop) {
			return true
		}
	}
	return false
}

// vocabularyHeuristic proposes a set's values for prop in component.
func vocabularyHeuristic(component, prop string) *heuristic {
	values := Vocabulary(component, prop)
	if values == nil {
		return nil
	}
	return &heuristic{str: func(c *run) string { return pick(c, values) }}
}
