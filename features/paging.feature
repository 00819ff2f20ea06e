@paging
Feature: Paging
  Paged list endpoints take a page size and a page offset as query
  parameters: max and offset (P1). A value that is not a valid page size or
  offset is a Bad Request.

  Background:
    Given a valid access token

  @contract
  Scenario: max bounds the number of items in a page
    When I GET "/workflow?max=1"
    Then the response status is 200
    And the response field "workflows" is a list of at most 1 item

  @contract
  Scenario: totalSize counts the whole list, whatever the page
    When I GET "/workflow?max=1"
    Then the response status is 200
    And I save the response field "totalSize" as "total"
    When I GET "/workflow?max=2&offset=1"
    Then the response status is 200
    And the response field "totalSize" is "{total}"
    When I GET "/workflow?max=0"
    Then the response status is 200
    And the response field "totalSize" is "{total}"
    And the response field "workflows" is a list of 0 items

  @contract
  Scenario Outline: A page size or offset that is not a count is a Bad Request: <query>
    When I GET "/workflow?<query>"
    Then the response is a Bad Request with an Error ID

    Examples:
      | query        |
      | max=-1       |
      | max=1.5      |
      | offset=first |
      | offset=-3    |

  @destructive @contract
  Scenario: offset skips the items of the pages before
    Given I POST "/workflow/launch" 3 times with JSON:
      """
      {"launch": {"pipeline": "https://github.com/nextflow-io/hello", "runName": "conformance-{unique}"}}
      """
    When I GET "/workflow?max=2&offset=0"
    Then the response status is 200
    And the response field "workflows" is a list of 2 items
    And I save the response field "workflows.1.workflow.id" as "second"
    When I GET "/workflow?max=2&offset=1"
    Then the response status is 200
    And the response field "workflows.0.workflow.id" is "{second}"
