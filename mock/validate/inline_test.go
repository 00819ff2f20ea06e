package validate

import (
	"bytes"
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// inlineYAML has what the inline compile must treat as the library does:
// references (nested, and shared by request and response), read-only and
// write-only properties that are required in one direction only, a 3.0
// nullable, a discriminated oneOf, and a recursive schema, whose reference
// survives inline rendering.
const inlineYAML = `openapi: 3.0.3
info: {title: Inline, version: "1"}
components:
  schemas:
    Account:
      type: object
      required: [id, name, secret, owner]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, minLength: 2}
        secret: {type: string, writeOnly: true}
        nickname: {type: string, nullable: true}
        owner: {$ref: '#/components/schemas/Owner'}
        pet: {$ref: '#/components/schemas/Pet'}
    Owner:
      type: object
      required: [email]
      properties:
        email: {type: string, pattern: "^[^@]+@[^@]+$"}
    Pet:
      oneOf:
        - $ref: '#/components/schemas/Cat'
        - $ref: '#/components/schemas/Dog'
      discriminator: {propertyName: kind}
    Cat:
      type: object
      required: [kind, lives]
      properties:
        kind: {type: string}
        lives: {type: integer, maximum: 9}
    Dog:
      type: object
      required: [kind, good]
      properties:
        kind: {type: string}
        good: {type: boolean}
    Tree:
      type: object
      required: [label]
      properties:
        label: {type: string}
        children: {type: array, items: {$ref: '#/components/schemas/Tree'}}
paths:
  /accounts:
    post:
      operationId: createAccount
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Account'}
      responses:
        "200":
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Account'}
  /trees:
    post:
      operationId: plantTree
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Tree'}
      responses:
        "204": {description: planted}
`

// The inline compile gives the library's verdict on every value, in both
// directions, and steps aside for a recursive schema.
func TestInlineCompileAgreesWithTheLibrary(t *testing.T) {
	doc, ops := loadOps(t, inlineYAML)
	v := New(doc, "/api")
	account := ops["createAccount"].Op.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
	values := []string{
		`{"name":"ann","secret":"s","owner":{"email":"a@b"}}`,
		`{"id":1,"name":"ann","owner":{"email":"a@b"}}`,
		`{"id":1,"name":"ann","secret":"s","owner":{"email":"a@b"}}`,
		`{"name":"a","secret":"s","owner":{"email":"a@b"}}`,
		`{"name":"ann","secret":"s","owner":{"email":"nope"}}`,
		`{"name":"ann","secret":"s","owner":{}}`,
		`{"name":"ann","secret":"s","nickname":null,"owner":{"email":"a@b"}}`,
		`{"name":"ann","secret":"s","owner":{"email":"a@b"},"pet":{"kind":"Cat","lives":3}}`,
		`{"name":"ann","secret":"s","owner":{"email":"a@b"},"pet":{"kind":"Cat","lives":12}}`,
		`{"name":"ann","secret":"s","owner":{"email":"a@b"},"pet":{"kind":"Dog","good":true}}`,
		`{"name":"ann","secret":"s","owner":{"email":"a@b"},"pet":{"kind":"Cow"}}`,
		`{"name":7}`,
		`[]`,
	}
	differ := map[schema_validation.SchemaValidationPurpose]int{}
	for _, purpose := range []schema_validation.SchemaValidationPurpose{
		schema_validation.SchemaValidationPurposeRequestBody, schema_validation.SchemaValidationPurposeResponseBody,
	} {
		inline := compileInline(account, purpose, v.options, v.version)
		if inline == nil {
			t.Fatalf("purpose %v: an acyclic schema was not compiled inline", purpose)
		}
		whole, err := schema_validation.CompileSchemaForValidation(account, purpose, v.options, v.version)
		if err != nil {
			t.Fatal(err)
		}
		var verdicts []bool
		for _, body := range values {
			value, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(body)))
			if err != nil {
				t.Fatal(err)
			}
			got, want := inline.CompiledSchema.Validate(value) == nil, whole.CompiledSchema.Validate(value) == nil
			if got != want {
				t.Errorf("purpose %v, %s: inline says valid=%v, the library %v", purpose, body, got, want)
			}
			verdicts = append(verdicts, got)
		}
		// The values must tell the directions apart, or the test would
		// pass for a compile that ignored the purpose.
		for i, ok := range verdicts {
			if ok {
				differ[purpose] |= 1 << i
			}
		}
	}
	if differ[schema_validation.SchemaValidationPurposeRequestBody] == differ[schema_validation.SchemaValidationPurposeResponseBody] {
		t.Error("request and response verdicts are the same for every value: the directions are not exercised")
	}
	tree := ops["plantTree"].Op.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
	if compileInline(tree, schema_validation.SchemaValidationPurposeRequestBody, v.options, v.version) != nil {
		t.Error("a recursive schema was compiled inline; its reference must go to the library's whole path")
	}
	v.compile(tree, schema_validation.SchemaValidationPurposeRequestBody, v.version)
	if cacheSize(v) != 1 {
		t.Error("the recursive schema was not compiled by the library's path either")
	}
}
