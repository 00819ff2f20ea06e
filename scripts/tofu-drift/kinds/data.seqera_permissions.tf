# The permission catalogue holds the permissions the provider documents, in its categories.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}

data "seqera_permissions" "this" {
  org_id = seqera_orgs.main.org_id

  lifecycle {
    postcondition {
      condition = alltrue([for p in ["pipeline:read", "pipeline:write", "workflow:read", "workflow:execute", "dataset:read", "data_link:read", "compute_environment:read", "credentials:read", "label:read"] :
      contains(self.names, p)])
      error_message = "the catalogue lacks a permission the provider documents"
    }
  }
}

data "seqera_permissions" "pipelines" {
  org_id   = seqera_orgs.main.org_id
  category = "Pipelines"

  lifecycle {
    postcondition {
      condition     = contains(self.names, "pipeline:read")
      error_message = "the Pipelines category does not hold pipeline:read"
    }
  }
}
