# Gitea credentials in a new workspace.
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

resource "seqera_gitea_credential" "this" {
  name         = "gitea-main"
  workspace_id = seqera_workspace.main.id
  username     = "drift"
  password     = "gitea-password-example"
  base_url     = "https://gitea.example.org"
}
