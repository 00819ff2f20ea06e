# GitLab credentials in a new workspace.
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

resource "seqera_gitlab_credential" "this" {
  name         = "gitlab-main"
  workspace_id = seqera_workspace.main.id
  username     = "drift"
  token        = "glpat-exampleexampleexample"
  base_url     = "https://gitlab.com/seqeralabs"
}
