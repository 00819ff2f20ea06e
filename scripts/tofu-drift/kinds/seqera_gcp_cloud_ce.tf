# A Google Cloud compute environment, on a new Google service account key.
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

resource "seqera_gcp_cloud_ce" "this" {
  name           = "gcp-cloud-minimal"
  workspace_id   = seqera_workspace.main.id
  credentials_id = seqera_google_credential.main.credentials_id

  config = {
    project_id            = "drift-project"
    region                = "us-central1"
    zone                  = "us-central1-a"
    work_dir              = "gs://drift-bucket/work"
    instance_type         = "n1-standard-4"
    service_account_email = "runner@drift-project.iam.gserviceaccount.com"
  }
}
