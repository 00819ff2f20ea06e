package spec

import (
	"reflect"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

const moreYAML = `openapi: 3.1.0
info: {title: more, version: "1"}
paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Rich'}
components:
  schemas:
    Rich:
      type: object
      minProperties: 1
      maxProperties: 5
      patternProperties:
        "^x-": {type: string}
      propertyNames: {maxLength: 8}
      properties:
        fixed: {type: string, const: fixed}
        told: {type: integer, example: 7, default: 3}
        listed: {type: string, examples: [first, second]}
        tuple:
          type: array
          prefixItems: [{type: string}, {$ref: '#/components/schemas/Plain'}]
          items: false
          minItems: 1
          maxItems: 2
          uniqueItems: true
        plain: {$ref: '#/components/schemas/Plain'}
    Plain:
      type: string
`

// TestSchemaMore guards the keywords only generation reads: each is read
// as written, children compiled as the model's own, and a schema that has
// none of them reads as the shared empty More (unbounded, no values).
func TestSchemaMore(t *testing.T) {
	d := load(t, moreYAML)
	rich, plain := component(t, d, "Rich"), component(t, d, "Plain")
	m := rich.More()
	if m.MinProps != 1 || m.MaxProps != 5 || len(m.PatternProps) != 1 || m.PatternProps[0].Pattern != "^x-" ||
		!m.PatternProps[0].Schema.HasType(String) || m.PropertyNames == nil || m.PropertyNames.MaxLength != 8 {
		t.Errorf("Rich's object keywords: %+v", m)
	}
	if f := rich.Prop("fixed").More(); !f.ConstOK || f.Const != "fixed" {
		t.Errorf("const = %v, %v", f.Const, f.ConstOK)
	}
	if tl := rich.Prop("told").More(); !tl.HasExample || tl.Example != int64(7) || !tl.HasDefault || tl.Default != int64(3) {
		t.Errorf("told: example %v (%v), default %v (%v)", tl.Example, tl.HasExample, tl.Default, tl.HasDefault)
	}
	if l := rich.Prop("listed").More(); !l.HasExample || l.Example != "first" {
		t.Errorf("listed: example %v (%v), want the first of examples", l.Example, l.HasExample)
	}
	tu := rich.Prop("tuple").More()
	if !tu.NoItems || tu.MinItems != 1 || tu.MaxItems != 2 || !tu.UniqueItems || len(tu.PrefixItems) != 2 ||
		!tu.PrefixItems[0].HasType(String) || tu.PrefixItems[1] != plain {
		t.Errorf("tuple's array keywords: %+v", tu)
	}
	if pm := plain.More(); pm != noMore || pm.MaxItems != -1 || pm.MaxProps != -1 || pm.HasExample || pm.ConstOK {
		t.Errorf("a schema without the keywords has More %+v, want the shared empty one", pm)
	}
	if (*Schema)(nil).More() != noMore {
		t.Error("nil's More is not the empty one")
	}
}

// TestDocumentRef guards that a reference compiled by its text is the
// Schema every $ref to it gives: the synthesizer's warm-up compiles
// components that way, and a call must find them done.
func TestDocumentRef(t *testing.T) {
	d := load(t, moreYAML)
	byRef := d.Ref(d.Model.Index, "#/components/schemas/Plain")
	if byRef == nil || byRef != component(t, d, "Plain") || byRef != component(t, d, "Rich").Prop("plain") {
		t.Errorf("Ref gives %p, not the component the $refs give", byRef)
	}
	if d.Ref(d.Model.Index, "#/components/schemas/Nowhere") != nil {
		t.Error("a reference to nowhere compiled")
	}
}

const otherYAML = `openapi: 3.0.3
info: {title: other, version: "1"}
paths:
  /h:
    get:
      responses:
        "200": {description: ok}
components:
  schemas:
    Holder:
      type: object
      properties:
        pet: {$ref: '#/components/schemas/Pet'}
    Pet:
      type: object
      discriminator:
        propertyName: kind
        mapping:
          cat: Cat
      properties:
        kind: {type: string}
    Cat:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - {type: object, properties: {lives: {type: integer}}}
`

// TestDetached guards a document with no model of its own: schemas handed
// to it compile as in their own document, discriminator targets are found
// through the schema's index, and two documents that name a component
// alike never share it.
func TestDetached(t *testing.T) {
	one, two := load(t, modelYAML), load(t, otherYAML)
	guarded := 0
	det := Detached(func(fn func()) { guarded++; fn() })
	holder := func(d *Document, name string) *base.Schema {
		p, _ := d.Model.Components.Schemas.Get(name)
		return p.Schema()
	}
	h := det.Schema(holder(two, "Holder"))
	pet := h.Prop("pet")
	if pet == nil || pet.Name != "Pet" {
		t.Fatalf("Holder.pet = %+v", pet)
	}
	disc := pet.Discriminator()
	if disc == nil || len(disc.Mapping) != 1 || disc.Mapping[0].Schema == nil || disc.Mapping[0].Schema.Name != "Cat" ||
		disc.Mapping[0].Schema.Prop("lives") == nil {
		t.Fatalf("Pet's mapping in a detached document = %+v", disc)
	}
	if guarded == 0 {
		t.Error("compiling did not take the guard it was given")
	}
	// The other document's Pet is another schema, though written alike.
	list := det.Schema(holder(one, "PetList"))
	if p := list.Prop("pets").Items(); p == nil || p == pet || p.Prop("tag") == nil {
		t.Errorf("PetList.pets items = %+v: want the first document's own Pet", p)
	}
	if det.Component("Pet") != nil {
		t.Error("a detached document found a component of its own")
	}
	if !reflect.DeepEqual(pet.PropNames(), []string{"kind"}) {
		t.Errorf("Pet's properties = %v", pet.PropNames())
	}
}
