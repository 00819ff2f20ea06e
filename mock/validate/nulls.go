package validate

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
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
//
// The schemas the root references sit once under its $defs (see
// compileInline) and are rewritten there as schemas of their own. Where a
// composition's branch is such a reference and its holder requires
// something, the branch is judged in that context: it gets a copy of its
// own under $defs, rewritten with what the holder requires (one per
// schema and requirement, however often it is met).
func allowNulls(root *yaml.Node) {
	resolve := defsOf(root)
	defs := oasdoc.MapValue(root, "$defs")
	// pristine are the referenced schemas before any rewriting, for the
	// copies made in a holder's context.
	pristine := map[string]*yaml.Node{}
	if defs != nil && defs.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(defs.Content); j += 2 {
			pristine[defs.Content[j].Value] = deepCopy(defs.Content[j+1])
		}
	}
	variants := map[string]string{}
	made := map[*yaml.Node]bool{} // the copies in context, rewritten as they are made
	var walk func(s *yaml.Node, inherited []string)
	// inContext returns a reference to the copy of the schema ref names
	// judged with what its holder requires, making it on first use.
	inContext := func(ref string, req []string) string {
		name := strings.TrimPrefix(ref, "#/$defs/")
		src, ok := pristine[name]
		if !ok || len(variants) >= maxVariants {
			return ""
		}
		// Only what the schema declares matters: the rest would give
		// the same rewrite as the schema's own.
		declared := declaredBy(src, resolve, 0)
		req = slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(req))), func(p string) bool { return !declared[p] })
		if len(req) == 0 {
			return ""
		}
		key := name + "\x00" + strings.Join(req, "\x00")
		if v, ok := variants[key]; ok {
			return v
		}
		v := name + "-" + strconv.Itoa(len(variants))
		variants[key] = v
		c := deepCopy(src)
		made[c] = true
		defs.Content = append(defs.Content, scalarNode(v), c)
		walk(c, req)
		return v
	}
	walk = func(s *yaml.Node, inherited []string) {
		if s == nil || s.Kind != yaml.MappingNode {
			return
		}
		req := append(slices.Clone(inherited), requiredOf(s, resolve, 0)...)
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
				for k, c := range sequence(v) {
					if ref, ok := refOf(c); ok && len(req) > 0 && defs != nil {
						if name := inContext(ref, req); name != "" {
							v.Content[k] = mapping("$ref", "#/$defs/"+name)
						}
						continue
					}
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
						if !made[v.Content[j]] {
							walk(v.Content[j], nil)
						}
					}
				}
			}
			// not, if/then/else, contains and propertyNames are left as
			// written: letting more through there would refuse more.
		}
	}
	walk(root, nil)
	if len(made) > 0 {
		dropUnused(root)
	}
}

// declaredBy is the set of properties s declares, itself or in the
// schemas it composes, to any depth.
func declaredBy(s *yaml.Node, resolve func(*yaml.Node) *yaml.Node, depth int) map[string]bool {
	out := map[string]bool{}
	var visit func(s *yaml.Node, depth int)
	visit = func(s *yaml.Node, depth int) {
		s = resolve(s)
		if s == nil || s.Kind != yaml.MappingNode || depth > maxDefsDepth {
			return
		}
		if props := oasdoc.MapValue(s, "properties"); props != nil && props.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(props.Content); j += 2 {
				out[props.Content[j].Value] = true
			}
		}
		for _, key := range []string{"allOf", "oneOf", "anyOf"} {
			for _, c := range sequence(oasdoc.MapValue(s, key)) {
				visit(c, depth+1)
			}
		}
	}
	visit(s, depth)
	return out
}

// dropUnused removes from root's $defs the schemas no reference reaches
// any more (those every use of which now goes to a copy in context): the
// compiler would check and index them all the same.
func dropUnused(root *yaml.Node) {
	defs := oasdoc.MapValue(root, "$defs")
	if defs == nil || defs.Kind != yaml.MappingNode {
		return
	}
	byName := map[string]*yaml.Node{}
	for j := 0; j+1 < len(defs.Content); j += 2 {
		byName[defs.Content[j].Value] = defs.Content[j+1]
	}
	used := map[string]bool{}
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		if n == nil || n == defs {
			return
		}
		if n.Kind == yaml.MappingNode {
			if ref, ok := refOf(n); ok && strings.HasPrefix(ref, "#/$defs/") {
				name := strings.TrimPrefix(ref, "#/$defs/")
				if !used[name] {
					used[name] = true
					visit(byName[name])
				}
				return
			}
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	visit(root)
	kept := defs.Content[:0:0]
	for j := 0; j+1 < len(defs.Content); j += 2 {
		if used[defs.Content[j].Value] {
			kept = append(kept, defs.Content[j], defs.Content[j+1])
		}
	}
	defs.Content = kept
}

// maxVariants bounds the copies allowNulls makes of referenced schemas in
// their holders' contexts; past it a branch is judged on its own.
const maxVariants = 1024

// deepCopy copies the mappings and sequences of n (its scalars are shared:
// nothing changes them).
func deepCopy(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind == yaml.ScalarNode {
		return n
	}
	out := *n
	out.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out.Content[i] = deepCopy(c)
	}
	return &out
}

// requiredOf lists what s requires of its object: its required list, its
// discriminator's property, and the same of its allOf parts.
func requiredOf(s *yaml.Node, resolve func(*yaml.Node) *yaml.Node, depth int) []string {
	s = resolve(s)
	if s == nil || s.Kind != yaml.MappingNode || depth > maxDefsDepth {
		return nil
	}
	var out []string
	for _, name := range sequence(oasdoc.MapValue(s, "required")) {
		if name.Kind == yaml.ScalarNode {
			out = append(out, name.Value)
		}
	}
	if d := oasdoc.MapValue(s, "discriminator"); d != nil && d.Kind == yaml.MappingNode {
		if p := oasdoc.MapValue(d, "propertyName"); p != nil && p.Kind == yaml.ScalarNode {
			out = append(out, p.Value)
		}
	}
	for _, part := range sequence(oasdoc.MapValue(s, "allOf")) {
		out = append(out, requiredOf(part, resolve, depth+1)...)
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
