package spec

import (
	"fmt"
	"math"
	"time"

	"go.yaml.in/yaml/v4"
)

// JSONValue turns a value decoded from YAML into the value decoding the
// same data as JSON gives, in place where it can: every map key a string
// (YAML allows keys such as an unquoted 200, which JSON cannot hold),
// integers as int64 (float64 beyond its range), float32 as float64, and a
// time (an unquoted 2024-05-01) as the service writes times. The
// document's examples, the generator's enums and defaults, and the seeded
// records are all read through it.
func JSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = JSONValue(e)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = JSONValue(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = JSONValue(e)
		}
		return x
	case int:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05Z")
	}
	return v
}

// DecodeValue decodes an enum, const, example or default node into the
// value JSON decoding would give (see JSONValue); a timestamp-looking
// scalar stays the text it is. It reports false for a nil node or one that
// does not decode.
func DecodeValue(n *yaml.Node) (any, bool) {
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp" {
		return n.Value, true
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, false
	}
	return JSONValue(v), true
}
