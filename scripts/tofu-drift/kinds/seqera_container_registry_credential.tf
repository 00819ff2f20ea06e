# Container registry credentials in a new workspace.
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

resource "seqera_container_registry_credential" "this" {
  name         = "dockerhub-main"
  workspace_id = seqera_workspace.main.id
  registry     = "docker.io"
  user_name    = "drift"
  password     = "registry-password-example"
}
