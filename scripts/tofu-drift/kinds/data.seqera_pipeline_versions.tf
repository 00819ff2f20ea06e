# The versions of a new pipeline: one, the default.
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

data "seqera_pipeline_versions" "this" {
  workspace_id = seqera_workspace.main.id
  pipeline_id  = seqera_pipeline.main.pipeline_id

  lifecycle {
    postcondition {
      condition     = length(self.versions) == 1 && self.versions[0].is_default
      error_message = "a new pipeline does not have exactly one version, the default"
    }
  }
}
