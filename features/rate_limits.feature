@rate-limit
Feature: Rate limits
  Rate limits are counted per access token: 20 calls per second and 72000
  calls per hour, over all API requests (L1). The document does not say how a
  call over the limit is answered; the fake's profile refuses it with 429 and
  a JSON message with an Error ID, and says when to retry in Retry-After.

  These scenarios send their calls in a burst on purpose; every other
  scenario stays well under the limit.

  Scenario: More than 20 calls in one second are refused
    Given a valid access token
    When I send 21 requests to "/workflow" within one second
    Then 20 of them are accepted
    And the rest are refused with status 429
    And the response is a message with an Error ID
    And the response header "Retry-After" is a whole number of seconds

  @second-token
  Scenario: Calls are counted per token
    Given a valid access token
    And I send 21 requests to "/workflow" within one second
    And 20 of them are accepted
    When I use the second access token
    And I GET "/workflow"
    Then the response status is 200
    When I use a valid access token
    And I GET "/workflow"
    Then the response status is 429

  Scenario: Calls are accepted again once the second has passed
    Given a valid access token
    And I send 21 requests to "/workflow" within one second
    And the rest are refused with status 429
    When one second passes
    And I GET "/workflow"
    Then the response status is 200
