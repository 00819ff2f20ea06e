# A Slurm compute environment reached over SSH with a new key.
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

resource "seqera_ssh_credential" "main" {
  name         = "drift-ssh"
  workspace_id = seqera_workspace.main.id
  private_key  = "-----BEGIN OPENSSH PRIVATE KEY-----\nexample\n-----END OPENSSH PRIVATE KEY-----"
}

resource "seqera_slurm_ce" "this" {
  name             = "slurm-hpc"
  workspace_id     = seqera_workspace.main.id
  credentials_id   = seqera_ssh_credential.main.credentials_id
  work_dir         = "/scratch/users/drift/work"
  launch_dir       = "/scratch/users/drift/launch"
  user_name        = "drift"
  host_name        = "login.hpc.example.org"
  head_job_options = "-t 72:00:00 --cpus-per-task=2 --mem-per-cpu=8G"
  pre_run_script   = "module load nextflow"
}
