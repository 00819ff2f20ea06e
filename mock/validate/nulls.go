package validate

import (
	"slices"

	"go.yaml.in/yaml/v4"
)

// allowNulls rewrites an inlined response schema to accept the service's
// nulls (WithNulls): a property an object schema declares, and that no
// schema judging the same object requires, also takes null. Nothing else
// is let through: a required property, a map's values (additionalProperties),
// an array's items and an undeclared property still refuse null as the
// schema says. A discriminator's property counts as required, since the
// service always names the type.
//
// "Judging the same object" is the schema itself, its allOf parts (to any
// depth) and, for a oneOf or anyOf branch, the schema holding the branch:
// a property declared in one allOf part and required by another is never
// null. A property the holding schema declares and only one branch
// requires may be null under this check, since which branch applies is
// not known where the property is rewritten; the generator never sends
// that (it judges each branch merged with its holder).
func allowNulls(root *yaml.Node) {
	var walk func(s *yaml.Node, inherited []string)
	walk = func(s *yaml.Node, inherited []string) {
		if s == nil || s.Kind != yaml.MappingNode {
			return
		}
		req := append(slices.Clone(inherited), requiredOf(s, 0)...)
		for i := 0; i+1 < len(s.Content); i += 2 {
			v := s.Content[i+1]
			switch s.Content[i].Value {
			case "properties":
				if v.Kind != yaml.MappingNode {
					continue
				}
				for j := 0; j+1 < len(v.Content); j += 2 {
					p := v.Content[j+1]
					walk(p, nil)
					if p.Kind == yaml.MappingNode && !slices.Contains(req, v.Content[j].Value) {
						v.Content[j+1] = orNull(p)
					}
				}
			case "allOf", "oneOf", "anyOf":
				for _, c := range sequence(v) {
					walk(c, req)
				}
			case "prefixItems":
				for _, c := range sequence(v) {
					walk(c, nil)
				}
			case "items", "additionalProperties", "unevaluatedProperties":
				walk(v, nil)
			case "patternProperties", "$defs", "definitions", "dependentSchemas":
				if v.Kind == yaml.MappingNode {
					for j := 1; j < len(v.Content); j += 2 {
						walk(v.Content[j], nil)
					}
				}
			}
			// not, if/then/else, contains and propertyNames are left as
			// written: letting more through there would refuse more.
		}
	}
	walk(root, nil)
}

// requiredOf lists what s requires of its object: its required list, its
// discriminator's property, and the same of its allOf parts.
func requiredOf(s *yaml.Node, depth int) []string {
	if s == nil || s.Kind != yaml.MappingNode || depth > 32 {
		return nil
	}
	var out []string
	for _, name := range sequence(mapValue(s, "required")) {
		if name.Kind == yaml.ScalarNode {
			out = append(out, name.Value)
		}
	}
	if d := mapValue(s, "discriminator"); d != nil && d.Kind == yaml.MappingNode {
		if p := mapValue(d, "propertyName"); p != nil && p.Kind == yaml.ScalarNode {
			out = append(out, p.Value)
		}
	}
	for _, part := range sequence(mapValue(s, "allOf")) {
		out = append(out, requiredOf(part, depth+1)...)
	}
	return out
}

// orNull is a schema that takes what p takes, and null: p itself with null
// among its types where that is all it takes, else p or null. The first
// keeps the compiled schema as small as the document's (wrapping every
// property more than doubled the compile time of the published schema's
// answers).
func orNull(p *yaml.Node) *yaml.Node {
	if addNullType(p) {
		return p
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		scalarNode("anyOf"), {Kind: yaml.SequenceNode, Content: []*yaml.Node{p, mapping("type", "null")}},
	}}
}

// addNullType adds null to the types of p, and to its enum, in place, when
// no other keyword of p can refuse a null: every other keyword a plain
// schema has applies to values of one type only. It reports false, and
// leaves p alone, when p has no type or composes schemas.
func addNullType(p *yaml.Node) bool {
	ti, ei := -1, -1
	for i := 0; i+1 < len(p.Content); i += 2 {
		switch p.Content[i].Value {
		case "type":
			ti = i + 1
		case "enum":
			ei = i + 1
		case "allOf", "oneOf", "anyOf", "not", "$ref", "const", "if":
			return false
		}
	}
	if ti < 0 || ei >= 0 && p.Content[ei].Kind != yaml.SequenceNode {
		return false
	}
	null := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	// New nodes replace the type and enum: the inliner shares scalars with
	// the document, and nothing of the document may change.
	types := &yaml.Node{Kind: yaml.SequenceNode}
	switch t := p.Content[ti]; t.Kind {
	case yaml.ScalarNode:
		types.Content = []*yaml.Node{t, scalarNode("null")}
	case yaml.SequenceNode:
		types.Content = append(slices.Clone(t.Content), scalarNode("null"))
	default:
		return false
	}
	p.Content[ti] = types
	if ei >= 0 {
		p.Content[ei] = &yaml.Node{Kind: yaml.SequenceNode, Content: append(slices.Clone(p.Content[ei].Content), null)}
	}
	return true
}

// sequence is the items of a sequence node, or nothing.
func sequence(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
