# A team looked up by name reads as it was written.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}

resource "seqera_teams" "main" {
  org_id      = seqera_orgs.main.org_id
  name        = "engineering"
  description = "the engineering team"
}

data "seqera_team" "this" {
  org_id = seqera_orgs.main.org_id
  name   = seqera_teams.main.name

  lifecycle {
    postcondition {
      condition     = self.team_id == seqera_teams.main.team_id && self.description == seqera_teams.main.description
      error_message = "the team looked up by name is not the one written"
    }
  }
}
