# A pipeline looked up by name reads as it was written.
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
  description  = "the classic"
  launch = {
    pipeline       = "https://github.com/nextflow-io/hello"
    compute_env_id = seqera_aws_batch_ce.main.compute_env_id
    work_dir       = "s3://drift-bucket/work"
    revision       = "master"
  }
}

data "seqera_pipeline" "this" {
  workspace_id = seqera_workspace.main.id
  name         = seqera_pipeline.main.name

  lifecycle {
    postcondition {
      condition     = self.pipeline_id == seqera_pipeline.main.pipeline_id && self.description == "the classic" && self.repository == "https://github.com/nextflow-io/hello"
      error_message = "the pipeline looked up by name is not the one written"
    }
  }
}
