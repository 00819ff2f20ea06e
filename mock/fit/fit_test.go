package fit_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
)

// doc holds one of each kind of schema the fitter treats apart: plain
// scalars with bounds, enums and formats; an object with required,
// optional, readOnly and writeOnly members; and a oneOf whose branches are
// told apart by an enum guard (the shape oasdoc's discriminator rewrite
// leaves behind).
const doc = `openapi: 3.0.1
info: {title: fit, version: "1"}
paths: {/config: {get: {responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Config"}}}}}}}}
components:
  schemas:
    Count: {type: integer, format: int32, minimum: 0, maximum: 10}
    Colour: {type: string, enum: [red, green]}
    When: {type: string, format: date-time}
    Name: {type: string, maxLength: 4}
    Secret:
      type: object
      required: [id]
      properties:
        id: {type: string}
        label: {type: string}
        password: {type: string, writeOnly: true}
        inner:
          type: object
          properties:
            token: {type: string, writeOnly: true}
            note: {type: string}
    Cloud:
      type: object
      required: [kind]
      properties:
        kind: {type: string, enum: [cloud]}
        region: {type: string}
    Local:
      type: object
      required: [kind]
      properties:
        kind: {type: string, enum: [local]}
        path: {type: string}
    Config:
      type: object
      properties:
        config:
          oneOf:
            - $ref: '#/components/schemas/Cloud'
            - $ref: '#/components/schemas/Local'
`

type fixture struct {
	doc   *spec.Document
	fit   *fit.Fitter
	bases *fit.Bases
}

func newFixture(t *testing.T, opts ...fit.Option) fixture {
	t.Helper()
	d, err := spec.Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	v := validate.New(d, "", validate.WithNulls())
	gen := synth.New(synth.WithSeed(1), synth.WithDocument(d))
	f := fit.New(d, v.Answer, opts...)
	return fixture{doc: d, fit: f, bases: fit.NewBases(memo.NewSet(1<<20), gen, f)}
}

func (f fixture) schema(t *testing.T, name string) *spec.Schema {
	t.Helper()
	s := f.doc.Component(name)
	if s == nil {
		t.Fatalf("no component %s", name)
	}
	return s
}

func TestFitsScalars(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		schema string
		v      any
		want   bool
	}{
		{"Count", 3.0, true},
		{"Count", int64(10), true},
		{"Count", 11.0, false},    // above maximum
		{"Count", -1.0, false},    // below minimum
		{"Count", 2.5, false},     // not an integer
		{"Count", "3", false},     // a string for a number
		{"Count", nil, false},     // not nullable
		{"Colour", "red", true},   //
		{"Colour", "blue", false}, // outside the enum
		{"When", "2026-11-27T10:00:00Z", true},
		{"When", "yesterday", false}, // not a date-time
		{"Name", "abcd", true},
		{"Name", "abcde", false}, // over maxLength
	} {
		if got := f.fit.Fits(f.schema(t, c.schema), c.v); got != c.want {
			t.Errorf("Fits(%s, %#v) = %v, want %v", c.schema, c.v, got, c.want)
		}
	}
	if !f.fit.Fits(nil, "anything") {
		t.Error("a value must fit no schema at all")
	}
}

func TestFitsObjectsThroughTheValidator(t *testing.T) {
	f := newFixture(t)
	s := f.schema(t, "Secret")
	if !f.fit.Fits(s, map[string]any{"id": "a", "label": "x"}) {
		t.Error("a valid object was refused")
	}
	if f.fit.Fits(s, map[string]any{"label": "x"}) {
		t.Error("an object without its required id was accepted")
	}
	if f.fit.Fits(s, map[string]any{"id": 7.0}) {
		t.Error("a number for a string member was accepted")
	}
}

// Set takes what fits and, for an optional property whose value is nil,
// removes it or writes null according to the nulls setting; a required
// property is never dropped.
func TestSetWithAndWithoutNulls(t *testing.T) {
	for _, nulls := range []bool{false, true} {
		f := newFixture(t, fit.WithNulls(nulls))
		if f.fit.Nulls() != nulls {
			t.Fatalf("Nulls() = %v, set %v", f.fit.Nulls(), nulls)
		}
		s := f.schema(t, "Secret")
		m := map[string]any{"id": "a", "label": "old"}
		if !f.fit.Set(s, m, "label", "new") || m["label"] != "new" {
			t.Errorf("nulls=%v: a fitting value was not laid: %v", nulls, m)
		}
		if f.fit.Set(s, m, "label", 5.0) || m["label"] != "new" {
			t.Errorf("nulls=%v: a value that does not fit was laid: %v", nulls, m)
		}
		if f.fit.Set(s, m, "undeclared", "x") {
			t.Errorf("nulls=%v: an undeclared property was set", nulls)
		}
		f.fit.Set(s, m, "label", nil)
		v, has := m["label"]
		if nulls && (!has || v != nil) || !nulls && has {
			t.Errorf("nulls=%v: an optional nil gives %v (present %v)", nulls, v, has)
		}
		f.fit.Set(s, m, "id", nil)
		if m["id"] != "a" {
			t.Errorf("nulls=%v: a required property was dropped: %v", nulls, m)
		}
	}
}

// Complete writes null for every optional property without a value, at
// any depth and inside the branch a oneOf's object is; never a required or
// writeOnly one, and nothing without the nulls setting.
func TestComplete(t *testing.T) {
	f := newFixture(t, fit.WithNulls(true))
	v := map[string]any{"id": "a", "inner": map[string]any{}}
	f.fit.Complete(f.schema(t, "Secret"), v)
	want := map[string]any{"id": "a", "label": nil, "inner": map[string]any{"note": nil}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("completed %v, want %v", v, want)
	}

	c := map[string]any{"config": map[string]any{"kind": "local"}}
	f.fit.Complete(f.schema(t, "Config"), c)
	if got := c["config"]; !reflect.DeepEqual(got, map[string]any{"kind": "local", "path": nil}) {
		t.Errorf("the local branch completed to %v", got)
	}

	off := newFixture(t)
	w := map[string]any{"id": "a"}
	off.fit.Complete(off.schema(t, "Secret"), w)
	if len(w) != 1 {
		t.Errorf("without nulls Complete changed the value: %v", w)
	}
}

func TestBranchOfFollowsTheGuard(t *testing.T) {
	f := newFixture(t)
	config := f.schema(t, "Config").Prop("config")
	for kind, want := range map[string]string{"cloud": "region", "local": "path"} {
		b := fit.BranchOf(config, map[string]any{"kind": kind}, 0)
		if b == nil || b.Prop(want) == nil {
			t.Errorf("kind %s: branch %v has no %s", kind, b, want)
		}
	}
	// The guard wins over the members: this object names a cloud's
	// region, but says it is local.
	if b := fit.BranchOf(config, map[string]any{"kind": "local", "region": "x"}, 0); b == nil || b.Prop("path") == nil {
		t.Error("the guard did not choose the branch")
	}
	if b := fit.BranchOf(config, map[string]any{"kind": "neither"}, 0); b != nil {
		t.Errorf("an object in no branch was given one: %v", b.PropNames())
	}
	if b := fit.BranchOf(f.schema(t, "Secret"), map[string]any{}, 0); b != nil {
		t.Error("a schema without branches gave one")
	}
}

func TestHideWriteOnly(t *testing.T) {
	f := newFixture(t)
	v := map[string]any{"id": "a", "password": "p", "inner": map[string]any{"token": "t", "note": "n"}}
	fit.HideWriteOnly(f.schema(t, "Secret"), v, 0)
	want := map[string]any{"id": "a", "inner": map[string]any{"note": "n"}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("hidden %v, want %v", v, want)
	}
}

// A base is the same for the same key, valid for its schema, and a fresh
// copy each time: a caller that changes one must not change the next.
func TestBasesAreStableCopies(t *testing.T) {
	f := newFixture(t)
	s := f.schema(t, "Secret")
	a, b := f.bases.Object(s, "k"), f.bases.Object(s, "k")
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two bases for one key differ: %v, %v", a, b)
	}
	if _, has := a["password"]; has {
		t.Error("a base answers a writeOnly property")
	}
	if !f.fit.Fits(s, a) {
		t.Errorf("base %v does not fit its schema", a)
	}
	a["id"] = "changed"
	if f.bases.Object(s, "k")["id"] == "changed" {
		t.Error("a change to a base reached the cache")
	}
	bare := f.bases.Bare(s, "k")
	if _, has := bare["id"]; !has || len(bare) != 1 {
		t.Errorf("the bare base holds %v, want only the required id", bare)
	}
	var withID map[string]any
	if err := json.Unmarshal(f.bases.WithField(s, "k", "id", "given"), &withID); err != nil || withID["id"] != "given" {
		t.Errorf("WithField: %v, id %v", err, withID["id"])
	}
}
