# A member of a new organization added to one of its teams by e-mail.
resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

resource "seqera_teams" "main" {
  org_id = seqera_orgs.main.org_id
  name   = "bioinformatics-team"
}

resource "seqera_organization_member" "main" {
  org_id = seqera_orgs.main.org_id
  email  = "ada@example.org"
}

resource "seqera_team_member" "this" {
  org_id  = seqera_orgs.main.org_id
  team_id = seqera_teams.main.team_id
  email   = seqera_organization_member.main.email
}
