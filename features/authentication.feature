@auth
Feature: Authentication
  Every call carries "Authorization: Bearer <token>" (A1), so a call without
  one, or with another scheme, is refused; an invalid or expired token gets
  HTTP 403 (A3). That is the contract. How a call without a token or with
  another scheme is refused the document leaves open (the service may answer
  401): the @profile scenarios expect what the behaviour profile in use says,
  by default 403 and no body.

  @contract
  Scenario Outline: A call <credential> is refused
    Given the Authorization header is "<header>"
    When I GET "/workflow"
    Then the response status is not a success

    Examples:
      | credential                      | header                       |
      | without a token                 |                              |
      | with a scheme other than Bearer | Basic d21zbW9jazpzZWNyZXQ=   |

  @profile
  Scenario Outline: A call <credential> gets the profile's reply
    Given the Authorization header is "<header>"
    When I GET "/workflow"
    Then the response is the profile's <reply> reply

    Examples:
      | credential                      | header                       | reply           |
      | without a token                 |                              | auth.missing    |
      | with a scheme other than Bearer | Basic d21zbW9jazpzZWNyZXQ=   | auth.bad_scheme |

  @contract
  Scenario: A call with a token nobody issued is refused
    Given the access token "wmsmock-conformance-never-issued"
    When I GET "/workflow"
    Then the response status is 403

  @contract @fake-only
  Scenario: A call with an expired token is refused
    Given the expired access token
    When I GET "/workflow"
    Then the response status is 403

  @contract
  Scenario: A call with a valid token is accepted
    Given a valid access token
    When I GET "/workflow"
    Then the response status is 200

  @profile
  Scenario: Operations the schema declares open are answered as the profile says without a token
    Given no access token
    When I GET "/service-info"
    Then the response is the profile's answer to an open operation without a token
