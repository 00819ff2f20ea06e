# Tower Agent credentials in a new workspace.
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

resource "seqera_tower_agent_credential" "this" {
  name          = "agent-main"
  workspace_id  = seqera_workspace.main.id
  connection_id = "5f1c6a3e-8d2b-4c7a-9e0f-1a2b3c4d5e6f"
  shared        = false
}
