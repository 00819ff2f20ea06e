# Kubernetes service account token in a new workspace.
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

resource "seqera_kubernetes_credential" "this" {
  name         = "k8s-main"
  workspace_id = seqera_workspace.main.id
  token        = "eyJhbGciOiJSUzI1NiJ9.example.signature"
}
