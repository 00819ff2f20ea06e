package validate

import (
	"net/http/httptest"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

const runsYAML = `openapi: 3.0.3
info: {title: runs, version: "1"}
paths:
  /runs:
    post:
      operationId: beginRun
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Begin'}
      responses: {"200": {description: ok}}
components:
  schemas:
    Begin:
      type: object
      properties:
        run: {$ref: '#/components/schemas/Run'}
    Run:
      type: object
      required: [name, submit]
      properties:
        name: {type: string}
        submit: {type: string}
        params:
          type: object
          additionalProperties: {type: object}
`

// A relaxation given to the validator changes the request schemas it
// compiles, and only those: here the two the fake's leniency makes (a
// required property dropped from the component that names it, a bare
// object opened), each checked with and without it.
func TestRequestRelaxation(t *testing.T) {
	doc, ops := loadOps(t, runsYAML)
	var seen []string
	relax := func(n *yaml.Node, component string) {
		if component != "" {
			seen = append(seen, component)
		}
		if component == "Run" {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "required" {
					n.Content[i+1].Content = n.Content[i+1].Content[:1] // name only
				}
			}
		}
		if len(n.Content) == 2 && n.Content[0].Value == "type" && n.Content[1].Value == "object" {
			n.Content = nil
		}
	}
	body := `{"run":{"name":"x","params":{"a":"text","b":1}}}`
	check := func(v *Validator) []string {
		r := httptest.NewRequest("POST", "/api/runs", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return v.Request(r, ops["beginRun"], []byte(body))
	}
	if problems := check(New(doc, "/api")); len(problems) == 0 {
		t.Fatal("without the relaxation the body is valid: the test proves nothing")
	}
	if problems := check(New(doc, "/api", WithRequestRelaxation(relax))); problems != nil {
		t.Errorf("with the relaxation: %v", problems)
	}
	if !strings.Contains(strings.Join(seen, ","), "Run") {
		t.Errorf("the relaxation was told the components %v, want Run among them", seen)
	}
	// Answers are checked as the document says.
	seen = nil
	v := New(doc, "/api", WithRequestRelaxation(relax))
	if problems := v.Answer(ops["beginRun"].Op.RequestBody.Content.First().Value().Schema.Schema(), []byte(body)); problems == nil {
		t.Error("the relaxation reached an answer's schema")
	}
}
