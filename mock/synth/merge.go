package synth

import (
	"slices"
	"strings"
)

// flatten computes n.flat: n's own keywords with every allOf part merged
// in, so generation and checking never have to look at allOf again. A part
// that is still being flattened (an allOf cycle) is skipped; merging it
// would need a result that does not exist yet.
func flatten(n *node, c *compiler) *node {
	if n.flat != nil {
		return n.flat
	}
	if n.state == stFlattening {
		return nil
	}
	n.state = stFlattening
	f := n
	if len(n.allOf) > 0 {
		f = cloneOwn(n)
		for _, part := range n.allOf {
			if pf := flatten(part, c); pf != nil {
				mergeInto(f, pf, n, c)
			}
		}
	}
	f.flat = f
	n.flat = f
	n.state = stFlat
	f.state = stFlat
	finishFlat(f, n.name)
	if len(f.oneOf) > 0 || len(f.anyOf) > 0 {
		buildVariants(f, c, 0)
	}
	return f
}

// cloneOwn copies n without its allOf, with private slices so merging into
// the copy never writes through to n.
func cloneOwn(n *node) *node {
	f := *n
	f.allOf = nil
	f.flat = nil
	f.state = stRaw
	f.enum = slices.Clone(n.enum)
	f.patterns = slices.Clone(n.patterns)
	f.prefix = slices.Clone(n.prefix)
	f.props = slices.Clone(n.props)
	f.propIndex = nil
	f.required = slices.Clone(n.required)
	f.patternProps = slices.Clone(n.patternProps)
	f.oneOf = slices.Clone(n.oneOf)
	f.anyOf = slices.Clone(n.anyOf)
	f.variants = nil
	f.exclusive = slices.Clone(n.exclusive)
	f.conj = slices.Clone(n.conj)
	return &f
}

// containsSelf reports whether a oneOf/anyOf lists self: the "base lists
// its subtypes, subtypes allOf the base" layout. Comparing names as well as
// pointers catches the same component reached through different $refs.
func containsSelf(branches []*node, self *node) bool {
	for _, b := range branches {
		if b == self || (self != nil && self.name != "" && b.name == self.name) {
			return true
		}
	}
	return false
}

// mergeInto adds the constraints of the flattened part p to f (allOf
// semantics: both must hold). self is the schema being flattened, used to
// recognise a base type whose oneOf lists self, so a subtype does not
// choose among its siblings again; it records them as schemas it must not
// match instead.
func mergeInto(f, p *node, self *node, c *compiler) {
	if p == f {
		return
	}
	switch {
	case p.types == 0:
	case f.types == 0:
		f.types = p.types
	default:
		x := f.types & p.types
		if f.types&tNumber != 0 && p.types&tInteger != 0 {
			x |= tInteger
		}
		if p.types&tNumber != 0 && f.types&tInteger != 0 {
			x |= tInteger
		}
		if x != 0 { // contradictory types: keep ours, best effort
			f.types = x
		}
	}
	if f.format == "" {
		f.format = p.format
	}
	if len(p.enum) > 0 {
		if len(f.enum) == 0 {
			f.enum = slices.Clone(p.enum)
		} else {
			var both []any
			for _, e := range f.enum {
				if slices.ContainsFunc(p.enum, func(o any) bool { return jsonEqual(e, o) }) {
					both = append(both, e)
				}
			}
			if len(both) > 0 {
				f.enum = both
			}
		}
	}
	if !f.hasConst && p.hasConst {
		f.constVal, f.hasConst = p.constVal, true
	}
	if !f.hasExample && p.hasExample {
		f.example, f.hasExample = p.example, true
	}
	if !f.hasDefault && p.hasDefault {
		f.def, f.hasDefault = p.def, true
	}
	f.readOnly = f.readOnly || p.readOnly
	f.writeOnly = f.writeOnly || p.writeOnly

	if p.hasMin && (!f.hasMin || p.min > f.min || (p.min == f.min && p.exclMin)) {
		f.min, f.hasMin, f.exclMin = p.min, true, p.exclMin
	}
	if p.hasMax && (!f.hasMax || p.max < f.max || (p.max == f.max && p.exclMax)) {
		f.max, f.hasMax, f.exclMax = p.max, true, p.exclMax
	}
	if p.multipleOf > 0 {
		switch {
		case f.multipleOf == 0:
			f.multipleOf = p.multipleOf
		case isIntegral(p.multipleOf / f.multipleOf):
			f.multipleOf = p.multipleOf
		case isIntegral(f.multipleOf / p.multipleOf):
		default:
			f.multipleOf *= p.multipleOf
		}
	}

	f.minLen = max(f.minLen, p.minLen)
	f.maxLen = minBound(f.maxLen, p.maxLen)
	f.patterns = append(f.patterns, p.patterns...)

	switch {
	case p.items == nil:
	case f.items == nil:
		f.items = p.items
	default:
		f.items = mergeChild(f.items, p.items, c)
	}
	f.noItems = f.noItems || p.noItems
	if len(f.prefix) == 0 {
		f.prefix = slices.Clone(p.prefix)
	}
	f.minItems = max(f.minItems, p.minItems)
	f.maxItems = minBound(f.maxItems, p.maxItems)
	f.unique = f.unique || p.unique

	for _, pp := range p.props {
		if i := slices.IndexFunc(f.props, func(q prop) bool { return q.name == pp.name }); i >= 0 {
			f.props[i].node = mergeChild(f.props[i].node, pp.node, c)
		} else {
			f.props = append(f.props, prop{name: pp.name, node: pp.node})
		}
	}
	for _, r := range p.required {
		if !slices.Contains(f.required, r) {
			f.required = append(f.required, r)
		}
	}
	switch {
	case p.addl == addlUnset || p.addl == addlTrue && f.addl != addlUnset:
	case p.addl == addlFalse || f.addl == addlUnset || f.addl == addlTrue:
		// A closed part closes the whole object: not exact allOf semantics
		// (its closedness covers only its own properties) but the generator
		// only emits declared properties there anyway.
		if f.addl != addlFalse {
			f.addl, f.addlNode = p.addl, p.addlNode
		}
	case f.addl == addlSchema && p.addl == addlSchema:
		f.addlNode = mergeChild(f.addlNode, p.addlNode, c)
	}
	f.patternProps = append(f.patternProps, p.patternProps...)
	if f.propertyNames == nil {
		f.propertyNames = p.propertyNames
	}
	f.minProps = max(f.minProps, p.minProps)
	f.maxProps = minBound(f.maxProps, p.maxProps)

	switch {
	case len(p.oneOf) == 0:
	case containsSelf(p.oneOf, self):
		for _, b := range p.oneOf {
			if b != self && b.name != self.name {
				f.exclusive = append(f.exclusive, b)
			}
		}
	case len(f.oneOf) == 0:
		f.oneOf = slices.Clone(p.oneOf)
	default:
		f.conj = append(f.conj, &node{oneOf: p.oneOf, maxLen: -1, maxItems: -1, maxProps: -1})
	}
	switch {
	case len(p.anyOf) == 0 || containsSelf(p.anyOf, self):
	case len(f.anyOf) == 0:
		f.anyOf = slices.Clone(p.anyOf)
	default:
		f.conj = append(f.conj, &node{anyOf: p.anyOf, maxLen: -1, maxItems: -1, maxProps: -1})
	}
	if p.not != nil {
		if f.not == nil {
			f.not = p.not
		} else {
			f.conj = append(f.conj, &node{not: p.not, maxLen: -1, maxItems: -1, maxProps: -1})
		}
	}
	if f.disc == nil && p.disc != nil {
		f.disc, f.discOwn = p.disc, false
	}
	f.exclusive = append(f.exclusive, p.exclusive...)
	f.conj = append(f.conj, p.conj...)
	if !p.unresolved {
		f.unresolved = false
	}
}

// mergeChild returns a node requiring both a and b, for a property or
// items declared in two allOf parts.
func mergeChild(a, b *node, c *compiler) *node {
	if a == b || a.f() == b.f() {
		return a
	}
	m := c.newNode(nil, "")
	m.allOf = []*node{a, b}
	flatten(m, c)
	return m
}

// finishFlat indexes properties and works out the discriminator value a
// flattened node carries.
func finishFlat(f *node, name string) {
	if len(f.props) > 8 {
		f.propIndex = make(map[string]int, len(f.props))
		for i, p := range f.props {
			f.propIndex[p.name] = i
		}
	}
	for i := range f.props {
		p := &f.props[i]
		p.required = slices.Contains(f.required, p.name) || (f.disc != nil && f.disc.Property == p.name)
		p.usual = usual(name, p.name) // vocabulary.go
		p.field = field{h: lookupHeuristic(p.name), lname: strings.ToLower(p.name)}
		if h := vocabularyHeuristic(name, p.name); h != nil { // vocabulary.go
			p.field.h = h
		}
	}
	if f.disc != nil && f.discValue == "" && name != "" && (!f.discOwn || len(f.oneOf)+len(f.anyOf)+len(f.subtypes) == 0) {
		f.discValue = mappingKeyFor(f.disc, name)
	}
}

// buildVariants precomputes, for a oneOf/anyOf node, the node that results
// from merging its own keywords with each branch; generation then only
// picks a variant. Nested oneOf inside a branch gets variants of its own,
// to a small depth.
func buildVariants(f *node, c *compiler, depth int) {
	branches := f.oneOf
	if len(branches) == 0 {
		branches = f.anyOf
	}
	own := cloneOwn(f)
	if len(f.oneOf) > 0 {
		own.oneOf = nil
	} else {
		own.anyOf = nil
	}
	own.variants = nil
	f.variants = make([]*node, len(branches))
	for i, b := range branches {
		v := cloneOwn(own)
		bf := flatten(b, c)
		if bf == nil {
			bf = b
		}
		mergeInto(v, bf, b, c)
		v.flat = v
		v.state = stFlat
		v.discValue = ""
		if f.disc != nil && b.name != "" {
			v.discValue = mappingKeyFor(f.disc, b.name)
		}
		finishFlat(v, "")
		for i := range v.props { // the branch's usual shape (a compute env's aws-batch config)
			v.props[i].usual = v.props[i].usual || usual(b.name, v.props[i].name)
		}
		if (len(v.oneOf) > 0 || len(v.anyOf) > 0) && depth < 3 {
			buildVariants(v, c, depth+1)
		}
		f.variants[i] = v
	}
}

func minBound(a, b int) int {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}
