@unknown-path
Feature: Unknown paths
  An addressed path that does not exist or is unavailable may get 403 (A4):
  "may", so the answer is the behaviour profile's (by default 403 and no
  body, like a refused token; 404 would be a difference, not a failure).

  Background:
    Given a valid access token

  @profile
  Scenario: A path the service does not have is refused
    When I GET "/no-such-resource"
    Then the response is the profile's unknown_route reply

  @profile
  Scenario: A method the path does not define is refused
    When I PATCH "/workflow"
    Then the response is the profile's unknown_route reply
