# A dataset in a new workspace.
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


resource "seqera_datasets" "this" {
  workspace_id = seqera_workspace.main.id
  name         = "samples"
  description  = "Dataset containing sample genomic data"
  source_type  = "UPLOADED"
}
