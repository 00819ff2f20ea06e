// Package jsonvalue holds what the fake does to decoded JSON values (the
// maps, slices, strings, numbers and bools encoding/json gives, and the
// Go numbers the generator makes): copy one deeply, read one as a number,
// drop its nulls.
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

// maxNullsDepth bounds DropNulls: decoded answers and requests nest a few
// levels, and a value built with a cycle must not hang a call.
const maxNullsDepth = 24

// DropNulls removes null members from objects at any depth, in place, and
// returns v. In a request a null means "not given", and the fake's own
// comparisons of answers take null and absent for the same.
func DropNulls(v any) any { return dropNulls(v, 0) }

func dropNulls(v any, depth int) any {
	if depth > maxNullsDepth {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e, depth+1)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e, depth+1)
		}
	}
	return v
}
