# A small configuration of the service's Terraform provider, applied to the
# fake by scripts/tofu-drift.sh: every resource is read back right after it
# is written, and the plan that follows must find nothing to change.

terraform {
  required_providers {
    seqera = {
      source = "seqeralabs/seqera"
    }
  }
}

variable "server_url" { type = string }
variable "token" {
  type      = string
  sensitive = true
}

provider "seqera" {
  server_url  = var.server_url
  bearer_auth = var.token
}

resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

resource "seqera_workspace" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "drift-ws"
  full_name   = "Drift check workspace"
  description = "read back after every write"
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

resource "seqera_labels" "env" {
  workspace_id = seqera_workspace.main.id
  name         = "environment"
  value        = "production"
  resource     = true
  is_default   = false
}

resource "seqera_pipeline" "main" {
  workspace_id = seqera_workspace.main.id
  name         = "drift-rnaseq"
  description  = "a pipeline with launch settings"
  launch = {
    pipeline       = "https://github.com/nf-core/rnaseq"
    compute_env_id = seqera_aws_batch_ce.main.compute_env_id
    work_dir       = "s3://drift-bucket/work"
    revision       = "3.14.0"
    params_text    = "{\"input\": \"s3://drift-bucket/samples.csv\"}"
    config_text    = "process.cpus = 2"
    stub_run       = true
  }
}

resource "seqera_data_link" "main" {
  workspace_id      = seqera_workspace.main.id
  name              = "drift-bucket"
  description       = "the run's bucket"
  provider_type     = "aws"
  resource_ref      = "s3://drift-bucket"
  type              = "bucket"
  public_accessible = false
  credentials_id    = seqera_aws_credential.main.credentials_id
}

resource "seqera_teams" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "drift-team"
  description = "the team that owns the drift check"
}

resource "seqera_action" "main" {
  workspace_id = seqera_workspace.main.id
  name         = "drift-action"
  source       = "tower"
  launch = {
    pipeline       = "https://github.com/nextflow-io/hello"
    compute_env_id = seqera_aws_batch_ce.main.compute_env_id
    work_dir       = "s3://drift-bucket/work"
    revision       = "master"
  }
}
