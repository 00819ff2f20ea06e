package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// propertyDocs is how many random documents TestRandomComposedSchemas
// builds; each holds about a dozen component schemas. The race detector
// makes compiling validators several times slower, so CI's -race run
// checks fewer (testenv.RaceEnabled is set by a build-tagged file).
func propertyDocs() int {
	if testenv.RaceEnabled {
		return 30
	}
	return 300
}

// TestRandomComposedSchemas is a property test over schemas nobody wrote:
// random documents whose components nest allOf, oneOf and anyOf, with and
// without discriminators, refer back to themselves through compositions
// and properties, and use nullable and additionalProperties. Every schema
// of every document is satisfiable by construction (oneOf branches carry
// distinct "kind" values, cycles pass through optional properties), so
// for each, in both directions, generation must finish well within its
// bound and yield a value libopenapi-validator accepts.
func TestRandomComposedSchemas(t *testing.T) {
	vl := newValidator()
	schemas := 0
	for n := range propertyDocs() {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		raw, names := randomDocument(r)
		doc, err := spec.Load(raw)
		if err != nil {
			t.Fatalf("document %d does not load: %v\n%s", n, err, raw)
		}
		g := New(WithSeed(int64(n)))
		all := componentSchema(t, doc.Model, wrapper)
		for _, mode := range []Mode{Response, Request} {
			// One value per component, checked at once against the
			// wrapper (one validator compile per document and direction);
			// a refusal is then pinned on its component.
			values := map[string]any{}
			for _, name := range names {
				schemas++
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				v, err := g.ValueContext(ctx, componentSchema(t, doc.Model, name), fmt.Sprint(name, mode), mode)
				cancel()
				if err != nil {
					t.Fatalf("document %d, %s (mode %d): generation did not finish: %v\n%s", n, name, mode, err, raw)
				}
				values[name] = v
			}
			if vl.check(all, values, mode, 3.0) == nil {
				continue
			}
			for _, name := range names {
				if err := vl.check(componentSchema(t, doc.Model, name), values[name], mode, 3.0); err != nil {
					b, _ := json.Marshal(values[name])
					t.Fatalf("document %d, %s (mode %d): the validator refuses %s: %v\n%s", n, name, mode, b, err, raw)
				}
			}
			t.Fatalf("document %d (mode %d): the validator refuses the values together but accepts each\n%s", n, mode, raw)
		}
	}
	t.Logf("%d random documents, %d schema values generated and accepted", propertyDocs(), schemas)
}

// wrapper is the component of every random document that holds one
// property per other component.
const wrapper = "ZZAll"

// randomDocument builds an OpenAPI 3.0 document of random composed
// component schemas and returns it with their names. Three kinds of
// component keep every schema satisfiable:
//   - mixins (M*): plain objects, the bases of allOf; their required
//     properties are primitives, and their optional ones may refer to any
//     component, which is where cycles close;
//   - variants (V*): objects with a required "kind" of a value of their
//     own, written plainly or as allOf of mixins (nested allOf too);
//   - unions (U*): oneOf or anyOf of distinct variants, referred to
//     directly or through another union (anyOf only), with a
//     discriminator on "kind" half of the time.

func randomDocument(r *rand.Rand) ([]byte, []string) {
	nm, nv, nu := 2+r.IntN(3), 3+r.IntN(4), 2+r.IntN(3)
	var names []string
	for i := range nm {
		names = append(names, fmt.Sprintf("M%d", i))
	}
	for i := range nv {
		names = append(names, fmt.Sprintf("V%d", i))
	}
	for i := range nu {
		names = append(names, fmt.Sprintf("U%d", i))
	}
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	pick := func(prefix string, n int) string { return fmt.Sprintf("%s%d", prefix, r.IntN(n)) }

	primitive := func() map[string]any {
		switch r.IntN(6) {
		case 0:
			return map[string]any{"type": "integer", "format": "int64", "minimum": 1}
		case 1:
			return map[string]any{"type": "number", "maximum": 100}
		case 2:
			return map[string]any{"type": "boolean"}
		case 3:
			return map[string]any{"type": "string", "format": "date-time"}
		case 4:
			return map[string]any{"type": "string", "enum": []string{"a", "b", "c"}}
		default:
			return map[string]any{"type": "string", "minLength": 1, "maxLength": 12}
		}
	}
	// optional is a property no value needs: where cycles close.
	optional := func() map[string]any {
		switch r.IntN(7) {
		case 0:
			return ref(names[r.IntN(len(names))])
		case 1:
			return map[string]any{"type": "array", "items": ref(names[r.IntN(len(names))]), "maxItems": 3}
		case 2:
			return map[string]any{"type": "object", "additionalProperties": ref(names[r.IntN(len(names))])}
		case 3:
			return map[string]any{"type": "object", "additionalProperties": primitive()}
		case 4:
			p := primitive()
			p["nullable"] = true
			return p
		case 5:
			return map[string]any{"type": "object", "nullable": true, "additionalProperties": false,
				"properties": map[string]any{"x": primitive()}}
		default:
			return primitive()
		}
	}
	object := func(prefix string, kind string) map[string]any {
		props, required := map[string]any{}, []string{}
		for i := range 1 + r.IntN(3) {
			name := fmt.Sprintf("%s_r%d", prefix, i)
			props[name], required = primitive(), append(required, name)
		}
		for i := range r.IntN(3) {
			props[fmt.Sprintf("%s_o%d", prefix, i)] = optional()
		}
		if kind != "" {
			props["kind"] = map[string]any{"type": "string", "enum": []string{kind}}
			required = append(required, "kind")
		}
		return map[string]any{"type": "object", "properties": props, "required": required}
	}

	schemas := map[string]any{}
	all := map[string]any{}
	for _, name := range names {
		all[name] = ref(name)
	}
	schemas[wrapper] = map[string]any{"type": "object", "properties": all}
	for i := range nm {
		schemas[fmt.Sprintf("M%d", i)] = object(fmt.Sprintf("m%d", i), "")
	}
	for i := range nv {
		name := fmt.Sprintf("V%d", i)
		own := object(fmt.Sprintf("v%d", i), name)
		switch r.IntN(3) {
		case 0:
			schemas[name] = own
		case 1:
			schemas[name] = map[string]any{"allOf": []any{ref(pick("M", nm)), own}}
		default:
			schemas[name] = map[string]any{"allOf": []any{
				map[string]any{"allOf": []any{ref(pick("M", nm)), ref(pick("M", nm))}}, own}}
		}
	}
	for i := range nu {
		perm := r.Perm(nv)[:2+r.IntN(min(nv-1, 3))]
		var branches []any
		mapping := map[string]any{}
		for _, v := range perm {
			name := fmt.Sprintf("V%d", v)
			branches = append(branches, ref(name))
			mapping[name] = "#/components/schemas/" + name
		}
		word := "oneOf"
		if r.IntN(3) == 0 {
			word = "anyOf"
			if i > 0 && r.IntN(2) == 0 {
				branches = append(branches, ref(pick("U", i)))
			}
		}
		u := map[string]any{word: branches}
		if word == "oneOf" && r.IntN(2) == 0 {
			u["discriminator"] = map[string]any{"propertyName": "kind", "mapping": mapping}
		}
		schemas[fmt.Sprintf("U%d", i)] = u
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": "random composed schemas", "version": "1"},
		"paths": map[string]any{"/things": map[string]any{"get": map[string]any{
			"operationId": "GetThing",
			"responses": map[string]any{"200": map[string]any{"description": "a thing",
				"content": map[string]any{"application/json": map[string]any{"schema": ref(names[0])}}}},
		}}},
		"components": map[string]any{"schemas": schemas},
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b, names
}
