# A resource label and a plain label in a new workspace.
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


resource "seqera_labels" "this" {
  workspace_id = seqera_workspace.main.id
  name         = "environment"
  value        = "production"
  resource     = true
  is_default   = false
}

resource "seqera_labels" "plain" {
  workspace_id = seqera_workspace.main.id
  name         = "rnaseq"
  resource     = false
}
