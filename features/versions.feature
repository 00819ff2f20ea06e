@versions
Feature: API versions
  The Accept-Version header selects the API version; a call without it gets
  version 1 (V1). How a version the service does not serve is answered the
  document leaves open: the behaviour profile says (by default a Bad Request
  with an Error ID; a profile may also answer it as the default version).

  Background:
    Given a valid access token

  @contract
  Scenario: Without Accept-Version a call gets version 1
    When I GET "/service-info"
    Then the response status is 200
    Given the request header "Accept-Version" is "1"
    When I GET "/service-info"
    Then the response status is 200
    And the response body is the same as the one before

  @contract
  Scenario: Accept-Version 1 is served
    Given the request header "Accept-Version" is "1"
    When I GET "/workflow"
    Then the response status is 200

  @profile
  Scenario: A version the service does not serve is answered as the profile says
    Given the request header "Accept-Version" is "999"
    When I GET "/workflow"
    Then the response is the profile's answer to an unserved version
