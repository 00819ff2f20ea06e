# The credentials of a workspace list the ones written.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}
resource "seqera_workspace" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "drift-ws"
  full_name   = "Drift check workspace"
  description = "a workspace read back after every write"
  visibility  = "PRIVATE"
}

resource "seqera_aws_credential" "main" {
  name         = "drift-aws"
  workspace_id = seqera_workspace.main.id
  access_key   = "AKIAIOSFODNN7EXAMPLE"
  secret_key   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
}

resource "seqera_github_credential" "main" {
  name         = "drift-github"
  workspace_id = seqera_workspace.main.id
  username     = "drift"
  access_token = "ghp_exampleexampleexampleexample0000"
}

data "seqera_credentials" "this" {
  workspace_id = seqera_workspace.main.id
  depends_on   = [seqera_aws_credential.main, seqera_github_credential.main]

  lifecycle {
    postcondition {
      condition = (length(self.credentials) == 2 &&
        contains([for c in self.credentials : "${c.id} ${c.name} ${c.provider}"], "${seqera_aws_credential.main.credentials_id} drift-aws aws") &&
      contains([for c in self.credentials : "${c.id} ${c.name} ${c.provider}"], "${seqera_github_credential.main.credentials_id} drift-github github"))
      error_message = "the workspace does not list exactly the credentials written"
    }
  }
}
