@auth
Feature: Authentication
  Every call carries "Authorization: Bearer <token>" (A1). An invalid or
  expired token gets HTTP 403 (A3). The document leaves the answer to a call
  without a token open; the fake's profile refuses it the same way, with 403
  and no body.

  Scenario: A call without a token is refused
    Given no access token
    When I GET "/workflow"
    Then the response status is 403
    And the response body is empty

  Scenario: A call with a token nobody issued is refused
    Given the access token "wmsmock-conformance-never-issued"
    When I GET "/workflow"
    Then the response status is 403
    And the response body is empty

  Scenario: A call with a scheme other than Bearer is refused
    Given the Authorization header is "Basic d21zbW9jazpzZWNyZXQ="
    When I GET "/workflow"
    Then the response status is 403
    And the response body is empty

  @fake-only
  Scenario: A call with an expired token is refused
    Given the expired access token
    When I GET "/workflow"
    Then the response status is 403
    And the response body is empty

  Scenario: A call with a valid token is accepted
    Given a valid access token
    When I GET "/workflow"
    Then the response status is 200

  Scenario: Operations the schema declares open still need a token
    Given no access token
    When I GET "/service-info"
    Then the response status is 403
    And the response body is empty
