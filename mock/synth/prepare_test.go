package synth

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/mock/spec"
)

const prepareDoc = `openapi: 3.0.1
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    List:
      type: object
      properties:
        items:
          type: array
          items: {$ref: '#/components/schemas/Pet'}
    Pet:
      type: object
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
        - type: object
          properties: {lives: {type: integer}}
    Dog:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - type: object
          properties: {barks: {type: boolean}}
    Owner:
      type: object
      properties:
        name: {type: string}
        friend: {$ref: '#/components/schemas/Owner'}
    Unused:
      type: object
      properties:
        pet: {$ref: '#/components/schemas/Pet'}
`

// ComponentRefs gives every component the roots reach, through $refs and
// discriminator mappings (bare names included), each after those it refers
// to outside a cycle, and nothing the roots do not reach.
func TestComponentRefsOrder(t *testing.T) {
	doc := loadSpec(t, []byte(prepareDoc))
	components := map[string]*yaml.Node{}
	for name, p := range doc.Components.Schemas.FromOldest() {
		components[name] = p.GoLow().GetValueNode()
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "$ref"}, {Kind: yaml.ScalarNode, Value: "#/components/schemas/List"},
	}}
	got := ComponentRefs([]*yaml.Node{root}, components)
	pos := map[string]int{}
	for i, r := range got {
		pos[r] = i
	}
	ref := func(n string) string { return componentPrefix + n }
	for _, n := range []string{"List", "Pet", "Cat", "Dog", "Owner"} {
		if _, ok := pos[ref(n)]; !ok {
			t.Errorf("%s is missing from %v", n, got)
		}
	}
	if _, ok := pos[ref("Unused")]; ok {
		t.Errorf("Unused, which no root reaches, is in %v", got)
	}
	if len(got) != 5 {
		t.Errorf("got %v, want each of the five once", got)
	}
	// Outside the cycle Pet-Cat-Dog: Owner before Pet, Pet before List.
	if !(pos[ref("Owner")] < pos[ref("Pet")] && pos[ref("Pet")] < pos[ref("List")]) {
		t.Errorf("order %v: want Owner before Pet before List", got)
	}
}

// A prepared component is the node a later call finds: compiling a schema
// that refers to it makes no node of it again, so the warm-up's work is
// the call's. (Were the memo keys to differ, as with another index, the
// call would compile the component afresh and the warm-up would be
// wasted, which this catches.)
func TestPrepareRefIsWhatACallFinds(t *testing.T) {
	doc := loadSpec(t, []byte(prepareDoc))
	g := New()
	for _, r := range []string{"Owner", "Pet", "Cat", "Dog"} {
		g.PrepareRef(doc.Index, componentPrefix+r)
	}
	prepared := len(g.comp.memo)
	list := componentSchema(t, doc, "List")
	g.Prepare(list)
	for _, n := range g.comp.batch {
		if n.name == "Pet" || n.name == "Owner" || n.name == "Cat" || n.name == "Dog" {
			t.Errorf("the call compiled %s again", n.name)
		}
	}
	if len(g.comp.memo) == prepared {
		t.Error("compiling List added nothing: the test proves nothing")
	}
	// And the values are those of a generator that prepared nothing.
	fresh := New()
	for _, key := range []string{"a", "b", "c"} {
		if a, b := g.Value(list, key, Response), fresh.Value(list, key, Response); !reflect.DeepEqual(a, b) {
			t.Errorf("key %s: prepared %v, fresh %v", key, a, b)
		}
	}
}

// A generator given its document builds on the document's model: its
// nodes are those of the model's schemas (spec.Document.Schema), the ones
// the fake's other readers use, and warming a component up by its
// reference compiles the very schema a $ref to it gives.
func TestGeneratorBuildsOnTheModel(t *testing.T) {
	doc, err := spec.Load([]byte(strings.Replace(prepareDoc, "paths: {}", "paths: {/l: {get: {responses: {'200': {description: ok}}}}}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	g := New(WithDocument(doc))
	g.PrepareRef(doc.Model.Index, componentPrefix+"Owner")
	owner := doc.Component("Owner")
	prepared, ok := g.comp.memo[owner]
	if !ok || prepared.schema != owner {
		t.Fatalf("PrepareRef made no node of the model's Owner")
	}
	list := componentSchema(t, doc.Model, "List")
	g.Prepare(list)
	n := g.node(list)
	if n.schema == nil || n.schema != doc.Schema(list) {
		t.Errorf("List's node is of %p, not of the model's List %p", n.schema, doc.Schema(list))
	}
	pet := doc.Component("Pet")
	if got := n.props[0].node.f().items; got == nil || got.schema != pet || g.comp.memo[pet] != got {
		t.Errorf("List.items' items are not the node of the model's Pet")
	}
	if g.comp.memo[owner] != prepared {
		t.Error("compiling List made Owner's node again")
	}
}

// A generator given neither its document nor a lock still compiles safely
// while warming up: PrepareRef reaches the model outside the generator's
// mutex, so the detached model takes a lock of its own (run with -race).
func TestPrepareRefBesideACall(t *testing.T) {
	doc := loadSpec(t, []byte(prepareDoc))
	g := New()
	list := componentSchema(t, doc, "List")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, r := range []string{"Owner", "Pet", "Cat", "Dog"} {
			g.PrepareRef(doc.Index, componentPrefix+r)
		}
	}()
	v := g.Value(list, "k", Response)
	<-done
	if want := New().Value(list, "k", Response); !reflect.DeepEqual(v, want) {
		t.Errorf("beside a warm-up: %v, alone: %v", v, want)
	}
}
