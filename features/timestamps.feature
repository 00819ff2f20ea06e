@timestamps
Feature: Timestamps
  Timestamps are UTC ISO 8601 in the exact form YYYY-MM-DDTHH:MM:SSZ: no
  fractional seconds and a literal Z (T2).

  Background:
    Given a valid access token

  @contract
  Scenario: Timestamps in the caller's profile
    When I GET "/user-info"
    Then the response status is 200
    And the response holds at least one timestamp
    And every timestamp in the response is in the form YYYY-MM-DDTHH:MM:SSZ

  @destructive @contract
  Scenario: Timestamps of a run just launched, described and listed
    When I POST "/workflow/launch" with JSON:
      """
      {"launch": {"pipeline": "https://github.com/nextflow-io/hello", "runName": "conformance-{unique}"}}
      """
    Then the response status is 200
    And I save the response field "workflowId" as "workflowId"
    When I GET "/workflow/{workflowId}"
    Then the response status is 200
    And the response holds at least one timestamp
    And every timestamp in the response is in the form YYYY-MM-DDTHH:MM:SSZ
    When I GET "/workflow?max=5"
    Then the response status is 200
    And the response holds at least one timestamp
    And every timestamp in the response is in the form YYYY-MM-DDTHH:MM:SSZ
