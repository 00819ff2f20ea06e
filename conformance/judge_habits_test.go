package conformance

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// judgedYAML has what the judge must tell apart: the service's nulls
// (optional, non-nullable properties, at any depth, in a discriminated
// oneOf branch) from what the schema refuses anyway.
const judgedYAML = `openapi: 3.0.3
info: {title: Judged, version: "1"}
components:
  schemas:
    Run:
      type: object
      required: [id]
      properties:
        id: {type: string}
        errorMessage: {type: string}
        exitStatus: {type: integer}
        nick: {type: string, nullable: true}
        tags: {type: array, items: {type: string}}
        labels: {type: object, additionalProperties: {type: string}}
        entries: {type: object}
        stats: {$ref: '#/components/schemas/Stats'}
        pet: {$ref: '#/components/schemas/Pet'}
    Stats:
      allOf:
        - type: object
          properties:
            cpu: {type: number}
            mem: {type: number}
        - required: [cpu]
    Pet:
      oneOf:
        - $ref: '#/components/schemas/Cat'
        - $ref: '#/components/schemas/Dog'
      discriminator: {propertyName: kind, mapping: {cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog'}}
    Cat:
      type: object
      required: [kind]
      properties:
        kind: {type: string, enum: [cat]}
        lives: {type: integer}
    Dog:
      type: object
      required: [kind, good]
      properties:
        kind: {type: string, enum: [dog]}
        good: {type: boolean}
paths:
  /runs/{id}:
    get:
      operationId: DescribeRun
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: a run
          content:
            application/json:
              schema:
                type: object
                properties:
                  run: {$ref: '#/components/schemas/Run'}
                  runs: {type: array, items: {$ref: '#/components/schemas/Run'}}
`

// A null for an optional, non-nullable property is the service's habit,
// named by operation and place; anything else the schema refuses (a null
// it requires a value for, in a map or an array, a wrong type) is still a
// problem, and the habits found beside it do not hide it.
func TestJudgeTellsHabitsFromFailures(t *testing.T) {
	d, err := LoadDocument([]byte(judgedYAML))
	if err != nil {
		t.Fatal(err)
	}
	op := d.find("GET", "/runs/x")
	cases := []struct {
		name, body string
		habits     []string // places, in order
		fails      bool
	}{
		{"valid", `{"run":{"id":"a","nick":null}}`, nil, false},
		{"optional scalars", `{"run":{"id":"a","errorMessage":null,"exitStatus":null}}`, []string{"$.run.errorMessage", "$.run.exitStatus"}, false},
		{"optional array and object", `{"run":{"id":"a","tags":null,"stats":null,"pet":null}}`, []string{"$.run.pet", "$.run.stats", "$.run.tags"}, false},
		{"in list items", `{"runs":[{"id":"a","errorMessage":null},{"id":"b","errorMessage":null}]}`, []string{"$.runs[*].errorMessage"}, false},
		{"in an allOf part", `{"run":{"id":"a","stats":{"cpu":1,"mem":null}}}`, []string{"$.run.stats.mem"}, false},
		{"in the branch the discriminator names", `{"run":{"id":"a","pet":{"kind":"cat","lives":null}}}`, []string{"$.run.pet.lives"}, false},
		{"required", `{"run":{"id":null}}`, nil, true},
		{"required by another allOf part", `{"run":{"id":"a","stats":{"cpu":null}}}`, nil, true},
		{"required by the branch", `{"run":{"id":"a","pet":{"kind":"dog","good":null}}}`, nil, true},
		{"a map's value", `{"run":{"id":"a","labels":{"team":null}}}`, nil, true},
		{"an array item", `{"run":{"id":"a","tags":[null]}}`, nil, true},
		{"a list where the schema says only type object", `{"run":{"id":"a","entries":["one","two"]}}`, []string{"$.run.entries"}, false},
		{"a list where the object has its properties", `{"run":{"id":"a","stats":[1]}}`, nil, true},
		{"a wrong type beside a habit", `{"run":{"id":"a","errorMessage":null,"exitStatus":"one"}}`, []string{"$.run.errorMessage"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				a := &answer{req: httptest.NewRequest("GET", "/runs/x", nil), status: 200,
					header: http.Header{"Content-Type": {"application/json"}}, body: []byte(tc.body)}
				problems, habits := d.checkResponse(op, a.req, "/runs/x", a, strict)
				var places []string
				for _, h := range habits {
					if want := map[bool]string{true: HabitAnyObject, false: HabitNull}[strings.HasSuffix(h.Path, ".entries")]; h.Operation != "GET /runs/{id}" || h.Kind != want {
						t.Errorf("habit %+v", h)
					}
					places = append(places, h.Path)
				}
				if !slices.Equal(places, tc.habits) {
					t.Errorf("strict %v: habits %v, want %v", strict, places, tc.habits)
				}
				wantFail := tc.fails || strict && len(tc.habits) > 0
				if (problems != nil) != wantFail {
					t.Errorf("strict %v: problems %v, want a failure: %v", strict, problems, wantFail)
				}
				if strict && len(tc.habits) > 0 && !strings.Contains(strings.Join(problems, "\n"), "GET /runs/{id}: "+tc.habits[0]) {
					t.Errorf("strict: the nulls are not named: %v", problems)
				}
			}
		})
	}
}
