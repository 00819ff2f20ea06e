package jsonvalue

import (
	"encoding/json"
	"reflect"
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
