@faults @fake-only
Feature: Faults and overrides on demand
  A client's retry and timeout code is only tested against a server that
  misbehaves. The fake misbehaves when asked to: it answers an operation
  with a failure status for the next calls or for a window of its time, it
  drops, empties or cuts a connection, and it pins an operation's answer
  for the calls that match. These scenarios ask through the fake's admin
  API, which only the fake has, so they are @fake-only: against any other
  server they are skipped, with that reason. They show the steps an
  integrator's own suite can use (docs/faults.md); a scenario here that
  does not pass is the fake failing, hence @contract.

  @contract
  Scenario: A burst of 503s ends after the calls it was asked for
    Given a valid access token
    And the fake answers "ListWorkflows" with status 503 for the next 2 calls
    When I GET "/workflow"
    Then the response status is 503
    When I GET "/workflow"
    Then the response status is 503
    When I GET "/workflow"
    Then the response status is 200

  @contract
  Scenario: A client that retries gets through failures and dropped connections
    Given a valid access token
    And the fake answers "ListWorkflows" with status 502 for the next 1 call
    And the fake drops the connection of the next 1 call to "ListWorkflows"
    And the fake sends an empty reply to the next 1 call to "ListWorkflows"
    When I GET "/workflow" until it succeeds, at most 5 times
    Then it took 4 attempts
    And the response status is 200

  @contract
  Scenario: A dropped connection reaches the client as a reset
    Given a valid access token
    And the fake drops the connection of the next 1 call to "ListWorkflows"
    When I try to GET "/workflow"
    Then the call failed with a reset connection

  @contract
  Scenario: An answer cut short ends the body early
    Given a valid access token
    And the fake cuts short its answer to the next 1 call to "GET /workflow"
    When I try to GET "/workflow"
    Then the call failed with an answer cut short

  @contract
  Scenario: An outage lasts for its window of the fake's time
    Given a valid access token
    And the fake answers every call with status 503 for 10 minutes
    When I GET "/user-info"
    Then the response status is 503
    When 10 minutes pass
    And I GET "/user-info"
    Then the response status is 200

  @profile
  Scenario: Maintenance is answered with the profile's page and Retry-After
    Given a valid access token
    And the fake is down for maintenance for 5 minutes, asking clients to retry after 120 seconds
    When I GET "/workflow"
    Then the response is the profile's faults.maintenance reply
    And the response header "Retry-After" is a whole number of seconds

  @contract
  Scenario: An override pins an operation's answer
    Given a valid access token
    And the fake answers "UserInfo" with status 200 and JSON:
      """
      {"user": {"id": 7, "userName": "pinned-{unique}", "email": "pinned@example.com"}, "needConsent": false}
      """
    When I GET "/user-info"
    Then the response status is 200
    And the response field "user.userName" is "pinned-{unique}"

  @contract
  Scenario: An override that its operation does not document is refused unless deliberate
    Given a valid access token
    And the fake refuses the override:
      """
      {"operation": "UserInfo", "status": 418, "body": {"message": "short and stout"}}
      """
    And the fake adds the override:
      """
      {"operation": "UserInfo", "status": 418, "body": {"message": "short and stout"}, "deliberate": true, "times": 1}
      """
    When I GET "/user-info"
    Then the response status is 418
    When I GET "/user-info"
    Then the response status is 200
