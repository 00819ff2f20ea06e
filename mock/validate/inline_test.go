package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
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
// directions, and compiles a recursive schema too (TestRecursionKeptInDefs
// holds its verdicts to the library's).
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
		inline := compileInline(account, purpose, v.options, v.version, nil)
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
	if compileInline(tree, schema_validation.SchemaValidationPurposeRequestBody, v.options, v.version, nil) == nil {
		t.Error("a recursive schema was not compiled inline (its reference goes into $defs)")
	}
}

// On the service's published schema, every JSON body schema, requests and
// responses, gets the library's verdict from the inline compile: on a
// generated value, on that value with each required property taken out in
// turn (up to five), and on values of the wrong shape. Schemas the inline
// compile leaves to the library are counted, not judged.
func TestInlineCompileAgreesOnThePublishedSchema(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("a sweep on one goroutine: the run without -race covers it")
	}
	doc, err := spec.LoadFile(testenv.PublishedSpec(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	v := New(doc, "/api")
	gen := synth.New(synth.WithSeed(3))
	type body struct {
		schema  *base.Schema
		purpose schema_validation.SchemaValidationPurpose
		mode    synth.Mode
	}
	var bodies []body
	seen := map[uint64]bool{}
	add := func(content *orderedmap.Map[string, *v3.MediaType], purpose schema_validation.SchemaValidationPurpose, mode synth.Mode) {
		if content == nil {
			return
		}
		for m := content.First(); m != nil; m = m.Next() {
			if !spec.IsJSON(m.Key()) || m.Value().Schema == nil {
				continue
			}
			s := m.Value().Schema.Schema()
			if s == nil || s.GoLow() == nil || seen[s.GoLow().Hash()+uint64(purpose)] {
				continue
			}
			seen[s.GoLow().Hash()+uint64(purpose)] = true
			bodies = append(bodies, body{s, purpose, mode})
		}
	}
	for _, op := range doc.Operations {
		if rb := op.Op.RequestBody; rb != nil {
			add(rb.Content, schema_validation.SchemaValidationPurposeRequestBody, synth.Request)
		}
		if op.Op.Responses != nil && op.Op.Responses.Codes != nil {
			for c := op.Op.Responses.Codes.First(); c != nil; c = c.Next() {
				if c.Value() != nil {
					add(c.Value().Content, schema_validation.SchemaValidationPurposeResponseBody, synth.Response)
				}
			}
		}
	}
	inlined, judged, refused := 0, 0, 0
	for i, b := range bodies {
		inline := compileInline(b.schema, b.purpose, v.options, v.version, nil)
		if inline == nil {
			continue
		}
		inlined++
		whole, err := schema_validation.CompileSchemaForValidation(b.schema, b.purpose, v.options, v.version)
		if err != nil {
			t.Errorf("body %d: the library cannot compile what was compiled inline: %v", i, err)
			continue
		}
		for _, value := range variants(gen.Value(b.schema, fmt.Sprint(i), b.mode)) {
			got, want := inline.CompiledSchema.Validate(value) == nil, whole.CompiledSchema.Validate(value) == nil
			judged++
			if !want {
				refused++
			}
			if got != want {
				out, _ := json.Marshal(value)
				t.Errorf("body %d (%v): inline says valid=%v, the library %v, for %.300s", i, b.purpose, got, want, out)
			}
		}
	}
	t.Logf("%d body schemas, %d compiled inline; %d values judged, %d of them refused", len(bodies), inlined, judged, refused)
	if inlined < len(bodies)*3/4 {
		t.Errorf("only %d of %d body schemas compiled inline", inlined, len(bodies))
	}
	if refused == 0 || refused == judged {
		t.Error("the values do not tell valid from invalid: the test proves nothing")
	}
}

// variants returns a value, the value without each of its first five
// properties, and values of other shapes.
func variants(value any) []any {
	out := []any{value, map[string]any{}, []any{}, "text", 7.5, nil}
	if m, ok := value.(map[string]any); ok {
		n := 0
		for k := range m {
			if n++; n > 5 {
				break
			}
			less := maps.Clone(m)
			delete(less, k)
			out = append(out, less)
		}
	}
	// Values go through JSON, as a body would, so they have its types.
	for i, v := range out {
		b, _ := json.Marshal(v)
		out[i], _ = jsonschema.UnmarshalJSON(bytes.NewReader(b))
	}
	return out
}
