# An Azure Batch compute environment with Forge, on new Azure shared keys.
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

resource "seqera_azure_credential" "main" {
  name         = "drift-azure"
  workspace_id = seqera_workspace.main.id
  batch_name   = "driftbatch"
  batch_key    = "YmF0Y2gta2V5LWV4YW1wbGU="
  storage_name = "driftstorage"
  storage_key  = "c3RvcmFnZS1rZXktZXhhbXBsZQ=="
}

resource "seqera_azure_batch_ce" "this" {
  name           = "azure-batch-minimal"
  workspace_id   = seqera_workspace.main.id
  credentials_id = seqera_azure_credential.main.credentials_id

  config = {
    region   = "eastus"
    work_dir = "az://drift-container/work"
    forge = {
      vm_type             = "Standard_D4s_v3"
      vm_count            = 5
      auto_scale          = true
      dispose_on_deletion = true
    }
  }
}
