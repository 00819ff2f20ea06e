# Azure Batch shared keys in a new workspace.
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

resource "seqera_azure_credential" "this" {
  name         = "azure-shared-key"
  workspace_id = seqera_workspace.main.id
  batch_name   = "driftbatch"
  batch_key    = "YmF0Y2gta2V5LWV4YW1wbGU="
  storage_name = "driftstorage"
  storage_key  = "c3RvcmFnZS1rZXktZXhhbXBsZQ=="
}
