package spec

import (
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/oasdoc"
	"github.com/wmsmock/wmsmock/internal/testenv"
)

// leafYAML writes the forms a leaf's keywords take, the plain ones and the
// odd ones libopenapi reads in its own way (a tag that is not the type's,
// a number that does not parse, a key in another case, an alias), each
// as one property of Odd.
const leafYAML = `openapi: 3.0.3
info: {title: leaves, version: "1"}
paths:
  /odd:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Odd'}
components:
  schemas:
    Odd:
      type: object
      properties:
        plain: {type: string, format: date-time, description: when}
        bounded: {type: integer, minimum: 1, maximum: 10.5, multipleOf: 2}
        badMultiple: {type: number, multipleOf: 0}
        negMultiple: {type: number, multipleOf: -3}
        lengths: {type: string, minLength: 2, maxLength: 1.5}
        textLength: {type: string, maxLength: abc}
        quotedMin: {type: integer, minimum: "4"}
        sci: {type: number, minimum: 1e3}
        nullType: {type: null}  # libopenapi reads no type from a YAML null
        listType: {type: [string, "null"]}
        unknownType: {type: text}
        nullable: {type: string, nullable: true}
        yesNullable: {type: string, nullable: yes}
        capsBool: {type: string, readOnly: True, writeOnly: FALSE}
        quotedBool: {type: string, readOnly: "true"}
        enums: {type: string, enum: [a, 1, 2.5, true, null, 2024-05-01, {k: v}, [x]]}
        notListEnum: {type: string, enum: a}
        values: {type: string, example: e, default: d, const: c}
        examples: {type: integer, examples: [3, 4]}
        emptyExamples: {type: integer, examples: []}
        nullExample: {type: string, example: null, const: null}
        extended: {type: string, x-note: {deep: [1, 2]}, deprecated: true, title: T}
        numericFormat: {type: string, format: 123, pattern: 456}
        bareObject: {type: object, description: any JSON}
        noKeywords: {}
        caps: {type: string, MaxLength: 3}
        anchored: &anchor {type: string, maxLength: 4}
        aliased: *anchor
        aliasValue: {type: string, example: *anchor}
        exclusive: {type: number, minimum: 1, exclusiveMinimum: true}
        withItems: {type: array, items: {type: string}}
        ref: {$ref: '#/components/schemas/Odd'}
`

// TestLeavesReadAsLibopenapiBuilds holds a leaf's reading of its YAML to
// what building libopenapi's schema and reading that gives, for every
// inline schema the documents write that is read as a leaf: the odd forms
// above, the embedded document, and the published schemas where they
// are. It also checks which of the odd forms are leaves at all.
func TestLeavesReadAsLibopenapiBuilds(t *testing.T) {
	type source struct {
		name string
		doc  func(t *testing.T) *Document
	}
	sources := []source{
		{"odd forms", func(t *testing.T) *Document { return load(t, leafYAML) }},
		{"embedded", func(t *testing.T) *Document { return load(t, string(fixtures.OpenAPI())) }},
	}
	for _, f := range []string{"seqera-api-cloud.yaml", "seqera-api-1.140.0.yaml"} {
		sources = append(sources, source{f, func(t *testing.T) *Document {
			b, err := os.ReadFile(testenv.PublishedSpec(t, f))
			if err != nil {
				t.Fatal(err)
			}
			return load(t, string(b))
		}})
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			d := src.doc(t)
			leaves, built := 0, 0
			for p := range inlineProxies(d) {
				if !leafNode(p.GetValueNode()) {
					built++
					continue
				}
				leaves++
				fast := (&compiler{doc: d, memo: map[any]*Schema{}}).leaf(p)
				c := &compiler{doc: d, memo: map[any]*Schema{}}
				slow := c.schema(oasdoc.Schema(p), "")
				if slow == nil {
					t.Errorf("%s: libopenapi builds nothing for a leaf", where(p))
					continue
				}
				c.expand(slow)
				if got, want := reading(fast), reading(slow); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: read as a leaf\n%+v\nbuilt by libopenapi\n%+v", where(p), got, want)
				}
			}
			if leaves == 0 || built == 0 {
				t.Fatalf("%d leaves and %d built schemas: the walk found too little to check", leaves, built)
			}
			t.Logf("%d inline schemas read as leaves, %d built by libopenapi", leaves, built)
		})
	}

	d := load(t, leafYAML)
	odd := d.Component("Odd")
	notLeaves := map[string]bool{
		"nullType": true, "caps": true, "anchored": false, "aliased": true, "aliasValue": true, "exclusive": true,
		"withItems": true, "ref": true, "notListEnum": true,
	}
	for _, p := range odd.Own() {
		if p.Schema == nil {
			t.Fatalf("property %s did not compile", p.Name)
		}
		if isLeaf := p.Schema.src != nil; isLeaf == notLeaves[p.Name] {
			t.Errorf("property %s: read as a leaf %v, want %v", p.Name, isLeaf, !notLeaves[p.Name])
		}
	}
}

// TestLeafBuildsItsLibraryLate checks what leaves are for: compiling an
// object leaves its scalar properties' libopenapi schemas unbuilt until a
// caller asks for one, which then is the schema libopenapi's own proxy
// gives, and Document.Schema of it is the leaf.
func TestLeafBuildsItsLibraryLate(t *testing.T) {
	d := load(t, leafYAML)
	plain := d.Component("Odd").Prop("plain")
	if plain == nil || plain.src == nil {
		t.Fatal("plain is not a leaf")
	}
	if plain.libDone.Load() || plain.lib != nil {
		t.Fatal("a leaf's libopenapi schema was built before anyone asked for it")
	}
	if plain.Format != "date-time" || !plain.HasType(String) {
		t.Errorf("plain reads %+v", reading(plain))
	}
	// Another reader has libopenapi build it first, through the parent.
	var fromParent *base.Schema
	d.Guard(func() { fromParent = d.Component("Odd").Lib().Properties.GetOrZero("plain").Schema() })
	if d.Schema(fromParent) != plain {
		t.Error("Document.Schema of the schema libopenapi built for a leaf is another Schema")
	}
	lib := plain.Lib()
	if lib == nil || lib != fromParent || lib != plain.src.Schema() {
		t.Fatalf("Lib gave %p; libopenapi built %p, the proxy gives %p", lib, fromParent, plain.src.Schema())
	}
	if lib.Format != "date-time" {
		t.Errorf("the built schema has format %q", lib.Format)
	}
	if d.Schema(lib) != plain {
		t.Error("Document.Schema of a leaf's built schema is another schema")
	}
	if !plain.Same(d.Component("Odd").Prop("plain")) {
		t.Error("a leaf is not the same as itself")
	}
}

// leafReading is what a reader sees of a schema without its children.
type leafReading struct {
	Types                             Types
	Nullable, HasConst, HasMultipleOf bool
	Format, Pattern                   string
	Enum                              []any
	MultipleOf, Min, Max              float64
	HasMin, HasMax, ExclMin, ExclMax  bool
	MinLength, MaxLength              int64
	ItemsKeyword, HasNot, Bare        bool
	OwnRequired, Required             []string
	Additional                        Additional
	ReadOnly, WriteOnly               bool
	Object, Declares, Plain, IsArray  bool
	More                              More
	Props                             int
	Children                          int
}

func reading(s *Schema) leafReading {
	return leafReading{
		Types: s.Types, Nullable: s.Nullable, HasConst: s.HasConst, HasMultipleOf: s.HasMultipleOf,
		Format: s.Format, Pattern: s.Pattern, Enum: s.Enum,
		MultipleOf: s.MultipleOf, Min: s.Min, Max: s.Max,
		HasMin: s.HasMin, HasMax: s.HasMax, ExclMin: s.ExclMin, ExclMax: s.ExclMax,
		MinLength: s.MinLength, MaxLength: s.MaxLength,
		ItemsKeyword: s.ItemsKeyword, HasNot: s.HasNot, Bare: s.Bare,
		OwnRequired: s.OwnRequired, Required: s.RequiredNames(), Additional: s.Additional,
		ReadOnly: s.ReadOnly(), WriteOnly: s.WriteOnly(),
		Object: s.IsObject(), Declares: s.DeclaresProps(), Plain: s.Plain(), IsArray: s.IsArray(),
		More: *s.More(), Props: len(s.Props()),
		Children: len(s.AllOf()) + len(s.Branches()) + len(s.Own()) + boolInt(s.Items() != nil) + boolInt(s.Not() != nil) + boolInt(s.AdditionalSchema() != nil) + boolInt(s.Discriminator() != nil),
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func where(p *base.SchemaProxy) string {
	if n := p.GetValueNode(); n != nil {
		return "line " + strconv.Itoa(n.Line)
	}
	return "a schema"
}

// inlineProxies yields every inline (not $ref) schema proxy the document
// reaches from its components and operations, each once, building
// libopenapi's schemas as it walks.
func inlineProxies(d *Document) func(yield func(*base.SchemaProxy) bool) {
	return func(yield func(*base.SchemaProxy) bool) {
		seen := map[*base.SchemaProxy]bool{}
		walked := map[*base.Schema]bool{}
		var walk func(p *base.SchemaProxy) bool
		walkSchema := func(s *base.Schema) bool {
			if s == nil || walked[s] {
				return true
			}
			walked[s] = true
			var kids []*base.SchemaProxy
			if s.Items != nil && s.Items.IsA() {
				kids = append(kids, s.Items.A)
			}
			for _, p := range s.Properties.FromOldest() {
				kids = append(kids, p)
			}
			if s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
				kids = append(kids, s.AdditionalProperties.A)
			}
			kids = append(kids, s.AllOf...)
			kids = append(kids, s.OneOf...)
			kids = append(kids, s.AnyOf...)
			kids = append(kids, s.PrefixItems...)
			if s.Not != nil {
				kids = append(kids, s.Not)
			}
			if s.PropertyNames != nil {
				kids = append(kids, s.PropertyNames)
			}
			for _, p := range s.PatternProperties.FromOldest() {
				kids = append(kids, p)
			}
			for _, k := range kids {
				if !walk(k) {
					return false
				}
			}
			return true
		}
		walk = func(p *base.SchemaProxy) bool {
			if p == nil || seen[p] {
				return true
			}
			seen[p] = true
			if !p.IsReference() && !yield(p) {
				return false
			}
			return walkSchema(oasdoc.Schema(p))
		}
		m := d.Model
		if m.Components != nil {
			for _, p := range m.Components.Schemas.FromOldest() {
				if !walk(p) {
					return
				}
			}
		}
		for _, op := range d.Operations {
			for _, prm := range op.Op.Parameters {
				if !walk(prm.Schema) {
					return
				}
			}
			if rb := op.Op.RequestBody; rb != nil && rb.Content != nil {
				for _, mt := range rb.Content.FromOldest() {
					if !walk(mt.Schema) {
						return
					}
				}
			}
			if op.Op.Responses != nil && op.Op.Responses.Codes != nil {
				for _, r := range op.Op.Responses.Codes.FromOldest() {
					if r.Content == nil {
						continue
					}
					for _, mt := range r.Content.FromOldest() {
						if !walk(mt.Schema) {
							return
						}
					}
				}
			}
		}
	}
}
