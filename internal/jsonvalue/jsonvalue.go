// Package jsonvalue holds what the fake does to decoded JSON values (the
// maps, slices, strings, numbers and bools encoding/json gives, and the
// Go numbers the generator makes): copy one deeply, read one as a number.
package jsonvalue

import "encoding/json"

// Clone copies maps and slices all the way down, so the copy can be
// changed without touching a value others hold (a cached answer, an
// enum's example).
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = Clone(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = Clone(e)
		}
		return a
	}
	return v
}

// Number reads any numeric form a decoder or the generator produces; ok
// is false for anything else (a numeric string included).
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
