// Package jsonvalue holds what the fake does to decoded JSON values (the
// maps, slices, strings, numbers and bools encoding/json gives, and the
// Go numbers the generator makes): copy one deeply, read one as a number.
package jsonvalue

import (
	"encoding/json"
	"strconv"
	"strings"
)

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

// Int reads a whole number from a value a client sent loosely: a number
// (truncated toward zero) or text holding a whole number. The service
// takes either where its schema says a number (Nextflow reports some
// counters as text), so the fake reads both.
func Int(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		f, err := x.Float64()
		return int64(f), err == nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	if f, ok := Number(v); ok {
		return int64(f), true
	}
	return 0, false
}
