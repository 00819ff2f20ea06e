# A custom role and a predefined one looked up by name.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}

resource "seqera_custom_role" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "pipeline-manager"
  description = "Manage pipelines and launch workflows"
  permissions = ["pipeline:read", "pipeline:write", "workflow:read", "workflow:execute"]
}

data "seqera_custom_role" "this" {
  org_id = seqera_orgs.main.org_id
  name   = seqera_custom_role.main.name

  lifecycle {
    postcondition {
      condition     = self.is_predefined == false && self.description == seqera_custom_role.main.description && toset(self.permissions) == toset(seqera_custom_role.main.permissions)
      error_message = "the custom role looked up by name is not the one written"
    }
  }
}

data "seqera_custom_role" "maintain" {
  org_id = seqera_orgs.main.org_id
  name   = "maintain"

  lifecycle {
    postcondition {
      condition     = self.is_predefined == true && contains(self.permissions, "pipeline:read")
      error_message = "the predefined role maintain is not predefined or cannot read pipelines"
    }
  }
}
