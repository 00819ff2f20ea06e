package synth

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// maxCheckDepth stops the checker on schemas that recurse without
// consuming the value (oneOf: [self, ...]); past it a value is assumed to
// match, which only ever makes disambiguation more cautious.
const maxCheckDepth = 48

// matches reports whether v satisfies n the way the server's validator
// (JSON Schema 2020-12 plus OpenAPI 3.0 nullable and discriminator
// presence) would judge it. The generator needs this to prove that a oneOf
// value matches exactly one branch, to vet examples and name heuristics
// against the constraints, and to retry `not`. mode matters because the
// validator drops readOnly properties from `required` for requests and
// writeOnly ones for responses.
func matches(n *node, v any, mode Mode, depth int) bool {
	return matchIn(n, v, mode, depth, nil)
}

// level is what matchIn knows about the one value it is checking while it
// follows compositions (allOf, oneOf, anyOf, not) that do not descend into
// the value: the composed nodes it is inside of, and the verdicts it has
// reached. A node met again inside itself is a cycle that cannot constrain
// the value any further, and a node reached along several compositions is
// judged once, so a check costs time linear in the schema's size however
// the compositions refer to each other; only a step into a property or an
// item starts a new level.
type level struct {
	inside  []*node
	verdict map[*node]bool
}

func matchIn(n *node, v any, mode Mode, depth int, lv *level) bool {
	if depth > maxCheckDepth {
		return true
	}
	n = n.f()
	if !n.composed() {
		return ownOK(n, v, mode, depth)
	}
	if lv == nil {
		lv = &level{verdict: map[*node]bool{}}
	}
	if ok, judged := lv.verdict[n]; judged {
		return ok
	}
	if slices.Contains(lv.inside, n) {
		return true
	}
	lv.inside = append(lv.inside, n)
	ok := ownOK(n, v, mode, depth) && composedOK(n, v, mode, depth, lv)
	lv.inside = lv.inside[:len(lv.inside)-1]
	lv.verdict[n] = ok
	return ok
}

// composed reports whether n combines other schemas for the same value.
func (n *node) composed() bool {
	return len(n.conj) > 0 || n.not != nil || len(n.oneOf) > 0 || len(n.anyOf) > 0 || len(n.exclusive) > 0
}

// composedOK checks the schemas n combines for the same value.
func composedOK(n *node, v any, mode Mode, depth int, lv *level) bool {
	for _, c := range n.conj {
		if !matchIn(c, v, mode, depth+1, lv) {
			return false
		}
	}
	if n.not != nil && matchIn(n.not, v, mode, depth+1, lv) {
		return false
	}
	if len(n.oneOf) > 0 && countMatches(n.oneOf, v, mode, depth, 2, lv) != 1 {
		return false
	}
	if len(n.anyOf) > 0 && countMatches(n.anyOf, v, mode, depth, 1, lv) == 0 {
		return false
	}
	for _, x := range n.exclusive {
		if matchIn(x, v, mode, depth+1, lv) {
			return false
		}
	}
	return true
}

// ownOK checks n's own keywords: type, const, enum and those of the
// value's kind, descending into properties and items.
func ownOK(n *node, v any, mode Mode, depth int) bool {
	if n.hasConst && !jsonEqual(v, n.constVal) {
		return false
	}
	if len(n.enum) > 0 && !(v == nil && n.nullable) && !inEnum(n.enum, v) {
		return false
	}
	switch x := v.(type) {
	case nil:
		if !n.allowsNull() {
			return false
		}
	case bool:
		if n.types != 0 && n.types&tBoolean == 0 {
			return false
		}
	case string:
		if n.types != 0 && n.types&tString == 0 {
			return false
		}
		if !stringOK(n, x) {
			return false
		}
	case map[string]any:
		if n.types != 0 && n.types&tObject == 0 {
			return false
		}
		if !objectOK(n, x, mode, depth) {
			return false
		}
	case []any:
		if n.types != 0 && n.types&tArray == 0 {
			return false
		}
		if !arrayOK(n, x, mode, depth) {
			return false
		}
	default:
		f, ok := jsonvalue.Number(v)
		if !ok {
			return false
		}
		if n.types != 0 && n.types&tNumber == 0 && (n.types&tInteger == 0 || !isIntegral(f)) {
			return false
		}
		if !numberOK(n, f) {
			return false
		}
	}
	return true
}

// countMatches counts branches v matches, stopping at limit.
func countMatches(branches []*node, v any, mode Mode, depth, limit int, lv *level) int {
	k := 0
	for _, b := range branches {
		if matchIn(b, v, mode, depth+1, lv) {
			if k++; k >= limit {
				break
			}
		}
	}
	return k
}

func stringOK(n *node, s string) bool {
	if n.minLen > 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if l < n.minLen || (n.maxLen >= 0 && l > n.maxLen) {
			return false
		}
	}
	for _, p := range n.patterns {
		if !p.match.MatchString(s) {
			return false
		}
	}
	return formatOK(n.format, s)
}

func numberOK(n *node, f float64) bool {
	if n.hasMin && (f < n.min || (n.exclMin && f == n.min)) {
		return false
	}
	if n.hasMax && (f > n.max || (n.exclMax && f == n.max)) {
		return false
	}
	if n.multipleOf > 0 && !isIntegral(f/n.multipleOf) {
		return false
	}
	switch n.format {
	case "int32":
		return f >= math.MinInt32 && f <= math.MaxInt32
	case "float":
		return math.Abs(f) <= math.MaxFloat32
	}
	return true
}

func arrayOK(n *node, a []any, mode Mode, depth int) bool {
	if len(a) < n.minItems || (n.maxItems >= 0 && len(a) > n.maxItems) {
		return false
	}
	for i, e := range a {
		var item *node
		switch {
		case i < len(n.prefix):
			item = n.prefix[i]
		case n.noItems:
			return false
		default:
			item = n.items
		}
		if item != nil && !matches(item, e, mode, depth+1) {
			return false
		}
	}
	if n.unique {
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if jsonEqual(a[i], a[j]) {
					return false
				}
			}
		}
	}
	return true
}

func objectOK(n *node, m map[string]any, mode Mode, depth int) bool {
	if len(m) < n.minProps || (n.maxProps >= 0 && len(m) > n.maxProps) {
		return false
	}
	for _, r := range n.required {
		if _, ok := m[r]; ok {
			continue
		}
		if pn, ok := n.propNode(r); ok {
			pf := pn.f()
			if (mode.dir() == Request && pf.readOnly) || (mode.dir() == Response && pf.writeOnly) {
				continue
			}
		}
		return false
	}
	if n.disc != nil {
		if _, ok := m[n.disc.Property]; !ok {
			return false
		}
	}
	for k, v := range m {
		if n.propertyNames != nil && !matches(n.propertyNames, k, mode, depth+1) {
			return false
		}
		if p := n.declared(k); p != nil {
			if !(v == nil && mode.nulls() && !p.required) && !matches(p.node, v, mode, depth+1) {
				return false
			}
			continue
		}
		matched := false
		for _, pp := range n.patternProps {
			if pp.pat.match.MatchString(k) {
				matched = true
				if !matches(pp.node, v, mode, depth+1) {
					return false
				}
			}
		}
		if matched {
			continue
		}
		switch n.addl {
		case addlFalse:
			return false
		case addlSchema:
			if !matches(n.addlNode, v, mode, depth+1) {
				return false
			}
		}
	}
	return true
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if jsonEqual(e, v) {
			return true
		}
	}
	return false
}

// isIntegral tolerates the rounding error of a float division, so
// 0.3/0.1 counts as a whole multiple.
func isIntegral(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	r := math.Round(f)
	return math.Abs(f-r) <= 1e-9*math.Max(1, math.Abs(f))
}

// jsonEqual compares two JSON values by value, treating all numeric
// representations alike (1 == 1.0 in JSON Schema).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	fa, ok1 := jsonvalue.Number(a)
	fb, ok2 := jsonvalue.Number(b)
	return ok1 && ok2 && fa == fb
}
