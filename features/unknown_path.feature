@unknown-path
Feature: Unknown paths
  An addressed path that does not exist or is unavailable may get 403 (A4).
  The fake answers a path it does not have, and a method a path does not
  define, with 403 and no body, like a refused token.

  Background:
    Given a valid access token

  Scenario: A path the service does not have is refused with 403
    When I GET "/no-such-resource"
    Then the response status is 403
    And the response body is empty

  Scenario: A method the path does not define is refused with 403
    When I PATCH "/workflow"
    Then the response status is 403
    And the response body is empty
