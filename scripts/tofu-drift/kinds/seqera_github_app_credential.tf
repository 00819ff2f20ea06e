# GitHub App credentials in a new workspace.
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

resource "seqera_github_app_credential" "this" {
  name         = "github-app-main"
  workspace_id = seqera_workspace.main.id
  app_id       = "123456"
  client_id    = "Iv1.0123456789abcdef"
  private_key  = "-----BEGIN RSA PRIVATE KEY-----\nexample\n-----END RSA PRIVATE KEY-----"
  base_url     = "https://github.com/seqeralabs"
}
