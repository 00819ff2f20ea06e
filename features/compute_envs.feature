@compute-envs @destructive
Feature: Compute environments
  Compute environments are created and deleted in the background: a new one
  is CREATING until it becomes AVAILABLE, and a deleted one is DELETING
  before its deletion finishes. Then, as the profile's
  compute_envs.after_delete says, describing it answers the environment with
  status DELETED and deleted true (the default), or the missing-resource
  reply, like anything that does not exist. The scenario needs about a
  minute to pass, so it runs where the suite can move the clock: against
  the fake.

  @profile @fake-only
  Scenario: A compute environment is created and deleted in the background
    Given a valid access token
    When I POST "/compute-envs" with JSON:
      """
      {"computeEnv": {"name": "conformance-{unique}", "platform": "aws-batch",
       "config": {"discriminator": "aws-batch", "region": "eu-west-1", "workDir": "s3://conformance/work"}}}
      """
    Then the response status is 200
    And I save the response field "computeEnvId" as "ce"
    When I GET "/compute-envs/{ce}"
    Then the response status is 200
    And the response field "computeEnv.status" is one of "CREATING, AVAILABLE"
    When 1 minute passes
    And I GET "/compute-envs/{ce}"
    Then the response field "computeEnv.status" is "AVAILABLE"
    When I DELETE "/compute-envs/{ce}"
    Then the response status is 204
    When 1 minute passes
    And I GET "/compute-envs/{ce}"
    Then the response is the profile's answer for a deleted compute environment
