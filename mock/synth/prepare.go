package synth

import (
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// Compiling ahead of a call. The generator compiles a schema on the first
// call that needs it, and on a large document one answer can reach a
// hundred components (the published schema's audit log list): tens of
// milliseconds of that call. A server warming up in the background
// compiles them before, with PrepareRef one component at a time (so a
// call never waits on the generator's lock for more than one), in the
// order ComponentRefs gives, every component after those it refers to
// (so each step compiles its own component and finds the rest done), and
// then Prepare for each answer's schema. The work is the one a call
// would do, under the same locks, into the same memo: preparing changes
// no value the generator makes, only when the compiling is paid.

// Prepare compiles schema for generation now, as the first Value, Fits or
// ValueContext for it would. A schema that trips an internal error is
// left for the call to meet.
func (g *Generator) Prepare(schema *base.Schema) {
	if schema == nil {
		return
	}
	defer func() { _ = recover() }()
	g.node(schema)
}

// PrepareRef compiles the component ref names in idx ("#/components/
// schemas/Name") as a schema reaching it through a $ref would: the same
// model schema (spec.Document.Ref), so the same node, made and remembered
// before its children, so that cycles end the same way. A component the
// model cannot find is left for the call that meets it.
func (g *Generator) PrepareRef(idx *index.SpecIndex, ref string) {
	if idx == nil {
		return
	}
	m := g.doc.Ref(idx, ref)
	if m == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.comp
	if _, ok := c.memo[m]; ok {
		return
	}
	c.batch = c.batch[:0]
	defer func() {
		if recover() != nil {
			// The nodes of this step may be unfinished: forget them,
			// so the call that needs them compiles them afresh.
			for _, b := range c.batch {
				if b.schema != nil && c.memo[b.schema] == b {
					delete(c.memo, b.schema)
				}
				for k, n := range c.dangling {
					if n == b {
						delete(c.dangling, k)
					}
				}
			}
			c.batch = c.batch[:0]
		}
	}()
	c.schema(m, m.Name)
	c.finish()
}

// componentPrefix is where a document's own schemas are referred to.
const componentPrefix = "#/components/schemas/"

// ComponentRefs lists the components of components (name to YAML node)
// that the schemas in roots reach, through $refs and discriminator
// mappings, as references ("#/components/schemas/Name"), each after the
// components it refers to (in a cycle, after those it refers to outside
// the cycle). It reads the YAML only: the caller holds the document's
// lock when libopenapi may be writing to the nodes.
func ComponentRefs(roots []*yaml.Node, components map[string]*yaml.Node) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(n *yaml.Node)
	// enter takes a reference as written (the memo's key is the written
	// one) and visits its component once, whatever the spelling.
	enter := func(ref string) {
		if !strings.HasPrefix(ref, componentPrefix) {
			return
		}
		name := spec.RefName(ref)
		node, ok := components[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		visit(node)
		out = append(out, ref)
	}
	visit = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.AliasNode {
			n = n.Alias
			if n == nil {
				return
			}
		}
		if n.Kind != yaml.MappingNode {
			for _, c := range n.Content {
				visit(c)
			}
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch {
			case k.Value == "$ref" && v.Kind == yaml.ScalarNode:
				enter(v.Value)
			case k.Value == "discriminator" && v.Kind == yaml.MappingNode:
				for j := 0; j+1 < len(v.Content); j += 2 {
					if v.Content[j].Value != "mapping" {
						continue
					}
					m := v.Content[j+1]
					for l := 1; l < len(m.Content); l += 2 {
						// Written as the model reads it (spec's discriminator mapping).
						target := m.Content[l].Value
						if !strings.Contains(target, "/") && !strings.Contains(target, "#") {
							target = componentPrefix + target
						}
						enter(target)
					}
				}
			default:
				visit(v)
			}
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}
