package synth

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"
)

// Fits is what lets the fake accept a value without compiling a validator
// for its schema, so a yes from it must never be a value the validator
// rejects. Each case breaks one rule of a generated run list; the
// validator must reject it and Fits must say no. The values the generator
// made, with and without the service's nulls, must fit.
func TestFitsNeverAcceptsWhatTheValidatorRejects(t *testing.T) {
	d := loadSpec(t, []byte(nullsYAML))
	list := componentSchema(t, d, "RunList")
	version := specVersion(d)
	vl := newValidator()
	plain, nulls := New(WithSeed(3)), New(WithSeed(3), WithNulls())

	for i := range 20 {
		key := fmt.Sprintf("GET /runs?page=%d", i)
		v := plain.Value(list, key, Response)
		if err := vl.check(list, v, Response, version); err != nil {
			t.Fatalf("generated value invalid: %v", err)
		}
		if !plain.Fits(list, v, Response) {
			t.Errorf("%s: Fits rejects the generator's own value %s", key, mustJSON(t, v))
		}
		// After a JSON round trip (numbers as json.Number), as a stored
		// record is read back.
		var back any
		if err := json.Unmarshal([]byte(mustJSON(t, v)), &back); err != nil {
			t.Fatal(err)
		}
		if !plain.Fits(list, back, Response) {
			t.Errorf("%s: Fits rejects the value read back from JSON", key)
		}
		if w := nulls.Value(list, key, Response); !nulls.Fits(list, w, Response) {
			t.Errorf("%s: Fits (WithNulls) rejects the generator's own value %s", key, mustJSON(t, w))
		}
	}

	run := func() map[string]any {
		return map[string]any{"id": "4kq3T9x", "status": "RUNNING", "exitStatus": 0,
			"labels": []any{map[string]any{"name": "a"}}, "pet": map[string]any{"kind": "cat", "lives": 9}}
	}
	with := func(change func(m map[string]any)) map[string]any {
		m := run()
		change(m)
		return map[string]any{"runs": []any{m}}
	}
	good := with(func(map[string]any) {})
	if err := vl.check(list, good, Response, version); err != nil || !plain.Fits(list, good, Response) {
		t.Fatalf("the unbroken run does not pass: validator %v, Fits %v", err, plain.Fits(list, good, Response))
	}
	broken := map[string]map[string]any{
		"status outside its enum":           with(func(m map[string]any) { m["status"] = "BOGUS" }),
		"required id missing":               with(func(m map[string]any) { delete(m, "id") }),
		"required id null":                  with(func(m map[string]any) { m["id"] = nil }),
		"id a number":                       with(func(m map[string]any) { m["id"] = 5 }),
		"exitStatus beyond int32":           with(func(m map[string]any) { m["exitStatus"] = int64(1) << 31 }),
		"exitStatus a fraction":             with(func(m map[string]any) { m["exitStatus"] = 1.5 }),
		"created not a date-time":           with(func(m map[string]any) { m["created"] = "yesterday" }),
		"label without its name":            with(func(m map[string]any) { m["labels"] = []any{map[string]any{"value": "x"}} }),
		"params holding a number":           with(func(m map[string]any) { m["params"] = map[string]any{"a": 1} }),
		"pet of no branch":                  with(func(m map[string]any) { m["pet"] = map[string]any{"kind": "cow"} }),
		"pet with a wrong-typed branch key": with(func(m map[string]any) { m["pet"] = map[string]any{"kind": "cat", "lives": "nine"} }),
		"optional errorMessage null":        with(func(m map[string]any) { m["errorMessage"] = nil }),
		"runs not an array":                 {"runs": map[string]any{}},
	}
	for name, v := range broken {
		if vl.check(list, v, Response, version) == nil {
			t.Errorf("%s: the validator accepts it, so the case tests nothing", name)
			continue
		}
		if plain.Fits(list, v, Response) {
			t.Errorf("%s: Fits accepts a value the validator rejects: %s", name, mustJSON(t, v))
		}
	}
	// The service's nulls: with WithNulls an optional property may be null,
	// a required one still may not.
	optionalNull := maps.Clone(broken["optional errorMessage null"])
	if !nulls.Fits(list, optionalNull, Response) {
		t.Error("WithNulls: a null optional property does not fit")
	}
	if nulls.Fits(list, broken["required id null"], Response) {
		t.Error("WithNulls: a null required property fits")
	}
	if !plain.Fits(nil, "anything", Response) {
		t.Error("no schema: Fits should accept any value")
	}
}
