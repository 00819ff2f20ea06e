package mock_test

import (
	"encoding/json"
	"testing"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// launchDoc's launch answer has a property besides workflowId, so the
// answer is the synthesized object with the new run's id spliced in.
const launchDoc = `openapi: 3.0.3
info: {title: launches, version: "1"}
security: [{bearer: []}]
paths:
  /workflow/launch:
    post:
      operationId: CreateWorkflowLaunch
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                launch: {type: object, properties: {pipeline: {type: string}}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [workflowId, queue]
                properties:
                  workflowId: {type: string}
                  queue: {type: string, enum: [default]}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
`

// TestLaunchAnswerKeepsTheDocumentsFields: the launch answer carries the
// new run's id once, and every other property the document gives it,
// however many times the same launch is repeated (the rest of the answer
// is cached).
func TestLaunchAnswerKeepsTheDocumentsFields(t *testing.T) {
	doc, err := spec.Load([]byte(launchDoc))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newServer(t, doc)
	seen := map[string]bool{}
	for i := range 3 {
		a := call(t, srv.Handler(), "POST", "/api/workflow/launch", devToken, []byte(`{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`))
		if a.status != 200 {
			t.Fatalf("launch %d: %d %s", i, a.status, a.body)
		}
		var got map[string]any
		if err := json.Unmarshal(a.body, &got); err != nil {
			t.Fatalf("launch %d: %v: %s", i, err, a.body)
		}
		id, _ := got["workflowId"].(string)
		if id == "" || seen[id] || got["queue"] != "default" || len(got) != 2 {
			t.Fatalf("launch %d: %s (ids so far %v)", i, a.body, seen)
		}
		seen[id] = true
	}
}
