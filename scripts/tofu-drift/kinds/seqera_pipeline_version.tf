# The version a new pipeline was created with, renamed and made the default.
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
resource "seqera_pipeline" "main" {
  workspace_id = seqera_workspace.main.id
  name         = "hello"
  launch = {
    pipeline       = "https://github.com/nextflow-io/hello"
    compute_env_id = seqera_aws_batch_ce.main.compute_env_id
    work_dir       = "s3://drift-bucket/work"
    revision       = "master"
  }
}

data "seqera_pipeline_versions" "main" {
  workspace_id = seqera_workspace.main.id
  pipeline_id  = seqera_pipeline.main.pipeline_id
}

resource "seqera_pipeline_version" "this" {
  workspace_id = seqera_workspace.main.id
  pipeline_id  = seqera_pipeline.main.pipeline_id
  version_id   = data.seqera_pipeline_versions.main.versions[0].id
  name         = "hello-1"
  is_default   = true
}
