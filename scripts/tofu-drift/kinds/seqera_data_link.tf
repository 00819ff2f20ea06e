# An S3 bucket data link with new AWS credentials.
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


resource "seqera_aws_credential" "main" {
  name         = "drift-aws"
  workspace_id = seqera_workspace.main.id
  access_key   = "AKIAIOSFODNN7EXAMPLE"
  secret_key   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
}

resource "seqera_data_link" "this" {
  workspace_id      = seqera_workspace.main.id
  name              = "drift-bucket"
  description       = "S3 bucket for production data storage"
  provider_type     = "aws"
  resource_ref      = "s3://drift-bucket"
  type              = "bucket"
  public_accessible = false
  credentials_id    = seqera_aws_credential.main.credentials_id
}
