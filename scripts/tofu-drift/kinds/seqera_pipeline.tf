# A pipeline with launch settings on a new AWS Batch compute environment.
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

resource "seqera_pipeline" "this" {
  workspace_id = seqera_workspace.main.id
  name         = "rna-seq-analysis"
  description  = "RNA sequencing analysis pipeline"

  launch = {
    pipeline       = "https://github.com/nf-core/rnaseq"
    compute_env_id = seqera_aws_batch_ce.main.compute_env_id
    work_dir       = "s3://drift-bucket/work"
    revision       = "3.14.0"
    params_text    = jsonencode({ input = "s3://drift-bucket/samples.csv" })
    config_text    = "process.cpus = 2"
    syntax_parser  = "v2"
  }
}
