@bad-request
Feature: Bad Request
  A request whose body is not properly defined, or whose query parameters are
  invalid, gets a Bad Request (E1): HTTP 400 and a JSON object with exactly one
  string field "message" that ends with an error identifier labelled
  "Error ID", such as "... - Error ID: 54apnFENQxbvCr23JaIjLb". Each error
  gets an identifier of its own.

  Background:
    Given a valid access token

  @contract
  Scenario Outline: An invalid query value is a Bad Request: <query>
    When I GET "/workflow?<query>"
    Then the response is a Bad Request with an Error ID

    Examples:
      | query                 |
      | max=many              |
      | search=%zz            |
      | max=1;offset=2        |

  @contract
  Scenario: A malformed JSON body is a Bad Request
    When I POST "/workflow/launch" with JSON:
      """
      {"launch": {"pipeline": 
      """
    Then the response is a Bad Request with an Error ID

  @contract
  Scenario: A missing body is a Bad Request
    When I POST "/workflow/launch" without a body
    Then the response is a Bad Request with an Error ID

  @profile
  Scenario: A body over the size limit is refused as the profile says
    When I POST "/workflow/launch" with a body over the profile's body limit
    Then the response is the profile's body_limit.reject reply

  @contract
  Scenario: Every Bad Request has an Error ID of its own
    When I GET "/workflow?max=many"
    Then the response is a Bad Request with an Error ID
    When I GET "/workflow?max=many"
    Then the response is a Bad Request with an Error ID
    When I POST "/workflow/launch" with JSON:
      """
      [1, 2, 3]
      """
    Then the response is a Bad Request with an Error ID
    And the Error IDs differ
