# A pipeline secret looked up by name.
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

resource "seqera_pipeline_secret" "main" {
  workspace_id = seqera_workspace.main.id
  name         = "github_api_token"
  value        = "ghp_exampleexampleexampleexample0000"
}

data "seqera_pipeline_secret" "this" {
  workspace_id = seqera_workspace.main.id
  name         = seqera_pipeline_secret.main.name

  lifecycle {
    postcondition {
      condition     = self.secret_id == seqera_pipeline_secret.main.secret_id
      error_message = "the secret looked up by name is not the one written"
    }
  }
}
