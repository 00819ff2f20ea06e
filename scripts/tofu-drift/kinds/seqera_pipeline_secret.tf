# A pipeline secret in a new workspace.
resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

resource "seqera_workspace" "main" {
  org_id     = seqera_orgs.main.org_id
  name       = "drift-ws"
  full_name  = "Drift check workspace"
  visibility = "PRIVATE"
}


resource "seqera_pipeline_secret" "this" {
  workspace_id = seqera_workspace.main.id
  name         = "github_api_token"
  value        = "ghp_exampleexampleexampleexample0000"
}
