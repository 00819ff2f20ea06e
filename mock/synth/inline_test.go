package synth

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// keywordSpec31 exercises every keyword the generator honours, written for
// OpenAPI 3.1 (type arrays, const, prefixItems, patternProperties,
// propertyNames, numeric exclusive bounds).
const keywordSpec31 = `
openapi: 3.1.0
info: {title: synth keywords, version: "1"}
paths: {}
components:
  schemas:
    Scalars:
      type: object
      required: [id, runId, count, ratio, when, day, tags, status, level, flag, fixed, maybe]
      properties:
        id: {type: string, maxLength: 16}
        runId: {type: integer, format: int64, minimum: 1}
        count: {type: integer, format: int32, minimum: 10, maximum: 20, multipleOf: 5}
        bigInt32: {type: integer, format: int32}
        ratio: {type: number, format: float, exclusiveMinimum: 0, exclusiveMaximum: 1}
        price: {type: number, format: double, multipleOf: 0.25, minimum: 1}
        step: {type: number, multipleOf: 0.01, minimum: 0.5, maximum: 0.6}
        when: {type: string, format: date-time}
        day: {type: string, format: date}
        at: {type: string, format: time}
        contact: {type: string, format: email}
        homepage: {type: string, format: uri}
        link: {type: string, format: url}
        token: {type: string, format: uuid}
        host: {type: string, format: hostname}
        ip: {type: string, format: ipv4}
        ip6: {type: string, format: ipv6}
        blob: {type: string, format: byte}
        file: {type: string, format: binary}
        code: {type: string, minLength: 30, maxLength: 32}
        short: {type: string, maxLength: 3}
        slug: {type: string, pattern: '^[a-z][a-z0-9-]{2,10}$'}
        user: {type: string, pattern: '^[a-zA-Z\d](?:[a-zA-Z\d]|[-_](?=[a-zA-Z\d])){1,38}$'}
        ident: {type: string, pattern: '^[a-zA-Z_](?:[0-9A-Za-z]+|(_)(?!\1)){1,49}$'}
        free: {type: string, pattern: ''}
        tags:
          type: array
          minItems: 2
          maxItems: 4
          uniqueItems: true
          items: {type: string, enum: [a, b, c, d, e]}
        status: {type: string, enum: [SUBMITTED, RUNNING, SUCCEEDED]}
        level: {enum: [1, 2.5, true, null, "x"]}
        flag: {type: boolean}
        fixed: {const: fixed-value}
        maybe: {type: [string, "null"]}
        either: {type: [integer, string]}
        example: {type: string, example: from-the-example}
        defaulted: {type: integer, default: 7, minimum: 7, maximum: 7}
        notEmpty: {type: string, not: {const: ""}}
        pair:
          type: array
          prefixItems: [{type: string}, {type: integer}]
          items: false
    Secrets:
      type: object
      required: [name, password, created]
      properties:
        name: {type: string}
        password: {type: string, writeOnly: true}
        created: {type: string, format: date-time, readOnly: true}
    Maps:
      type: object
      minProperties: 1
      properties:
        labels:
          type: object
          additionalProperties: {type: string, maxLength: 20}
        closed:
          type: object
          additionalProperties: false
          properties:
            a: {type: integer}
        open:
          type: object
          additionalProperties: true
        sized:
          type: object
          minProperties: 3
          maxProperties: 4
          additionalProperties: {type: integer}
        capped:
          type: object
          maxProperties: 1
          required: [x]
          properties:
            x: {type: string}
            y: {type: string}
            z: {type: string}
        patterned:
          type: object
          patternProperties:
            '^x-[a-z]+$': {type: integer}
          additionalProperties: false
        named:
          type: object
          propertyNames: {pattern: '^[A-Z]{3}$'}
          additionalProperties: {type: boolean}
    Tree:
      type: object
      required: [name, children]
      properties:
        name: {type: string}
        children:
          type: array
          items: {$ref: '#/components/schemas/Tree'}
        parent: {$ref: '#/components/schemas/Tree'}
    Chain:
      type: object
      required: [next]
      properties:
        next:
          anyOf:
            - {$ref: '#/components/schemas/Chain'}
            - {type: 'null'}
    Pet:
      type: object
      required: [petType]
      properties:
        petType: {type: string}
        name: {type: string}
      discriminator:
        propertyName: petType
        mapping:
          cat: '#/components/schemas/Cat'
          dog: '#/components/schemas/Dog'
    Cat:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - type: object
          properties:
            lives: {type: integer, minimum: 1, maximum: 9}
    Dog:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - type: object
          required: [bark]
          properties:
            bark: {type: string, enum: [woof, yap]}
    Shape:
      oneOf:
        - $ref: '#/components/schemas/Circle'
        - $ref: '#/components/schemas/Square'
      discriminator:
        propertyName: kind
    Circle:
      type: object
      required: [kind]
      properties:
        kind: {type: string}
        radius: {type: number}
    Square:
      type: object
      required: [kind]
      properties:
        kind: {type: string}
        side: {type: number}
    Vehicle:
      type: object
      properties:
        wheels: {type: integer}
      discriminator:
        propertyName: vehicleType
        mapping:
          bike: '#/components/schemas/Bike'
          car: '#/components/schemas/Car'
      oneOf:
        - $ref: '#/components/schemas/Bike'
        - $ref: '#/components/schemas/Car'
    Bike:
      allOf:
        - $ref: '#/components/schemas/Vehicle'
        - type: object
          required: [vehicleType]
          properties:
            vehicleType: {type: string}
            gears: {type: integer}
    Car:
      allOf:
        - $ref: '#/components/schemas/Vehicle'
        - type: object
          required: [vehicleType]
          properties:
            vehicleType: {type: string}
            doors: {type: integer, minimum: 2, maximum: 5}
    Merged:
      allOf:
        - type: object
          required: [a]
          properties:
            a: {type: string, minLength: 2}
            shared: {type: integer, minimum: 0}
        - type: object
          required: [b]
          properties:
            b: {type: integer}
            shared: {type: integer, maximum: 3}
    AnyThing:
      anyOf:
        - {type: string, format: date}
        - {type: integer, minimum: 100}
    Contradiction:
      type: integer
      minimum: 10
      maximum: 5
`

// keywordSpec30 covers what only OpenAPI 3.0 spells: nullable and boolean
// exclusiveMinimum/exclusiveMaximum.
const keywordSpec30 = `
openapi: 3.0.3
info: {title: synth 3.0 keywords, version: "1"}
paths:
  /things:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
      responses:
        '200': {description: ok}
components:
  schemas:
    Thing:
      type: object
      required: [id, note, score, label]
      properties:
        id: {type: integer, format: int64, readOnly: true}
        note: {type: string, nullable: true}
        score: {type: number, minimum: 0, maximum: 10, exclusiveMinimum: true, exclusiveMaximum: true}
        label: {type: string, enum: [x, y], nullable: true}
        secret: {type: string, writeOnly: true}
        lastUsed: {type: string, format: date-time, nullable: true}
        owner:
          nullable: true
          allOf:
            - $ref: '#/components/schemas/Owner'
    Owner:
      type: object
      required: [email]
      properties:
        email: {type: string, format: email}
`

// TestInlineSpecsValidate checks values for hand-written schemas covering
// every supported keyword, so the package is tested even where the
// published schema is not available.
func TestInlineSpecsValidate(t *testing.T) {
	for _, spec := range []string{keywordSpec31, keywordSpec30} {
		d := loadSpec(t, []byte(spec))
		version := specVersion(d)
		vl := newValidator()
		for name, p := range d.Components.Schemas.FromOldest() {
			// Contradiction has no valid value. Vehicle/Bike/Car (a base whose
			// oneOf lists subtypes that allOf the base) is a $ref cycle the
			// JSON Schema validator refuses to compile; TestKeywordSemantics
			// covers its values instead.
			if name == "Contradiction" || name == "Vehicle" || name == "Bike" || name == "Car" {
				continue
			}
			s := p.Schema()
			for seed := int64(0); seed < 40; seed++ {
				g := New(WithSeed(seed))
				for _, mode := range []Mode{Response, Request} {
					key := fmt.Sprintf("%s/%d", name, mode)
					v := g.value(bg, s, key, mode)
					if err := vl.check(s, v, mode, version); err != nil {
						t.Fatalf("%s seed %d mode %d: %v\nvalue: %s", name, seed, mode, err, mustJSON(t, v))
					}
				}
			}
		}
	}
}

func inlineDoc(t *testing.T) *v3.Document { return loadSpec(t, []byte(keywordSpec31)) }

// TestKeywordSemantics checks the behaviour validity alone does not pin
// down: direction-dependent properties, closed maps, discriminator values,
// bounded recursion and best effort on impossible schemas.
func TestKeywordSemantics(t *testing.T) {
	d := inlineDoc(t)
	obj := func(v any) map[string]any {
		t.Helper()
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("want an object, got %T %v", v, v)
		}
		return m
	}
	tests := []struct {
		name   string
		schema string
		mode   Mode
		check  func(t *testing.T, v any) string // returns a complaint or ""
	}{
		{"writeOnly omitted from responses", "Secrets", Response, func(t *testing.T, v any) string {
			if _, ok := obj(v)["password"]; ok {
				return "password present"
			}
			return ""
		}},
		{"readOnly omitted from requests", "Secrets", Request, func(t *testing.T, v any) string {
			if _, ok := obj(v)["created"]; ok {
				return "created present"
			}
			if _, ok := obj(v)["password"]; !ok {
				return "required writeOnly password missing from request"
			}
			return ""
		}},
		{"closed objects get no extra keys", "Maps", Response, func(t *testing.T, v any) string {
			if c, ok := obj(v)["closed"].(map[string]any); ok {
				for k := range c {
					if k != "a" {
						return "extra key " + k
					}
				}
			}
			return ""
		}},
		{"base type picks a subtype and labels it", "Pet", Response, func(t *testing.T, v any) string {
			m := obj(v)
			switch m["petType"] {
			case "cat":
				if _, ok := m["bark"]; ok {
					return "cat barks"
				}
			case "dog":
				if _, ok := m["bark"]; !ok {
					return "dog without required bark"
				}
			default:
				return fmt.Sprintf("petType %v is not a mapping key", m["petType"])
			}
			return ""
		}},
		{"subtype referencing its base keeps its own label", "Cat", Response, func(t *testing.T, v any) string {
			if obj(v)["petType"] != "cat" {
				return fmt.Sprintf("petType %v", obj(v)["petType"])
			}
			return ""
		}},
		{"implicit mapping uses the component name", "Shape", Response, func(t *testing.T, v any) string {
			m := obj(v)
			if k := m["kind"]; k != "Circle" && k != "Square" {
				return fmt.Sprintf("kind %v", k)
			}
			// A square may carry "radius": null: that is what stops it also
			// matching Circle, since neither branch is closed.
			if r, ok := m["radius"]; ok && r != nil && m["kind"] != "Circle" {
				return "radius on a non-circle"
			}
			return ""
		}},
		{"oneOf over allOf subtypes labels the branch", "Vehicle", Response, func(t *testing.T, v any) string {
			m := obj(v)
			if k := m["vehicleType"]; k != "bike" && k != "car" {
				return fmt.Sprintf("vehicleType %v", k)
			}
			return ""
		}},
		{"recursion is bounded", "Tree", Response, func(t *testing.T, v any) string {
			if d := depthOf(v); d > 2*(6+hardDepthSlack) {
				return fmt.Sprintf("depth %d", d)
			}
			return ""
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := componentSchema(t, d, tc.schema)
			for seed := int64(0); seed < 30; seed++ {
				v := New(WithSeed(seed)).value(bg, s, "k", tc.mode)
				if msg := tc.check(t, v); msg != "" {
					t.Fatalf("seed %d: %s\nvalue: %s", seed, msg, mustJSON(t, v))
				}
			}
		})
	}

	t.Run("readOnly appears in responses", func(t *testing.T) {
		s := componentSchema(t, d, "Secrets")
		if _, ok := obj(New().value(bg, s, "k", Response))["created"]; !ok {
			t.Fatal("required readOnly property missing from a response")
		}
	})
	t.Run("contradictions give a value, not a panic", func(t *testing.T) {
		s := componentSchema(t, d, "Contradiction")
		if _, ok := New().Value(s, "k", Response).(int64); !ok {
			t.Fatal("want an integer")
		}
	})
	t.Run("nil schema gives an empty object", func(t *testing.T) {
		if m, ok := New().Value(nil, "k", Response).(map[string]any); !ok || len(m) != 0 {
			t.Fatal("want {}")
		}
	})
	t.Run("depth limit trims optional properties", func(t *testing.T) {
		s := componentSchema(t, d, "Tree")
		shallow := New(WithMaxDepth(1)).value(bg, s, "k", Response)
		if depthOf(shallow) > 4 {
			t.Fatalf("max depth 1 gave depth %d: %s", depthOf(shallow), mustJSON(t, shallow))
		}
		if _, ok := obj(shallow)["children"]; !ok {
			t.Fatal("required property dropped at the depth limit")
		}
	})
	t.Run("additionalProperties schema gives 0-2 entries", func(t *testing.T) {
		s := componentSchema(t, d, "Maps")
		sizes := map[int]bool{}
		for seed := int64(0); seed < 40; seed++ {
			if labels, ok := obj(New(WithSeed(seed)).value(bg, s, "k", Response))["labels"].(map[string]any); ok {
				sizes[len(labels)] = true
			}
		}
		if !sizes[1] || !sizes[2] || sizes[3] {
			t.Fatalf("label map sizes seen: %v", sizes)
		}
	})
}

func depthOf(v any) int {
	best := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			best = max(best, depthOf(e))
		}
		return best + 1
	case []any:
		for _, e := range x {
			best = max(best, depthOf(e))
		}
		return best + 1
	}
	return 0
}

// TestUnresolvableReference checks that a $ref nothing can resolve (here
// in a schema built in code, as libopenapi refuses to build a document
// with one) yields an empty object instead of a panic.
func TestUnresolvableReference(t *testing.T) {
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("missing", base.CreateSchemaProxyRef("#/components/schemas/DoesNotExist"))
	props.Set("name", base.CreateSchemaProxy(&base.Schema{Type: []string{"string"}}))
	s := &base.Schema{Type: []string{"object"}, Required: []string{"missing", "name"}, Properties: props}
	v := New().Value(s, "k", Response)
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("got %T", v)
	}
	if inner, ok := m["missing"].(map[string]any); !ok || len(inner) != 0 {
		t.Fatalf("unresolved ref gave %s, want {}", mustJSON(t, m["missing"]))
	}
	if _, ok := m["name"].(string); !ok {
		t.Fatalf("sibling of an unresolved ref: %s", mustJSON(t, m))
	}
}

// bg is the context of generations that have no deadline.
var bg = context.Background()

// A generation whose context is done stops and says why, instead of
// finishing a value nobody will read; with a live context the same schema
// gives the same value as Value.
func TestValueContextStops(t *testing.T) {
	d := inlineDoc(t)
	s := componentSchema(t, d, "Tree")
	g := New(WithMaxDepth(12))
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if v, err := g.ValueContext(ctx, s, "k", Response); !errors.Is(err, context.Canceled) || v != nil {
		t.Fatalf("cancelled generation gave %v, %v; want nil and context.Canceled", mustJSON(t, v), err)
	}
	v, err := g.ValueContext(bg, s, "k", Response)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, v), mustJSON(t, g.Value(s, "k", Response)); got != want {
		t.Fatalf("ValueContext and Value differ:\n%s\n%s", got, want)
	}
}

// Compositions that refer back to themselves without descending into the
// value (Loop -> A -> Loop, Loop -> B -> Loop) used to be checked by
// unfolding them to a fixed depth, two branches per level: 2^24 paths for
// one string. Each node is now judged once per value, so the check ends at
// once and generation for such a schema finishes.
func TestSelfReferentialCompositionsCheckLinearly(t *testing.T) {
	d := loadSpec(t, []byte(`openapi: 3.1.0
info: {title: loops, version: "1"}
paths: {}
components:
  schemas:
    Loop:
      oneOf:
        - $ref: '#/components/schemas/A'
        - $ref: '#/components/schemas/B'
    A:
      anyOf:
        - $ref: '#/components/schemas/Loop'
        - {type: string}
        - $ref: '#/components/schemas/B'
    B:
      anyOf:
        - $ref: '#/components/schemas/Loop'
        - {type: integer}
        - $ref: '#/components/schemas/A'
`))
	s := componentSchema(t, d, "Loop")
	g := New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		matches(g.node(s), "x", Response, 0)
		g.ValueContext(bg, s, "k", Response)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("checking a string against self-referential compositions did not end within a minute")
	}
}
