# A member added to a new organization by e-mail.
resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

resource "seqera_organization_member" "this" {
  org_id = seqera_orgs.main.org_id
  email  = "ada@example.org"
  role   = "member"
}
