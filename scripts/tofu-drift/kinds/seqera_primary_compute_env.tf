# An AWS Batch compute environment made the workspace's primary one.
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

resource "seqera_aws_batch_ce" "main" {
  name           = "drift-batch"
  workspace_id   = seqera_workspace.main.id
  credentials_id = seqera_aws_credential.main.credentials_id
  config = {
    region   = "eu-west-1"
    work_dir = "s3://drift-bucket/work"
    forge = {
      type           = "SPOT"
      max_cpus       = 64
      alloc_strategy = "SPOT_CAPACITY_OPTIMIZED"
    }
  }
}

resource "seqera_primary_compute_env" "this" {
  workspace_id   = seqera_workspace.main.id
  compute_env_id = seqera_aws_batch_ce.main.compute_env_id
}
