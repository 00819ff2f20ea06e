package validate

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"
)

// nullsYAML has every place a null may or may not go: required and
// optional properties, a map, array items, an object with no other keys
// allowed, a property declared in one allOf part and required by another,
// a discriminated oneOf, and a recursive schema.
const nullsYAML = `openapi: 3.0.3
info: {title: Nulls, version: "1"}
components:
  schemas:
    Thing:
      allOf:
        - $ref: '#/components/schemas/Part'
        - type: object
          required: [id, color]
          properties:
            id: {type: integer}
            note: {type: string}
            tags: {type: array, items: {type: string}}
            labels: {type: object, additionalProperties: {type: string}}
            closed: {type: object, additionalProperties: false, properties: {a: {type: string}}}
            owner: {$ref: '#/components/schemas/Owner'}
            pet: {$ref: '#/components/schemas/Pet'}
            tree: {$ref: '#/components/schemas/Tree'}
            nick: {type: string, nullable: true}
            mood: {type: string, enum: [calm, busy]}
    Part:
      type: object
      properties:
        color: {type: string}
        size: {type: integer}
    Owner:
      type: object
      required: [email]
      properties:
        email: {type: string}
        phone: {type: string}
    Pet:
      oneOf:
        - $ref: '#/components/schemas/Cat'
        - $ref: '#/components/schemas/Dog'
      discriminator: {propertyName: kind}
    Cat:
      type: object
      properties:
        kind: {type: string, enum: [Cat]}
        lives: {type: integer}
    Dog:
      type: object
      properties:
        kind: {type: string, enum: [Dog]}
        good: {type: boolean}
    Tree:
      type: object
      required: [label]
      properties:
        label: {type: string}
        note: {type: string}
        children: {type: array, items: {$ref: '#/components/schemas/Tree'}}
paths:
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: a thing
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
`

// WithNulls takes a null exactly where the service sends one (a declared
// property nothing requires) and nowhere else; without it the document's
// own rules hold, and the same nulls are refused.
func TestNullsWhereTheServiceSendsThem(t *testing.T) {
	doc, ops := loadOps(t, nullsYAML)
	op := ops["getThing"]
	thing := op.Success.Schema.Schema()
	const base = `"id":1,"color":"red"`
	cases := []struct {
		name, body string
		withNulls  bool // the verdict WithNulls; without it, a value with a null is refused
	}{
		{"no null", `{` + base + `}`, true},
		{"optional scalar", `{` + base + `,"note":null,"size":null,"mood":null}`, true},
		{"optional array and object", `{` + base + `,"tags":null,"labels":null,"owner":null,"pet":null,"tree":null}`, true},
		{"optional in a nested object", `{` + base + `,"owner":{"email":"a@b","phone":null}}`, true},
		{"optional in a oneOf branch", `{` + base + `,"pet":{"kind":"Cat","lives":null}}`, true},
		{"optional in a recursive schema", `{` + base + `,"tree":{"label":"a","note":null,"children":[{"label":"b","note":null,"children":null}]}}`, true},
		{"required", `{"id":null,"color":"red"}`, false},
		{"required by another allOf part", `{"id":1,"color":null}`, false},
		{"required in a nested object", `{` + base + `,"owner":{"email":null}}`, false},
		{"required in a recursive schema", `{` + base + `,"tree":{"label":"a","children":[{"label":null}]}}`, false},
		{"the discriminator", `{` + base + `,"pet":{"kind":null,"lives":1}}`, false},
		{"an array item", `{` + base + `,"tags":["a",null]}`, false},
		{"a map's value", `{` + base + `,"labels":{"team":null}}`, false},
		{"a key a closed object does not declare", `{` + base + `,"closed":{"b":null}}`, false},
		{"a wrong type is not a null", `{` + base + `,"note":5}`, false},
		{"a value outside an enum is not a null", `{` + base + `,"mood":"angry"}`, false},
	}
	strict, lenient := New(doc, "/api"), New(doc, "/api", WithNulls())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []struct {
				name string
				v    *Validator
				want bool
			}{{"WithNulls", lenient, tc.withNulls}, {"strict", strict, tc.withNulls && tc.name == "no null"}} {
				got := v.v.Answer(thing, []byte(tc.body))
				if (got == nil) != v.want {
					t.Errorf("%s: Answer says %v, want valid=%v", v.name, got, v.want)
				}
				resp := v.v.Response(httptest.NewRequest("GET", "/api/things/x", nil), op, response(200, "application/json", tc.body))
				if (resp == nil) != v.want {
					t.Errorf("%s: Response says %v, want valid=%v", v.name, resp, v.want)
				}
			}
		})
	}
	// A nullable property takes null with or without the option.
	if got := strict.Answer(thing, []byte(`{`+base+`,"nick":null}`)); got != nil {
		t.Errorf("strict: a nullable property refuses null: %v", got)
	}
}

// Requests are judged as the document says, with or without the option.
func TestNullsNotInRequests(t *testing.T) {
	doc, ops := loadOps(t, inlineYAML)
	v := New(doc, "/api", WithNulls())
	body := `{"name":"ann","secret":"s","owner":{"email":"a@b"},"pet":null}`
	r := httptest.NewRequest("POST", "/api/accounts", nil)
	r.Header.Set("Content-Type", "application/json")
	if got := v.Request(r, ops["createAccount"], []byte(body)); got == nil {
		t.Error("a request with a null for an optional property was accepted")
	}
}

// A recursive reference is kept as a reference into the schema's own
// $defs, rewritten or not; unchanged, it judges as the library does.
func TestRecursionKeptInDefs(t *testing.T) {
	doc, ops := loadOps(t, inlineYAML)
	v := New(doc, "/api")
	tree := ops["plantTree"].Op.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
	purpose := schema_validation.SchemaValidationPurposeRequestBody
	inline := compileInline(tree, purpose, v.options, v.version, nil, func(*yaml.Node) {})
	if inline == nil {
		t.Fatal("a recursive schema to rewrite was not compiled inline")
	}
	if !strings.Contains(string(inline.RenderedJSON), defsPrefix) {
		t.Errorf("no reference into $defs in %s", inline.RenderedJSON)
	}
	whole, err := schema_validation.CompileSchemaForValidation(tree, purpose, v.options, v.version)
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"label":"a"}`,
		`{"label":"a","children":[{"label":"b","children":[{"label":"c"}]}]}`,
		`{"label":"a","children":[{"label":"b","children":[{}]}]}`,
		`{"label":"a","children":[{"label":"b","children":[{"label":7}]}]}`,
		`{"children":[]}`,
	} {
		value, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := inline.CompiledSchema.Validate(value) == nil, whole.CompiledSchema.Validate(value) == nil; got != want {
			t.Errorf("%s: inline says valid=%v, the library %v", body, got, want)
		}
	}
}
