# A Seqera-managed compute environment (no credentials).
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


resource "seqera_managed_compute_ce" "this" {
  name         = "seqera-cloud-small"
  workspace_id = seqera_workspace.main.id
  region       = "us-east-1"
}
