@unknown-path
Feature: Unknown paths
  An addressed path that does not exist or is unavailable may get 403 (A4):
  "may", so the answer is the behaviour profile's (by default 403 and no
  body, like a refused token; 404 would be a difference, not a failure).

  Background:
    Given a valid access token

  @profile
  Scenario Outline: <call> is refused
    When I <method> "<path>"
    Then the response is the profile's <reply> reply

    Examples:
      | call                              | method | path              | reply          |
      | A path the service does not have  | GET    | /no-such-resource | unknown_route  |
      | A method the path does not define | PATCH  | /workflow         | unknown_method |
