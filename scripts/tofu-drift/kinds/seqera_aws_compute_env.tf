# An AWS Batch compute environment through the older AWS resource, on new AWS credentials.
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

resource "seqera_aws_compute_env" "this" {
  name           = "aws-compute-env"
  workspace_id   = seqera_workspace.main.id
  credentials_id = seqera_aws_credential.main.credentials_id
  platform       = "aws-batch"

  config = {
    region   = "us-east-1"
    work_dir = "s3://drift-bucket/work"
    forge = {
      type     = "EC2"
      min_cpus = 0
      max_cpus = 128
    }
  }
}
