@versions
Feature: API versions
  The Accept-Version header selects the API version; a call without it gets
  version 1 (V1). A version the service does not serve is a Bad Request with
  an Error ID.

  Background:
    Given a valid access token

  Scenario: Without Accept-Version a call gets version 1
    When I GET "/service-info"
    Then the response status is 200
    Given the request header "Accept-Version" is "1"
    When I GET "/service-info"
    Then the response status is 200
    And the response body is the same as the one before

  Scenario: Accept-Version 1 is served
    Given the request header "Accept-Version" is "1"
    When I GET "/workflow"
    Then the response status is 200

  Scenario: A version the service does not serve is a Bad Request
    Given the request header "Accept-Version" is "999"
    When I GET "/workflow"
    Then the response is a Bad Request with an Error ID
