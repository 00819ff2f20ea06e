package validate

import (
	"net/http/httptest"
	"testing"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// A 3.0 document's query parameters read as 3.0: nullable is a keyword
// there (the published schema has 16 such parameters, the search of a
// team's members among them), though the validator library compiles every
// parameter as 3.1, where it refuses the keyword. A value of the right
// type is accepted and one of the wrong type still refused.
func TestNullableQueryParameters(t *testing.T) {
	doc, err := spec.Load([]byte(`openapi: 3.0.1
info: {title: Teams, version: "1"}
paths:
  /teams/{teamId}/members:
    get:
      operationId: listMembers
      parameters:
        - {name: teamId, in: path, required: true, schema: {type: integer, format: int64}}
        - {name: search, in: query, schema: {type: string, nullable: true}, explode: false}
        - {name: max, in: query, schema: {type: integer, format: int32, nullable: true}}
      responses:
        "200": {description: members}
`))
	if err != nil {
		t.Fatal(err)
	}
	v := New(doc, "/api", WithRegexpEngine(synth.RegexpEngine))
	op := doc.Operations[0]
	v.Warm(op)
	for target, valid := range map[string]bool{
		"/api/teams/3/members?search=ada%40example.org": true,
		"/api/teams/3/members?search=":                  true,
		"/api/teams/3/members?max=100&search=ada":       true,
		"/api/teams/3/members?max=many":                 false,
	} {
		got := v.Request(httptest.NewRequest("GET", target, nil), op, nil)
		if valid && got != nil {
			t.Errorf("%s refused: %q", target, got)
		}
		if !valid && got == nil {
			t.Errorf("%s accepted", target)
		}
	}
}
