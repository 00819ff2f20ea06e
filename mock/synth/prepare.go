package synth

import (
	"context"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/datamodel/low"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
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
// schemas/Name") as a schema reaching it through a $ref would: under the
// same memo key, its node made and remembered before its children, so
// that cycles end the same way. A component the index cannot find or
// libopenapi cannot build is left for the call that meets it, which then
// compiles it as it always has.
func (g *Generator) PrepareRef(idx *index.SpecIndex, ref string) {
	if idx == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.guard(func() {
		c := g.comp
		key := refKey{idx, ref}
		if _, ok := c.memo[key]; ok {
			return
		}
		s := buildComponentSchema(idx, ref)
		if s == nil {
			return
		}
		c.batch = c.batch[:0]
		defer func() {
			if recover() != nil {
				// The nodes of this step may be unfinished: forget them,
				// so the call that needs them compiles them afresh.
				for k, n := range c.memo {
					for _, b := range c.batch {
						if n == b {
							delete(c.memo, k)
						}
					}
				}
				c.batch = c.batch[:0]
			}
		}()
		n := c.newNode(spec.RefName(ref))
		c.memo[key] = n
		c.fill(n, s)
		c.finish()
	})
}

// componentSchema builds the schema of the component ref names in idx, as
// compiler.buildComponent does; nil when there is none.
func buildComponentSchema(idx *index.SpecIndex, ref string) (s *base.Schema) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	ctx := context.Background()
	comp := idx.FindComponent(ctx, ref)
	if comp == nil || comp.Node == nil {
		return nil
	}
	cidx := comp.Index
	if cidx == nil {
		cidx = idx
	}
	lp := new(lowbase.SchemaProxy)
	if err := lp.Build(ctx, comp.KeyNode, comp.Node, cidx); err != nil {
		return nil
	}
	hp := base.NewSchemaProxy(&low.NodeReference[*lowbase.SchemaProxy]{Value: lp, ValueNode: comp.Node, KeyNode: comp.KeyNode})
	return oasdoc.Schema(hp)
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
						// Written as resolveSubtypes reads it.
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
