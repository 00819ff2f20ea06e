# A Google service account key in a new workspace.
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

resource "seqera_google_credential" "this" {
  name         = "gcp-main"
  workspace_id = seqera_workspace.main.id
  data         = jsonencode({ type = "service_account", project_id = "drift-project", client_email = "runner@drift-project.iam.gserviceaccount.com" })
}
