@tokens @destructive
Feature: Access tokens
  A token is personal, created by its user under a name; its value is shown
  once, at creation, and can never be read again (A2). A token that no longer
  exists is invalid and gets 403 (A3).

  @contract
  Scenario: A created token works until it is deleted
    Given a valid access token
    When I POST "/tokens" with JSON:
      """
      {"name": "conformance-{unique}"}
      """
    Then the response status is 200
    And the response field "accessKey" is a non-empty string
    And the response field "token.name" is "conformance-{unique}"
    And I save the response field "accessKey" as "newToken"
    And I save the response field "token.id" as "tokenId"
    When I use the access token saved as "newToken"
    And I GET "/workflow"
    Then the response status is 200
    When I use a valid access token
    And I DELETE "/tokens/{tokenId}"
    Then the response status is 204
    When I use the access token saved as "newToken"
    And I GET "/workflow"
    Then the response status is 403

  @contract
  Scenario: A second token with the same name is refused
    Given a valid access token
    When I POST "/tokens" with JSON:
      """
      {"name": "conformance-{unique}"}
      """
    Then the response status is 200
    When I POST "/tokens" with JSON:
      """
      {"name": "conformance-{unique}"}
      """
    Then the response status is 409

  @contract
  Scenario: A token's value is shown only when it is created
    Given a valid access token
    When I POST "/tokens" with JSON:
      """
      {"name": "conformance-{unique}"}
      """
    Then the response status is 200
    And I save the response field "accessKey" as "newToken"
    When I GET "/tokens"
    Then the response status is 200
    And the response body does not contain the value saved as "newToken"
