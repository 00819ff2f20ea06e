# A team in a new organization.
resource "seqera_orgs" "main" {
  name      = "drift-org"
  full_name = "Drift check organization"
}

resource "seqera_teams" "this" {
  org_id      = seqera_orgs.main.org_id
  name        = "bioinformatics-team"
  description = "Team responsible for bioinformatics analysis and pipeline development"
}
