# A personal access token of the calling user.
# skip: the provider crashes on the service's answer to POST /tokens ({accessKey, token}): RefreshFromSharedCreateAccessTokenResponse (tokens_resource_sdk.go:34) writes the answer's token into the unset planned token object
resource "seqera_tokens" "this" {
  name = "ci-cd-pipeline-token"
}
