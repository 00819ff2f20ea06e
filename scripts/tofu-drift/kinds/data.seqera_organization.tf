# An organization looked up by name reads as it was written.
resource "seqera_orgs" "main" {
  name        = "drift-org"
  full_name   = "Drift check organization"
  description = "an organization read back after every write"
  location    = "Barcelona"
  website     = "https://example.org"
}

data "seqera_organization" "this" {
  name = seqera_orgs.main.name

  lifecycle {
    postcondition {
      condition = (self.org_id == seqera_orgs.main.org_id && self.full_name == seqera_orgs.main.full_name &&
        self.description == seqera_orgs.main.description && self.location == seqera_orgs.main.location &&
      self.website == seqera_orgs.main.website)
      error_message = "the organization looked up by name is not the one written"
    }
  }
}
