# A participant added to a workspace by e-mail is found by that e-mail.
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

resource "seqera_organization_member" "main" {
  org_id = seqera_orgs.main.org_id
  email  = "ada@example.org"
}

resource "seqera_workspace_participant" "main" {
  org_id       = seqera_orgs.main.org_id
  workspace_id = seqera_workspace.main.id
  email        = seqera_organization_member.main.email
  role         = "maintain"
}

data "seqera_workspace_participant" "this" {
  org_id       = seqera_orgs.main.org_id
  workspace_id = seqera_workspace.main.id
  email        = seqera_workspace_participant.main.email

  lifecycle {
    postcondition {
      condition     = self.member_id == seqera_organization_member.main.member_id && self.role == "maintain"
      error_message = "the participant looked up by e-mail is not the one added"
    }
  }
}
