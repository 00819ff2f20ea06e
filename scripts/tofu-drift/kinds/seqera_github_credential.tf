# GitHub credentials in a new workspace.
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

resource "seqera_github_credential" "this" {
  name         = "github-main"
  workspace_id = seqera_workspace.main.id
  username     = "drift"
  access_token = "ghp_exampleexampleexampleexample0000"
  base_url     = "https://github.com/seqeralabs"
}
