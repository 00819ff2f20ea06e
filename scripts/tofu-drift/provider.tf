# The provider, pointed at the fake. scripts/tofu-drift.sh copies this file
# beside each configuration in kinds/ and sets both variables.

terraform {
  required_providers {
    seqera = {
      source = "seqeralabs/seqera"
    }
  }
}

variable "server_url" { type = string }
variable "token" {
  type      = string
  sensitive = true
}

provider "seqera" {
  server_url  = var.server_url
  bearer_auth = var.token
}
