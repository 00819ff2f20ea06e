package synth

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// nullsYAML has what the service's nulls must respect: required and
// optional properties of every type, writeOnly and readOnly ones, a map
// (additionalProperties), a nullable property, nested objects and arrays,
// and a discriminated oneOf whose branches declare different properties.
const nullsYAML = `openapi: 3.0.3
info: {title: Nulls, version: "1"}
paths: {}
components:
  schemas:
    RunList:
      type: object
      required: [runs]
      properties:
        runs: {type: array, items: {$ref: '#/components/schemas/Run'}}
        total: {type: integer}
    Run:
      type: object
      required: [id, status]
      properties:
        id: {type: string}
        status: {type: string, enum: [RUNNING, SUCCEEDED]}
        errorMessage: {type: string}
        deleted: {type: boolean}
        exitStatus: {type: integer, format: int32}
        labels: {type: array, items: {$ref: '#/components/schemas/Label'}}
        stats: {$ref: '#/components/schemas/Stats'}
        secret: {type: string, writeOnly: true}
        created: {type: string, format: date-time, readOnly: true}
        params: {type: object, additionalProperties: {type: string}}
        nick: {type: string, nullable: true}
        pet: {$ref: '#/components/schemas/Pet'}
    Label:
      type: object
      required: [name]
      properties:
        name: {type: string}
        value: {type: string}
    Stats:
      type: object
      properties:
        cpu: {type: number}
        mem: {type: number}
    Pet:
      oneOf:
        - $ref: '#/components/schemas/Cat'
        - $ref: '#/components/schemas/Dog'
      discriminator:
        propertyName: kind
        mapping: {cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog'}
    Cat:
      type: object
      required: [kind]
      properties:
        kind: {type: string, enum: [cat]}
        lives: {type: integer}
        indoor: {type: boolean}
    Dog:
      type: object
      required: [kind]
      properties:
        kind: {type: string, enum: [dog]}
        good: {type: boolean}
        breed: {type: string}
`

// With WithNulls, an answer carries every property its schema declares:
// null for the optional ones without a value, never for a required one,
// never a writeOnly one, no invented map keys, and only the chosen branch's
// properties. Without the nulls it is the value the generator makes without
// the option, so the option changes nothing else.
func TestNullsForEveryOptionalProperty(t *testing.T) {
	d := loadSpec(t, []byte(nullsYAML))
	list := componentSchema(t, d, "RunList")
	version := specVersion(d)
	vl := newValidator()
	declared := map[string][]string{
		"run":   {"id", "status", "errorMessage", "deleted", "exitStatus", "labels", "stats", "created", "params", "nick", "pet"},
		"label": {"name", "value"},
		"stats": {"cpu", "mem"},
		"cat":   {"kind", "lives", "indoor"},
		"dog":   {"kind", "good", "breed"},
	}
	required := map[string][]string{"run": {"id", "status"}, "label": {"name"}, "cat": {"kind"}, "dog": {"kind"}}
	keys := func(m map[string]any) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	// has checks that object m of kind carries exactly its declared
	// properties, a value for each required one.
	has := func(where, kind string, m map[string]any) int {
		want := slices.Sorted(slices.Values(declared[kind]))
		if got := keys(m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s (%s): properties %v, want every declared one %v", where, kind, got, want)
		}
		nulls := 0
		for k, v := range m {
			if v != nil {
				continue
			}
			nulls++
			if slices.Contains(required[kind], k) {
				t.Errorf("%s (%s): required property %s is null", where, kind, k)
			}
		}
		return nulls
	}
	obj := func(v any) map[string]any {
		t.Helper()
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("want an object, got %T %v", v, v)
		}
		return m
	}
	plain, nulls, invalid := New(WithSeed(11)), New(WithSeed(11), WithNulls()), 0
	seen := map[string]int{}
	for i := range 60 {
		key := fmt.Sprintf("GET /runs/%d", i)
		v := nulls.value(bg, list, key, Response)
		if again := nulls.value(bg, list, key, Response); !reflect.DeepEqual(v, again) {
			t.Fatalf("%s: two values for one key", key)
		}
		// The top of an answer carries its content (see run.full), so the
		// nulls are in the runs listed.
		runs, _ := obj(v)["runs"].([]any)
		for r, e := range runs {
			where := fmt.Sprintf("%s runs[%d]", key, r)
			m := obj(e)
			seen["null in a run"] += has(where, "run", m)
			if labels, ok := m["labels"].([]any); ok {
				for j, l := range labels {
					has(fmt.Sprintf("%s labels[%d]", where, j), "label", obj(l))
				}
			} else if m["labels"] != nil {
				t.Errorf("%s: labels is %T", where, m["labels"])
			} else {
				seen["null array"]++
			}
			if s, ok := m["stats"].(map[string]any); ok {
				seen["null in a nested object"] += has(where+" stats", "stats", s)
			} else if m["stats"] == nil {
				seen["null object"]++
			}
			if p, ok := m["pet"].(map[string]any); ok {
				seen["null in a branch"] += has(where+" pet", fmt.Sprint(p["kind"]), p)
			}
			if params, ok := m["params"].(map[string]any); ok {
				for k, e := range params {
					if _, ok := e.(string); !ok {
						t.Errorf("%s: params[%s] is %v, want a string: a map gets no null", where, k, e)
					}
				}
			}
		}
		// The same value as without the option once its nulls are taken
		// out, and then one the schema accepts as it stands.
		want := withoutNulls(plain.value(bg, list, key, Response))
		got := withoutNulls(v)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: without its nulls the value is\n%s\nwithout the option\n%s", key, mustJSON(t, got), mustJSON(t, want))
		}
		if err := vl.check(list, got, Response, version); err != nil {
			t.Errorf("%s: without its nulls the value is invalid: %v", key, err)
		}
		if vl.check(list, v, Response, version) != nil {
			invalid++
		}
	}
	for _, what := range []string{"null in a run", "null array", "null object", "null in a nested object", "null in a branch"} {
		if seen[what] == 0 {
			t.Errorf("no %s in 60 values: the test does not exercise it", what)
		}
	}
	if invalid == 0 {
		t.Error("every value with its nulls passes the strict schema: the nulls are not where the schema forbids them")
	}
}

// withoutNulls is a copy of v without the null members of its objects.
func withoutNulls(v any) any { return jsonvalue.DropNulls(jsonvalue.Clone(v)) }

// A request never carries the service's nulls: they are the service's
// habit in answers.
func TestNullsNotInRequests(t *testing.T) {
	d := loadSpec(t, []byte(nullsYAML))
	run := componentSchema(t, d, "Run")
	g := New(WithSeed(3), WithNulls())
	for i := range 20 {
		if got := withoutNulls(g.value(bg, run, fmt.Sprint(i), Request)); !reflect.DeepEqual(got, g.value(bg, run, fmt.Sprint(i), Request)) {
			t.Fatalf("request value %d holds a null", i)
		}
	}
}

// countNulls counts the null members of objects, at any depth.
func countNulls(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if e == nil {
				n++
			}
			n += countNulls(e)
		}
	case []any:
		for _, e := range x {
			n += countNulls(e)
		}
	}
	return n
}

// With the service's nulls, a oneOf value inside an optional property is
// never told apart from a sibling branch by a value of the wrong kind (a
// false or a "" where the sibling wants a number): a null rules out only a
// branch that requires the property, and a value that nothing else tells
// apart is given up, its property sent as null.
func TestNullsGiveUpRatherThanPoison(t *testing.T) {
	d := loadSpec(t, []byte(`openapi: 3.0.3
info: {title: Poison, version: "1"}
paths: {}
components:
  schemas:
    Holder:
      type: object
      required: [id]
      properties:
        id: {type: string}
        inner: {$ref: '#/components/schemas/Inner'}
    Inner:
      type: object
      properties:
        pet: {$ref: '#/components/schemas/Pet'}
    Pet:
      oneOf:
        - {type: object, properties: {a: {type: integer}}}
        - {type: object, properties: {b: {type: integer}}}
        - {type: object, required: [c], properties: {c: {type: integer}}}
`))
	holder := componentSchema(t, d, "Holder")
	plain, nulls := New(WithSeed(5)), New(WithSeed(5), WithNulls())
	poisoned, given := 0, 0
	for i := range 40 {
		key := fmt.Sprint(i)
		if p, ok := get(plain.value(bg, holder, key, Response), "inner", "pet"); ok && p != nil {
			for _, k := range []string{"a", "b", "c"} {
				if v, ok := p.(map[string]any)[k]; ok && (v == nil || v == false || v == "") {
					poisoned++
				}
			}
		}
		p, ok := get(nulls.value(bg, holder, key, Response), "inner", "pet")
		if !ok {
			continue
		}
		if p == nil {
			given++
			continue
		}
		for k, v := range p.(map[string]any) {
			if v == false || v == "" {
				t.Errorf("%s: pet.%s = %#v, a value of the wrong kind", key, k, v)
			}
		}
	}
	if poisoned == 0 || given == 0 {
		t.Errorf("%d values poisoned without the nulls, %d given up with them: the test does not exercise both", poisoned, given)
	}
}

// get follows keys through nested objects; ok is false where one is
// missing or not an object.
func get(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}
