# Bitbucket credentials with an API token in a new workspace.
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

resource "seqera_bitbucket_credential" "this" {
  name         = "bitbucket-main"
  workspace_id = seqera_workspace.main.id
  username     = "drift@example.org"
  token        = "bitbucket-api-token-example"
  base_url     = "https://bitbucket.org/seqeralabs"
}
