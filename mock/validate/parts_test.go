package validate

import (
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// countCompiles counts the schemas handed to the compiler while the test
// runs.
func countCompiles(t *testing.T) *int {
	n := 0
	compileHook = func(uint64, schema_validation.SchemaValidationPurpose) { n++ }
	t.Cleanup(func() { compileHook = nil })
	return &n
}

// A schema compiled as part of a larger one is not compiled again when it
// is checked on its own (the resources check an answer, then its
// properties), and it judges as a schema compiled on its own does: with
// the service's nulls or without, and for a branch judged in its holder's
// context (Part, whose color Thing requires) as for one judged alone.
func TestSchemaCompiledOnce(t *testing.T) {
	doc, ops := loadOps(t, nullsYAML)
	thing := ops["getThing"].Success.Schema.Schema()
	prop := func(s *base.Schema, name string) *base.Schema {
		p, ok := s.Properties.Get(name)
		if !ok {
			t.Fatalf("no property %s", name)
		}
		return p.Schema()
	}
	details := thing.AllOf[1].Schema()
	owner, tree, pet := prop(details, "owner"), prop(details, "tree"), prop(details, "pet")
	part := thing.AllOf[0].Schema()
	checks := []struct {
		name   string
		schema *base.Schema
		bodies []string
	}{
		{"owner", owner, []string{`{"email":"a@b"}`, `{"email":"a@b","phone":null}`, `{"email":null}`, `{}`}},
		{"tree", tree, []string{`{"label":"a","children":[{"label":"b","note":null}]}`, `{"label":"a","children":[{}]}`}},
		{"pet", pet, []string{`{"kind":"Cat","lives":null}`, `{"kind":null}`, `{"kind":"Cow"}`}},
		{"part", part, []string{`{"color":null}`, `{"color":"red","size":null}`, `{"size":"big"}`}},
	}
	for _, opts := range [][]Option{nil, {WithNulls()}} {
		n := countCompiles(t)
		v := New(doc, "/api", opts...)
		if got := v.Answer(thing, []byte(`{"id":1,"color":"red"}`)); got != nil {
			t.Fatalf("a valid thing refused: %v", got)
		}
		for _, c := range checks {
			for _, body := range c.bodies {
				alone := New(doc, "/api", opts...)
				got, want := v.Answer(c.schema, []byte(body)), alone.Answer(c.schema, []byte(body))
				if (got == nil) != (want == nil) {
					t.Errorf("nulls=%v, %s %s: as a part %v, alone %v", len(opts) > 0, c.name, body, got, want)
				}
			}
		}
		// The thing once, and the alone validators' schemas once each
		// per body; with the nulls, Part too, since the thing holds it
		// only as a copy in context. Nothing more.
		want := 1
		if len(opts) > 0 {
			want++
		}
		for _, c := range checks {
			want += len(c.bodies)
		}
		if *n != want {
			t.Errorf("nulls=%v: %d compiles, want %d: a schema compiled inside another was compiled again", len(opts) > 0, *n, want)
		}
	}
}
