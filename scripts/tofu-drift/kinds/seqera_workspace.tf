# A workspace in a new organization.
resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

resource "seqera_workspace" "this" {
  org_id      = seqera_orgs.main.org_id
  name        = "drift-ws"
  full_name   = "Drift check workspace"
  description = "a workspace read back after every write"
  visibility  = "PRIVATE"
}
