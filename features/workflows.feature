@workflows @destructive
Feature: Workflow lifecycle
  POST /workflow/launch starts a run and answers with its workflowId. A run
  is SUBMITTED, then RUNNING, then ends as SUCCEEDED, FAILED, CANCELLED or
  UNKNOWN. POST /workflow/{workflowId}/cancel asks it to stop and answers
  204. How a run that no longer exists is refused, and how fast a run moves
  through its statuses, the document leaves open: those scenarios expect
  what the behaviour profile says (by default 403 and no body).

  Background:
    Given a valid access token
    When I POST "/workflow/launch" with JSON:
      """
      {"launch": {"pipeline": "https://github.com/nextflow-io/hello", "runName": "conformance-{unique}"}}
      """
    Then the response status is 200
    And the response field "workflowId" is a non-empty string
    And I save the response field "workflowId" as "workflowId"

  @contract
  Scenario: A launched run can be described and cancelled
    When I GET "/workflow/{workflowId}"
    Then the response status is 200
    And the response field "workflow.id" is "{workflowId}"
    And the response field "workflow.status" is one of "SUBMITTED, RUNNING"
    When I POST "/workflow/{workflowId}/cancel"
    Then the response status is 204
    When I GET "/workflow/{workflowId}"
    Then the response status is 200
    And the response field "workflow.status" is "CANCELLED"

  @profile
  Scenario: A deleted run is no longer found
    When I DELETE "/workflow/{workflowId}?force=true"
    Then the response status is 204
    When I GET "/workflow/{workflowId}"
    Then the response is the profile's missing_resource reply

  @fake-only @profile
  Scenario: A run moves from SUBMITTED through RUNNING to SUCCEEDED as time passes
    When I GET "/workflow/{workflowId}"
    Then the response field "workflow.status" is "SUBMITTED"
    When 30 seconds pass
    And I GET "/workflow/{workflowId}"
    Then the response field "workflow.status" is "RUNNING"
    When 2 minutes pass
    And I GET "/workflow/{workflowId}"
    Then the response field "workflow.status" is "SUCCEEDED"
