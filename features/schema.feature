@schema
Feature: Answers match the published schema
  The interface is described by an OpenAPI schema that the service publishes
  (T3); every answer must be one that schema accepts. Success is 200 or 204
  (E2). A describe call for an identifier the service does not hold may be
  refused: with 403, as the service does for resources that do not exist,
  404, or the behaviour profile's missing-resource reply.

  Background:
    Given a valid access token

  @contract
  Scenario: A list of runs matches its schema
    When I GET "/workflow"
    Then the response status is 200
    And the response body matches the schema of the operation

  @contract
  Scenario: Every read-only operation answers with a body its schema accepts
    When I call every read-only operation of the schema
    Then every answer is a success whose body its schema accepts
