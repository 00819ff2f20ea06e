# A personal access token of the calling user.
resource "seqera_tokens" "this" {
  name = "ci-cd-pipeline-token"
}
