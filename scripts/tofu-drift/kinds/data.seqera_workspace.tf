# A workspace looked up by name reads as it was written.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}
resource "seqera_workspace" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "drift-ws"
  full_name   = "Drift check workspace"
  description = "a workspace read back after every write"
  visibility  = "PRIVATE"
}

data "seqera_workspace" "this" {
  org_id = seqera_orgs.main.org_id
  name   = seqera_workspace.main.name

  lifecycle {
    postcondition {
      condition = (self.id == seqera_workspace.main.id && self.full_name == seqera_workspace.main.full_name &&
      self.description == seqera_workspace.main.description && self.visibility == seqera_workspace.main.visibility)
      error_message = "the workspace looked up by name is not the one written"
    }
  }
}
