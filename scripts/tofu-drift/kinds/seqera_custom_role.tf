# A custom role that names real permissions, checked against the
# permission catalogue the service lists (as in the provider's example).
resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

data "seqera_permissions" "all" {
  org_id = seqera_orgs.main.org_id
}

locals {
  pipeline_manager = [
    "pipeline:read",
    "pipeline:write",
    "pipeline:delete",
    "workflow:read",
    "workflow:execute",
    "compute_environment:read",
    "credentials:read",
    "label:read",
  ]
}

resource "seqera_custom_role" "this" {
  org_id      = seqera_orgs.main.org_id
  name        = "pipeline-manager"
  description = "Manage pipelines, launch workflows, view compute and credentials"
  permissions = local.pipeline_manager

  lifecycle {
    precondition {
      condition     = alltrue([for p in local.pipeline_manager : contains(data.seqera_permissions.all.names, p)])
      error_message = "a permission of the role is not in the catalogue the service lists"
    }
  }
}
