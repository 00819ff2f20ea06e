# An AWS Batch compute environment through the generic compute environment resource.
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

resource "seqera_compute_env" "this" {
  workspace_id = seqera_workspace.main.id
  compute_env = {
    name           = "generic-aws-batch"
    platform       = "aws-batch"
    credentials_id = seqera_aws_credential.main.credentials_id
    description    = "AWS Batch with Forge"
    config = {
      aws_batch = {
        region   = "eu-west-1"
        work_dir = "s3://drift-bucket/work"
        forge = {
          type     = "SPOT"
          min_cpus = 0
          max_cpus = 64
        }
      }
    }
  }
}
