# The data links of a workspace list the one written.
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

resource "seqera_data_link" "main" {
  workspace_id      = seqera_workspace.main.id
  name              = "drift-bucket"
  description       = "the run bucket"
  provider_type     = "aws"
  resource_ref      = "s3://drift-bucket"
  type              = "bucket"
  public_accessible = false
  credentials_id    = seqera_aws_credential.main.credentials_id
}

data "seqera_data_links" "this" {
  workspace_id = seqera_workspace.main.id
  depends_on   = [seqera_data_link.main]

  lifecycle {
    postcondition {
      condition     = contains([for d in self.data_links : "${d.id} ${d.name} ${d.provider} ${d.resource_ref}"], "${seqera_data_link.main.data_link_id} drift-bucket aws s3://drift-bucket")
      error_message = "the workspace does not list the data link written"
    }
  }
}
