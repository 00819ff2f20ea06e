# A Jupyter studio on a new AWS Batch compute environment.
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

resource "seqera_studios" "this" {
  workspace_id         = seqera_workspace.main.id
  name                 = "my-jupyter-studio"
  description          = "a studio read back after every write"
  compute_env_id       = seqera_aws_batch_ce.main.compute_env_id
  data_studio_tool_url = "public.cr.seqera.io/platform/data-studio-jupyter:4.2.5-0.8"
  configuration = {
    cpu    = 2
    memory = 8192
  }
}
