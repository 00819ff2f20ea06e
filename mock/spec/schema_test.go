package spec

import (
	"reflect"
	"sync"
	"testing"
)

const modelYAML = `openapi: 3.0.3
info: {title: model, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/PetList'}
components:
  schemas:
    PetList:
      type: object
      properties:
        total: {type: integer}
        pets:
          type: array
          items: {$ref: '#/components/schemas/Pet'}
    Named:
      type: object
      required: [name]
      properties:
        name: {type: string, maxLength: 20}
        id: {type: string, readOnly: true}
    Pet:
      allOf:
        - $ref: '#/components/schemas/Named'
        - type: object
          required: [kind]
          properties:
            kind: {type: string, enum: [dog, cat]}
            name: {type: integer}
            secret: {type: string, writeOnly: true}
            note: {type: string, nullable: true}
            age: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 30}
      properties:
        tag: {type: string}
    Node:
      type: object
      properties:
        child: {$ref: '#/components/schemas/Node'}
        kids:
          type: array
          items: {$ref: '#/components/schemas/Node'}
    Maps:
      type: object
      properties:
        absent: {type: object}
        open: {type: object, additionalProperties: true}
        closed: {type: object, additionalProperties: false}
        typed: {type: object, additionalProperties: {type: integer}}
    Animal:
      oneOf:
        - $ref: '#/components/schemas/Dog'
        - $ref: '#/components/schemas/Cat'
      discriminator:
        propertyName: kind
        mapping:
          hound: '#/components/schemas/Dog'
          Cat: Cat
          ghost: '#/components/schemas/Missing'
    Dog:
      type: object
      properties:
        kind: {type: string}
        barks: {type: boolean}
    Cat:
      type: object
      properties:
        kind: {type: string}
`

func component(t *testing.T, d *Document, name string) *Schema {
	t.Helper()
	s := d.Component(name)
	if s == nil {
		t.Fatalf("component %s did not compile", name)
	}
	return s
}

// TestSchemaAllOfMerged guards that a schema's properties and required
// names include its allOf parts', in document order, with the first
// declaration of a property winning.
func TestSchemaAllOfMerged(t *testing.T) {
	d := load(t, modelYAML)
	pet := component(t, d, "Pet")
	want := []string{"tag", "name", "id", "kind", "secret", "note", "age"}
	if got := pet.PropNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("Pet's properties = %v, want %v", got, want)
	}
	if got := pet.Prop("name"); got == nil || !got.HasType(String) || got.MaxLength != 20 {
		t.Errorf("Pet.name = %+v, want Named's string (the first declaration)", got)
	}
	for _, name := range []string{"name", "kind"} {
		if !pet.Required(name) {
			t.Errorf("Pet does not require %s, which an allOf part requires", name)
		}
	}
	if pet.Required("tag") || pet.Prop("nothing") != nil {
		t.Error("Pet requires tag or declares a property it does not have")
	}
	if !pet.IsObject() || !pet.DeclaresProps() {
		t.Error("Pet, an object through allOf, does not read as one")
	}
	if pet.Types != 0 {
		t.Errorf("Pet's own types = %v, want none (only its parts say object)", pet.Types)
	}
	age := pet.Prop("age")
	if !age.HasMin || age.Min != 0 || !age.ExclMin || !age.HasMax || age.Max != 30 || age.ExclMax {
		t.Errorf("age's bounds = %+v, want (0, 30]", age)
	}
	if got := pet.Prop("kind").Enum; !reflect.DeepEqual(got, []any{"dog", "cat"}) {
		t.Errorf("kind's enum = %v", got)
	}
	if got := pet.Prop("kind").EnumTypes(); got != String {
		t.Errorf("kind's enum types = %b, want string only", got)
	}
}

// TestSchemaNullable guards both spellings of "may be null".
func TestSchemaNullable(t *testing.T) {
	d := load(t, modelYAML)
	note := component(t, d, "Pet").Prop("note")
	if !note.Nullable || note.HasType(Null) {
		t.Errorf("3.0 nullable: Nullable %v, type null %v; want true, false", note.Nullable, note.HasType(Null))
	}
	if component(t, d, "Pet").Prop("tag").Nullable {
		t.Error("a property without nullable reads as nullable")
	}
	d31 := load(t, `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /x:
    get:
      responses:
        "200": {description: ok}
components:
  schemas:
    X:
      type: object
      properties:
        a: {type: [string, "null"]}
        b: {type: string}
`)
	x := component(t, d31, "X")
	if a := x.Prop("a"); !a.HasType(Null) || !a.HasType(String) || a.Nullable {
		t.Errorf("3.1 type null: types %b, Nullable %v", a.Types, a.Nullable)
	}
	if x.Prop("b").HasType(Null) {
		t.Error("a plain string reads as nullable")
	}
}

// TestSchemaReadWriteOnly guards the read- and write-only flags and
// AnyProp's reach into branches.
func TestSchemaReadWriteOnly(t *testing.T) {
	d := load(t, modelYAML)
	pet := component(t, d, "Pet")
	if !pet.Prop("id").ReadOnly() || pet.Prop("id").WriteOnly() {
		t.Error("id is not readOnly only")
	}
	if !pet.Prop("secret").WriteOnly() || pet.Prop("secret").ReadOnly() {
		t.Error("secret is not writeOnly only")
	}
	animal := component(t, d, "Animal")
	if animal.Prop("barks") != nil {
		t.Error("Prop looked into oneOf branches")
	}
	if b := animal.AnyProp("barks"); b == nil || !b.HasType(Boolean) {
		t.Error("AnyProp did not find a branch's property")
	}
}

// TestSchemaAdditional guards the four readings of additionalProperties.
func TestSchemaAdditional(t *testing.T) {
	d := load(t, modelYAML)
	m := component(t, d, "Maps")
	for name, want := range map[string]Additional{
		"absent": AdditionalAbsent, "open": AdditionalTrue, "closed": AdditionalFalse, "typed": AdditionalSchema,
	} {
		p := m.Prop(name)
		if p.Additional != want {
			t.Errorf("%s: additionalProperties mode %d, want %d", name, p.Additional, want)
		}
		if (p.AdditionalSchema() != nil) != (want == AdditionalSchema) {
			t.Errorf("%s: additional schema %v", name, p.AdditionalSchema())
		}
	}
	if s := m.Prop("typed").AdditionalSchema(); s == nil || !s.HasType(Integer) {
		t.Error("typed's additional schema is not the integer")
	}
	if !m.Prop("absent").Bare || m.Prop("open").Bare || m.Bare {
		t.Error("only the plain 'type: object' should read as bare")
	}
}

// TestSchemaDiscriminator guards that mapping targets, explicit and by
// bare name, resolve to the compiled components, and that a missing
// target stays unresolved.
func TestSchemaDiscriminator(t *testing.T) {
	d := load(t, modelYAML)
	a := component(t, d, "Animal")
	disc := a.Discriminator()
	if disc == nil || disc.Property != "kind" || len(disc.Mapping) != 3 {
		t.Fatalf("discriminator = %+v", disc)
	}
	dog, cat := component(t, d, "Dog"), component(t, d, "Cat")
	want := []Mapping{
		{Value: "hound", Ref: "#/components/schemas/Dog", Schema: dog},
		{Value: "Cat", Ref: "#/components/schemas/Cat", Schema: cat},
		{Value: "ghost", Ref: "#/components/schemas/Missing"},
	}
	for i, m := range disc.Mapping {
		if m != want[i] {
			t.Errorf("mapping %d = %+v, want %+v", i, m, want[i])
		}
	}
	// Loading rewrites each branch as allOf [its discriminator guard, the
	// component] (oasdoc), so the component is the branch's last part.
	br := a.Branches()
	if len(br) != 2 || br[0].AllOf()[len(br[0].AllOf())-1] != dog || br[1].AllOf()[len(br[1].AllOf())-1] != cat {
		t.Fatalf("branches = %v, want allOf parts ending with the Dog and Cat components themselves", br)
	}
	if dog.Name != "Dog" || dog.Ref != "#/components/schemas/Dog" || br[0].Name != "" {
		t.Errorf("Dog's name %q, ref %q; branch's name %q", dog.Name, dog.Ref, br[0].Name)
	}
	if !reflect.DeepEqual(br[0].Prop("kind").Enum, []any{"hound"}) || !br[0].Required("kind") || br[0].Prop("barks") == nil {
		t.Error("a branch does not carry its component's properties")
	}
	if !a.IsObject() {
		t.Error("a oneOf whose first branch is an object does not read as one")
	}
}

// TestSchemaCycles guards that a recursive component compiles to a cycle
// (the property is the component itself), not an endless walk.
func TestSchemaCycles(t *testing.T) {
	d := load(t, modelYAML)
	n := component(t, d, "Node")
	if n.Prop("child") != n {
		t.Error("Node.child is not Node itself")
	}
	if n.Prop("kids").Items() != n {
		t.Error("Node.kids' items are not Node itself")
	}
	loop := load(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      responses:
        "200": {description: ok}
components:
  schemas:
    A:
      allOf: [{$ref: '#/components/schemas/B'}]
      properties: {a: {type: string}}
    B:
      allOf: [{$ref: '#/components/schemas/A'}]
      properties: {b: {type: string}}
`)
	a := component(t, loop, "A")
	if got := a.PropNames(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("A's properties through an allOf cycle = %v, want [a b]", got)
	}
	if a.Plain() {
		t.Error("an allOf cycle reads as plain")
	}
}

// TestSchemaShared guards that a schema is compiled once and shared:
// the same Schema whichever way it is reached, from any number of
// goroutines at once (run with -race).
func TestSchemaShared(t *testing.T) {
	d := load(t, modelYAML)
	op := opByID(t, d, "listPets")
	got := make([]*Schema, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				got[i] = d.SchemaOf(op.Success.Schema)
			} else {
				got[i] = d.Component("PetList")
			}
			key, item := got[i].ListShape()
			if key != "pets" || item != d.Component("Pet") {
				t.Errorf("list shape = %q %v", key, item)
			}
		}()
	}
	wg.Wait()
	for _, s := range got {
		if s != got[0] {
			t.Fatal("one component compiled to two Schemas")
		}
	}
	if d.Schema(got[0].Lib()) != got[0] {
		t.Error("Schema of a compiled schema's own base is another Schema")
	}
	if !got[0].Same(d.Component("PetList")) || got[0].Same(d.Component("Pet")) {
		t.Error("Same does not tell one declaration from another")
	}
}

// TestSchemaExpandsOnDemand guards that asking for one schema builds that
// schema and its allOf parts, not everything it reaches: a property's
// schema exists but is not expanded until a reader asks for its children,
// and a component only a grandchild names is not compiled at all. On the
// published schema that is most of the graph, and start-up paid for it.
func TestSchemaExpandsOnDemand(t *testing.T) {
	d := load(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      responses:
        "200": {description: ok}
components:
  schemas:
    Top:
      allOf: [{$ref: '#/components/schemas/Part'}]
      properties:
        mid: {$ref: '#/components/schemas/Mid'}
    Part:
      properties:
        p: {type: string}
    Mid:
      type: object
      properties:
        leaf: {$ref: '#/components/schemas/Leaf'}
    Leaf:
      type: object
      properties:
        x: {type: integer}
    Pet:
      type: object
      properties:
        kind: {type: string}
      discriminator:
        propertyName: kind
        mapping: {cat: '#/components/schemas/Cat'}
    Cat:
      type: object
      properties:
        purrs: {type: boolean}
`)
	compiled := func(name string) *Schema {
		var n *Schema
		d.Guard(func() { n = d.compiler().memo[componentKey(name)] })
		return n
	}
	top := component(t, d, "Top")
	if got := top.PropNames(); !reflect.DeepEqual(got, []string{"mid", "p"}) {
		t.Fatalf("Top's properties = %v, want [mid p]", got)
	}
	if part := compiled("Part"); part == nil || !part.done.Load() {
		t.Error("an allOf part was not expanded with its schema")
	}
	mid := compiled("Mid")
	if mid == nil || !mid.HasType(Object) {
		t.Fatal("a property's schema was not created with its own keywords")
	}
	if mid.done.Load() {
		t.Error("a property's schema was expanded before anyone asked for its children")
	}
	if compiled("Leaf") != nil {
		t.Error("a component only a grandchild names was compiled")
	}
	if leaf := top.Prop("mid").Prop("leaf"); leaf == nil || leaf != compiled("Leaf") || !leaf.HasType(Object) {
		t.Errorf("the grandchild read through the model = %v, want the Leaf component", leaf)
	}
	if !mid.done.Load() {
		t.Error("reading a child did not expand its parent")
	}

	// A discriminator's targets are whole components: compiled for the
	// first reader of the discriminator, not by expanding the schema.
	pet := component(t, d, "Pet")
	if !pet.IsObject() || pet.Prop("kind") == nil {
		t.Fatal("Pet does not read as an object with a kind")
	}
	if compiled("Cat") != nil {
		t.Error("expanding a schema compiled the components its discriminator maps to")
	}
	if disc := pet.Discriminator(); disc == nil || len(disc.Mapping) != 1 || disc.Mapping[0].Schema == nil || disc.Mapping[0].Schema != compiled("Cat") {
		t.Errorf("Pet's discriminator = %+v, want a mapping to the Cat component", disc)
	}
}

// TestSchemaEnumTypes guards the types an enum's values have, which
// leniency reads to know what a value may be.
func TestSchemaEnumTypes(t *testing.T) {
	s := &Schema{Enum: []any{int64(1), nil}}
	if got := s.EnumTypes(); got != Integer|Number|Null {
		t.Errorf("[1, null] has types %b", got)
	}
	s = &Schema{Enum: []any{1.5, true, map[string]any{}, []any{}}}
	if got := s.EnumTypes(); got != Number|Boolean|Object|Array {
		t.Errorf("[1.5, true, {}, []] has types %b", got)
	}
	if (*Schema)(nil).EnumTypes() != 0 || (&Schema{}).EnumTypes() != 0 {
		t.Error("no enum has types")
	}
}

// TestSameWithoutALibrarySchema: two declarations whose libopenapi
// schemas did not build are not one declaration. Without the check, both
// Lib() being nil compared equal, and any two such schemas were "the same".
func TestSameWithoutALibrarySchema(t *testing.T) {
	a, b := &Schema{}, &Schema{}
	a.libDone.Store(true)
	b.libDone.Store(true)
	if a.Same(b) || b.Same(a) {
		t.Error("two schemas without a libopenapi schema count as the same declaration")
	}
	if !a.Same(a) {
		t.Error("a schema is not the same as itself")
	}
}
