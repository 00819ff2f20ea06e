# A CSV file uploaded as the first version of a new dataset.
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


resource "seqera_datasets" "main" {
  workspace_id = seqera_workspace.main.id
  name         = "samples"
  description  = "sample sheet"
}

resource "seqera_dataset_version" "this" {
  workspace_id = seqera_workspace.main.id
  dataset_id   = seqera_datasets.main.id
  file_path    = "${path.module}/samples.csv" # copied from kinds/files
  has_header   = true
}
