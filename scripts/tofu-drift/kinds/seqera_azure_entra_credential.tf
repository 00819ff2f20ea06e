# An Azure Batch Entra service principal in a new workspace.
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

resource "seqera_azure_entra_credential" "this" {
  name          = "azure-entra-sp"
  workspace_id  = seqera_workspace.main.id
  batch_name    = "driftbatch"
  storage_name  = "driftstorage"
  tenant_id     = "11111111-2222-3333-4444-555555555555"
  client_id     = "66666666-7777-8888-9999-000000000000"
  client_secret = "entra-client-secret-example"
}
