# A pipeline schema bound to a new pipeline (the service has no read of a schema).
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

resource "seqera_pipeline_schema" "this" {
  workspace_id = seqera_workspace.main.id
  schema_content = jsonencode({
    "$schema"   = "https://json-schema.org/draft/2020-12/schema"
    title       = "hello pipeline parameters"
    type        = "object"
    properties  = { greeting = { type = "string", default = "Hello" } }
  })
}

resource "seqera_pipeline" "main" {
  workspace_id = seqera_workspace.main.id
  name         = "hello"
  launch = {
    pipeline           = "https://github.com/nextflow-io/hello"
    compute_env_id     = seqera_aws_batch_ce.main.compute_env_id
    work_dir           = "s3://drift-bucket/work"
    revision           = "master"
    pipeline_schema_id = seqera_pipeline_schema.this.id
  }
}
