# A member added by e-mail is found by that e-mail.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}

resource "seqera_organization_member" "main" {
  org_id = seqera_orgs.main.org_id
  email  = "ada@example.org"
  role   = "member"
}

data "seqera_organization_member" "this" {
  org_id = seqera_orgs.main.org_id
  email  = seqera_organization_member.main.email

  lifecycle {
    postcondition {
      condition     = self.member_id == seqera_organization_member.main.member_id && self.user_id == seqera_organization_member.main.user_id && self.role == "member"
      error_message = "the member looked up by e-mail is not the one added"
    }
  }
}
