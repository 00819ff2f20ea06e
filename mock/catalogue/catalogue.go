// Package catalogue holds the sets the service defines rather than its
// users: the permissions a role can grant and what each predefined role
// holds, the predefined roles' descriptions, the compute platforms' names
// and their regions. Answers about them come from here, never from the
// generator: a client that names a permission it read from the service
// (pipeline:read) must find it, and a value nobody has seen the service
// send is null (or an empty list), not a made-up word.
//
// Each set says where it was seen. They are facts about the service,
// written out as data; the prose and layout are this project's own.
package catalogue

import "slices"

// Permission is one permission a role can grant.
type Permission struct {
	Name string
	// Category is the group the service files it under; "" where no
	// public source names one (answered as null).
	Category string
}

// Roles are the predefined workspace roles, from the most to the least
// powerful. Seen: the published schema's WspRole enum.
var Roles = []string{"owner", "admin", "maintain", "launch", "connect", "view"}

// permissions: name, category, and which predefined roles hold it, one
// letter per role in Roles' order (Y: held).
//
// Seen: Seqera's documentation, "Roles and permissions" (the permission
// table, 2026-05; data_link_object split from data_link in 2026-07) for
// the names and the roles holding each, and "Custom roles" (its sections
// Compute, Data, Pipelines, Settings, Studios) for the categories; the
// Terraform provider's permissions data source names the same five
// categories. The lineage permissions are in the role table only, with no
// category.
var permissions = [...]struct{ name, category, held string }{
	{"action:read", "Pipelines", "YYYY--"},
	{"action:execute", "Pipelines", "YYYY--"},
	{"action:write", "Pipelines", "YYY---"},
	{"action:delete", "Pipelines", "YYY---"},
	{"action_label:write", "Pipelines", "YY----"},
	{"compute_environment:read", "Compute", "YYYYYY"},
	{"compute_environment:write", "Compute", "YY----"},
	{"compute_environment:delete", "Compute", "YY----"},
	{"container:read", "Pipelines", "YYYYYY"},
	{"credentials:read", "Compute", "YYYYYY"},
	{"credentials:write", "Compute", "YY----"},
	{"credentials:delete", "Compute", "YY----"},
	{"credentials_encrypted:read", "Compute", "YYYY--"},
	{"data_link:read", "Data", "YYYYYY"},
	{"data_link:write", "Data", "YYY---"},
	{"data_link:delete", "Data", "YYY---"},
	{"data_link:admin", "Data", "YYY---"},
	{"data_link_object:read", "Data", "YYYYYY"},
	{"data_link_object:write", "Data", "YYY---"},
	{"data_link_object:delete", "Data", "YYY---"},
	{"dataset:read", "Data", "YYYYYY"},
	{"dataset:write", "Data", "YYYY--"},
	{"dataset:delete", "Data", "YYY---"},
	{"dataset:admin", "Data", "YYY---"},
	{"dataset_label:write", "Data", "YYY---"},
	{"label:read", "Settings", "YYYYYY"},
	{"label:write", "Settings", "YYY---"},
	{"label:delete", "Settings", "YYY---"},
	{"launch:read", "Pipelines", "YYYY--"},
	{"lineage:read", "", "YYYYYY"},
	{"pipeline:read", "Pipelines", "YYYYYY"},
	{"pipeline:write", "Pipelines", "YYY---"},
	{"pipeline:delete", "Pipelines", "YYY---"},
	{"pipeline_label:write", "Pipelines", "YY----"},
	{"pipeline_secrets:read", "Compute", "YYYYYY"},
	{"pipeline_secrets:write", "Compute", "YYY---"},
	{"pipeline_secrets:delete", "Compute", "YYY---"},
	{"platform:read", "Compute", "YYYYYY"},
	{"studio:read", "Studios", "YYYYYY"},
	{"studio:execute", "Studios", "YYY---"},
	{"studio:write", "Studios", "YYY---"},
	{"studio:delete", "Studios", "YYY---"},
	{"studio:admin", "Studios", "YY----"},
	{"studio_label:write", "Studios", "YYY---"},
	{"studio_session:read", "Studios", "YYYYY-"},
	{"studio_session:execute", "Studios", "YYYYY-"},
	{"workflow:read", "Pipelines", "YYYYYY"},
	{"workflow:execute", "Pipelines", "YYYY--"},
	{"workflow:write", "Pipelines", "YYYY--"},
	{"workflow:delete", "Pipelines", "YYYY--"},
	{"workflow_label:write", "Pipelines", "YYY---"},
	{"workflow_quick:execute", "Pipelines", "YYY---"},
	{"workflow_star:read", "Pipelines", "YYYYYY"},
	{"workflow_star:write", "Pipelines", "YYYYYY"},
	{"workflow_star:delete", "Pipelines", "YYYYYY"},
	{"workspace:read", "Settings", "YYYYYY"},
	{"workspace:write", "Settings", "YY----"},
	{"workspace:delete", "Settings", "Y-----"},
	{"workspace:admin", "Settings", "Y-----"},
	{"workspace_lineage:read", "", "YYYY--"},
	{"workspace_lineage:write", "", "YY----"},
	{"workspace_self:delete", "Settings", "YYYYYY"},
	{"workspace_studio:read", "Settings", "YYYY--"},
	{"workspace_studio:write", "Settings", "YY----"},
}

// Permissions lists every permission, in the documentation's order.
func Permissions() []Permission {
	out := make([]Permission, len(permissions))
	for i, p := range permissions {
		out[i] = Permission{Name: p.name, Category: p.category}
	}
	return out
}

// PermissionNames lists every permission's name.
func PermissionNames() []string {
	out := make([]string, len(permissions))
	for i, p := range permissions {
		out[i] = p.name
	}
	return out
}

// HasPermission reports whether name is one of the service's permissions.
func HasPermission(name string) bool {
	for _, p := range permissions {
		if p.name == name {
			return true
		}
	}
	return false
}

// RolePermissions lists the permissions a predefined role holds, nil for
// a name that is not a predefined role.
func RolePermissions(role string) []string {
	i := slices.Index(Roles, role)
	if i < 0 {
		return nil
	}
	var out []string
	for _, p := range permissions {
		if p.held[i] == 'Y' {
			out = append(out, p.name)
		}
	}
	return out
}

// RoleDescription is a predefined role's description. Seen: the Terraform
// provider's design notes for custom roles ("Predefined Workspace Roles"),
// the one public rendering of what GET /roles answers; it may word them
// otherwise than the service does.
func RoleDescription(role string) (string, bool) {
	d, ok := roleDescriptions[role]
	return d, ok
}

var roleDescriptions = map[string]string{
	"owner":    "Full permissions on organization resources, roles, and configuration",
	"admin":    "Full permissions on all workspace resources, and ability to manage role assignment",
	"maintain": "Full permissions on all workspace resources",
	"launch":   "Launch pipelines, modify parameters, connect to Studios",
	"connect":  "Connect to running Studio sessions and view workspace resources",
	"view":     "Read-only: list, search, and view status and configuration",
}

// PlatformName is a compute platform's name, by its id. Seen: the names
// the service's command line client gives each platform's add command
// (tower-cli, computeenvs/add) and Seqera's documentation lists; the
// service's own GET /platforms answer is not public, so these are what its
// clients show. A platform with no public name has none ("", null).
func PlatformName(id string) string { return platformNames[id] }

var platformNames = map[string]string{
	"aws-batch": "AWS Batch", "aws-cloud": "AWS Cloud", "seqeracompute-platform": "Seqera Compute",
	"google-batch": "Google Batch", "google-cloud": "Google Cloud", "azure-batch": "Azure Batch",
	"azure-cloud": "Azure Cloud", "k8s-platform": "Kubernetes", "eks-platform": "Amazon EKS",
	"gke-platform": "Google GKE", "uge-platform": "UNIVA grid engine", "slurm-platform": "Slurm",
	"lsf-platform": "IBM LSF", "altair-platform": "Altair PBS Pro", "moab-platform": "MOAB",
}

// Region is one region a platform offers.
type Region struct{ ID, Name string }

// awsRegions are the regions Seqera Compute runs in (Seqera's
// documentation, "Seqera Compute", 2026-06), with the labels it gives
// them. They are AWS regions, which AWS Batch and AWS Cloud offer too.
var awsRegions = []Region{
	{"us-east-1", "Northern Virginia, USA"}, {"us-east-2", "Ohio, USA"}, {"us-west-1", "Northern California, USA"},
	{"us-west-2", "Oregon, USA"}, {"ca-central-1", "Central, Canada"}, {"sa-east-1", "São Paulo, Brazil"},
	{"eu-central-1", "Frankfurt, Germany"}, {"eu-north-1", "Stockholm, Sweden"}, {"eu-south-1", "Milan, Italy"},
	{"eu-west-1", "Ireland"}, {"eu-west-2", "London, UK"}, {"eu-west-3", "Paris, France"},
	{"ap-east-1", "Hong Kong"}, {"ap-northeast-1", "Tokyo, Japan"}, {"ap-northeast-2", "Seoul, South Korea"},
	{"ap-northeast-3", "Osaka, Japan"}, {"ap-south-1", "Mumbai, India"}, {"ap-southeast-1", "Singapore"},
	{"ap-southeast-2", "Sydney, Australia"}, {"ap-southeast-3", "Jakarta, Indonesia"},
	{"af-south-1", "Cape Town, South Africa"}, {"me-south-1", "Bahrain"},
}

// Regions lists the regions of a platform, by its id: the AWS regions for
// the platforms on AWS; none for the others, whose lists no public source
// gives.
func Regions(platform string) []Region {
	switch platform {
	case "seqeracompute-platform", "aws-batch", "aws-cloud", "eks-platform":
		return slices.Clone(awsRegions)
	}
	return nil
}
