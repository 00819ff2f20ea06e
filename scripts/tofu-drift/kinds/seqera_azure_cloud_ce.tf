# An Azure Cloud compute environment, on a new Azure Cloud service principal.
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

resource "seqera_azure_cloud_credential" "main" {
  name            = "drift-azure-cloud"
  workspace_id    = seqera_workspace.main.id
  subscription_id = "00000000-0000-0000-0000-000000000000"
  storage_name    = "driftstorage"
  tenant_id       = "11111111-2222-3333-4444-555555555555"
  client_id       = "66666666-7777-8888-9999-000000000000"
  client_secret   = "cloud-client-secret-example"
}

resource "seqera_azure_cloud_ce" "this" {
  name           = "azure-cloud-minimal"
  workspace_id   = seqera_workspace.main.id
  credentials_id = seqera_azure_cloud_credential.main.credentials_id

  config = {
    region          = "eastus"
    work_dir        = "az://drift-container/work"
    subscription_id = "00000000-0000-0000-0000-000000000000"
    instance_type   = "Standard_D4s_v3"
  }
}
