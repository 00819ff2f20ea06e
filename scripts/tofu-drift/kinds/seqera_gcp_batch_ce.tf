# A Google Batch compute environment, on a new Google service account key.
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

resource "seqera_google_credential" "main" {
  name         = "drift-gcp"
  workspace_id = seqera_workspace.main.id
  data         = jsonencode({ type = "service_account", project_id = "drift-project", client_email = "runner@drift-project.iam.gserviceaccount.com" })
}

resource "seqera_gcp_batch_ce" "this" {
  name           = "gcp-batch-minimal"
  workspace_id   = seqera_workspace.main.id
  credentials_id = seqera_google_credential.main.credentials_id

  config = {
    location        = "us-central1"
    work_dir        = "gs://drift-bucket/work"
    machine_type    = "n1-standard-4"
    service_account = "runner@drift-project.iam.gserviceaccount.com"
  }
}
