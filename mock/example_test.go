package mock_test

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// A document's own example is served when its schema accepts it, and a
// generated body otherwise: published documents carry examples their own
// schema rejects, and the fake must not hand those to a client.
func TestExamplesServedOnlyWhenValid(t *testing.T) {
	doc, err := spec.Load([]byte(`openapi: 3.0.3
info: {title: Examples, version: "1"}
paths:
  /good:
    get:
      operationId: good
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Thing"}
              example: {name: from-the-document, size: 3}
  /bad:
    get:
      operationId: bad
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Thing"}
              example: {name: from-the-document, size: "three"}
components:
  schemas:
    Thing:
      type: object
      required: [name, size]
      properties:
        name: {type: string}
        size: {type: integer}
`))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newServer(t, doc, mock.WithState(mock.NoRecords()), mock.WithStrictResponses())
	good := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/good", devToken, nil), 200, "good"))
	if good["name"] != "from-the-document" || good["size"] != float64(3) {
		t.Errorf("a valid example was not served: %v", good)
	}
	bad := object(t, ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/bad", devToken, nil), 200, "bad"))
	if bad["name"] == "from-the-document" {
		t.Errorf("an example the schema rejects was served: %v", bad)
	}
	if _, isNumber := bad["size"].(float64); !isNumber {
		t.Errorf("the generated answer does not fit the schema: %v", bad)
	}
}
