@rate-limit
Feature: Rate limits
  Rate limits are counted per access token: 20 calls per second and 72000
  calls per hour, over all API requests (L1). That much is the contract:
  every server must keep to it. How a call over the limit is answered the
  document leaves open; the behaviour profile in use says (by default what
  the service was seen to send: 429, a message saying how long to wait, and
  Retry-After), and a server answering otherwise differs from the profile
  without breaking the contract.

  These scenarios send their calls in a burst on purpose; every other
  scenario stays well under the limit.

  @contract
  Scenario: More than 20 calls in one second are refused
    Given a valid access token
    When I send 21 requests to "/workflow" within one second
    Then 20 of them are accepted
    And the rest are refused

  @profile
  Scenario: A call over the limit is refused as the profile says
    Given a valid access token
    When I send 21 requests to "/workflow" within one second
    Then 20 of them are accepted
    And the refused calls get the profile's rate-limit reply

  @contract @second-token
  Scenario: Calls are counted per token
    Given a valid access token
    And I send 21 requests to "/workflow" within one second
    And 20 of them are accepted
    And the rest are refused
    When I use the second access token
    And I GET "/workflow"
    Then the response status is 200

  @contract
  Scenario: Calls are accepted again once the second has passed
    Given a valid access token
    And I send 21 requests to "/workflow" within one second
    And the rest are refused
    When one second passes
    And I GET "/workflow"
    Then the response status is 200
