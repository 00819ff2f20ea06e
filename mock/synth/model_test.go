package synth_test

import (
	"reflect"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// subtypesDoc has what the two models reach by different keys: a base type
// whose mapping alone names its subtypes, a bare-name target and a
// recursive component.
const subtypesDoc = `openapi: 3.0.1
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  pets: {type: array, minItems: 4, items: {$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet:
      type: object
      required: [kind, owner]
      discriminator:
        propertyName: kind
        mapping:
          cat: '#/components/schemas/Cat'
          dog: Dog
      properties:
        kind: {type: string}
        owner: {$ref: '#/components/schemas/Owner'}
    Cat:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - {type: object, required: [lives], properties: {lives: {type: integer}}}
    Dog:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - {type: object, required: [barks], properties: {barks: {type: boolean}}}
    Owner:
      type: object
      required: [name]
      properties:
        name: {type: string}
        friend: {$ref: '#/components/schemas/Owner'}
`

// A generator given the document (WithDocument: the server's, on the
// model its other readers share) and one given only the document's lock
// (WithGuard: its own detached model) make the same value for every
// answer and request body of the embedded and the published documents.
// The two read references, discriminator targets and names through
// different keys of the model; this catches the day they part.
func TestDocumentAndDetachedAgree(t *testing.T) {
	for _, tc := range []struct {
		name string
		load func() (*spec.Document, error)
	}{
		{"subtypes", func() (*spec.Document, error) { return spec.Load([]byte(subtypesDoc)) }},
		{"embedded", func() (*spec.Document, error) { return spec.Load(fixtures.OpenAPI()) }},
		{"published", func() (*spec.Document, error) { return spec.LoadFile(testenv.PublishedSpec(t, "")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := tc.load()
			if err != nil {
				t.Fatal(err)
			}
			shared := synth.New(synth.WithSeed(3), synth.WithDocument(doc), synth.WithNulls())
			detached := synth.New(synth.WithSeed(3), synth.WithGuard(doc.Guard), synth.WithNulls())
			compared := 0
			for _, op := range doc.Operations {
				var schemas []*base.Schema
				modes := []synth.Mode{}
				doc.Guard(func() {
					if sp := op.Success.Schema; sp != nil {
						schemas, modes = append(schemas, sp.Schema()), append(modes, synth.Response)
					}
					if rb := op.Op.RequestBody; rb != nil && rb.Content != nil {
						for _, m := range rb.Content.FromOldest() {
							if m.Schema != nil {
								schemas, modes = append(schemas, m.Schema.Schema()), append(modes, synth.Request)
							}
						}
					}
				})
				for i, s := range schemas {
					key := op.ID
					a, b := shared.Value(s, key, modes[i]), detached.Value(s, key, modes[i])
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("%s (mode %d): the document's generator made\n%v\nthe detached one\n%v", op.ID, modes[i], a, b)
					}
					compared++
				}
			}
			if compared == 0 {
				t.Fatal("no schema compared")
			}
		})
	}
}
