# A member of the organization added to a workspace by e-mail with a
# predefined role, and a team added with a custom role that names real
# permissions.
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

resource "seqera_organization_member" "main" {
  org_id = seqera_orgs.main.org_id
  email  = "ada@example.org"
}

resource "seqera_teams" "main" {
  org_id = seqera_orgs.main.org_id
  name   = "engineering"
}

resource "seqera_custom_role" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "pipeline-manager"
  description = "Manage pipelines and launch workflows"
  permissions = ["pipeline:read", "pipeline:write", "workflow:read", "workflow:execute"]
}

resource "seqera_workspace_participant" "this" {
  org_id       = seqera_orgs.main.org_id
  workspace_id = seqera_workspace.main.id
  email        = seqera_organization_member.main.email
  role         = "launch"
}

resource "seqera_workspace_participant" "team" {
  org_id       = seqera_orgs.main.org_id
  workspace_id = seqera_workspace.main.id
  team_id      = seqera_teams.main.team_id
  role         = seqera_custom_role.main.name
}
