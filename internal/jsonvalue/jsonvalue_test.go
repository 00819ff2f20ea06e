package jsonvalue

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCloneIsDeep(t *testing.T) {
	orig := map[string]any{"a": []any{map[string]any{"b": 1.0}}, "c": "d"}
	c := Clone(orig).(map[string]any)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone %v differs from %v", c, orig)
	}
	c["a"].([]any)[0].(map[string]any)["b"] = 2.0
	c["c"] = "e"
	if orig["a"].([]any)[0].(map[string]any)["b"] != 1.0 || orig["c"] != "d" {
		t.Errorf("changing the clone changed the original: %v", orig)
	}
}

func TestNumber(t *testing.T) {
	for _, v := range []any{3, int32(3), int64(3), uint64(3), float32(3), 3.0, json.Number("3")} {
		if f, ok := Number(v); !ok || f != 3 {
			t.Errorf("Number(%#v) = %v, %v", v, f, ok)
		}
	}
	for _, v := range []any{"3", nil, true, json.Number("x")} {
		if _, ok := Number(v); ok {
			t.Errorf("Number(%#v) reads a number", v)
		}
	}
}

func TestDecodeKeepsNumbersAsWritten(t *testing.T) {
	v, ok := Decode([]byte(` {"a":1.50,"b":[9007199254740993,true,null]} `))
	if !ok {
		t.Fatal("one object did not decode")
	}
	m := v.(map[string]any)
	if m["a"] != json.Number("1.50") || m["b"].([]any)[0] != json.Number("9007199254740993") {
		t.Errorf("numbers not kept as written: %#v", m)
	}
	for _, bad := range []string{``, `{`, `{} {}`, `{}x`, `[1,]`} {
		if _, ok := Decode([]byte(bad)); ok {
			t.Errorf("%q decoded as one JSON value", bad)
		}
	}
}

func TestFinite(t *testing.T) {
	for body, want := range map[string]bool{
		`{"a":[1,2.5,1e308,-1E-400]}`:        true,
		`{"a":[1,{"b":1e999}]}`:              false,
		`[-1E309]`:                           false,
		`{"s":"1e999"}`:                      true,
		`"` + strings.Repeat("9", 400) + `"`: true,
		strings.Repeat("9", 400):             false,
	} {
		v, ok := Decode([]byte(body))
		if !ok {
			t.Fatalf("%s did not decode", body)
		}
		if got := Finite(v); got != want {
			t.Errorf("Finite(%s) = %v, want %v", body, got, want)
		}
	}
}

func TestInt(t *testing.T) {
	for v, want := range map[any]int64{json.Number("42"): 42, json.Number("4.9"): 4, " 7 ": 7, 3.7: 3, int64(-2): -2} {
		if n, ok := Int(v); !ok || n != want {
			t.Errorf("Int(%#v) = %d, %v; want %d", v, n, ok, want)
		}
	}
	for _, v := range []any{"4.5", "x", nil, true, json.Number("x")} {
		if _, ok := Int(v); ok {
			t.Errorf("Int(%#v) reads a whole number", v)
		}
	}
}

func TestDropNulls(t *testing.T) {
	v := map[string]any{"a": nil, "b": []any{map[string]any{"c": nil, "d": 1.0}}, "e": "x"}
	got := DropNulls(v)
	want := map[string]any{"b": []any{map[string]any{"d": 1.0}}, "e": "x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DropNulls = %v, want %v", got, want)
	}
}

// A value that holds itself is walked to the bound, not forever.
func TestDropNullsStopsAtItsBound(t *testing.T) {
	m := map[string]any{"gone": nil}
	m["self"] = m
	DropNulls(m)
	if _, ok := m["gone"]; ok {
		t.Error("the top-level null was kept")
	}
}
