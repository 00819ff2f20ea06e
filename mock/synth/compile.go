package synth

import (
	"math"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// compiler turns the document's compiled schemas (spec.Schema) into nodes:
// one raw node per schema, holding what generation adds to the model
// (compiled patterns, names, subtypes), then flattened (merge.go). The
// model walks libopenapi's schemas, resolves references and discriminator
// mappings; the compiler only reads it, expanding what it reaches (each
// expansion under the document's lock, which the compiler never holds
// itself). It is used under the generator's mutex; all nodes it creates in
// one call are flattened before the call returns, so callers only ever see
// finished nodes.
type compiler struct {
	doc      *spec.Document
	guard    func(func())
	memo     map[*spec.Schema]*node
	dangling map[danglingKey]*node // nodes of references that do not resolve
	patterns map[string]*pattern
	batch    []*node // raw nodes created by the current call
}

// danglingKey identifies a reference the model could not resolve, so that
// every place it is written gets one node, as a resolved reference does.
type danglingKey struct {
	idx *index.SpecIndex
	ref string
}

func newCompiler(doc *spec.Document, guard func(func())) *compiler {
	return &compiler{doc: doc, guard: guard, memo: map[*spec.Schema]*node{},
		dangling: map[danglingKey]*node{}, patterns: map[string]*pattern{}}
}

// root compiles a schema handed to Value and returns its flattened node.
func (c *compiler) root(s *base.Schema) *node {
	c.batch = c.batch[:0]
	m := c.doc.Schema(s)
	n, ok := c.memo[m]
	switch {
	case m == nil:
		n = c.newNode(nil, "")
		n.unresolved = true
	case !ok && m.Ref == "":
		// A component fetched from components/schemas is not a reference,
		// but its key node carries the component name, which implicit
		// discriminator values need.
		name := ""
		c.guard(func() {
			if p := s.ParentProxy; p != nil {
				if k := p.GetSchemaKeyNode(); k != nil && k.Kind == yaml.ScalarNode {
					name = k.Value
				}
			}
		})
		n = c.schema(m, name)
	default:
		n = c.schema(m, m.Name)
	}
	c.finish()
	return n.f()
}

// schema returns the raw node of m, creating it (and, depth first, the
// nodes of everything it reaches) on first demand. name is the node's
// name when it is created: the component it was reached through.
func (c *compiler) schema(m *spec.Schema, name string) *node {
	if n, ok := c.memo[m]; ok {
		return n
	}
	n := c.newNode(m, name)
	c.memo[m] = n
	c.fill(n, m)
	return n
}

// child is the node of a child the model gives: m, or where the model has
// none (a reference that does not resolve), an unresolved node for the
// proxy p the schema wrote. A nil p (no child at all) gives nil.
func (c *compiler) child(m *spec.Schema, p *base.SchemaProxy) *node {
	if m != nil {
		return c.schema(m, m.Name)
	}
	if p == nil {
		return nil
	}
	var key danglingKey
	c.guard(func() {
		if p.IsReference() {
			key.ref = p.GetReference()
			if lp := p.GoLow(); lp != nil {
				key.idx = lp.GetIndex()
			}
		}
	})
	if key.ref == "" {
		n := c.newNode(nil, "")
		n.unresolved = true
		return n
	}
	if n, ok := c.dangling[key]; ok {
		return n
	}
	n := c.newNode(nil, spec.RefName(key.ref))
	n.unresolved = true
	c.dangling[key] = n
	return n
}

func (c *compiler) newNode(m *spec.Schema, name string) *node {
	n := &node{schema: m, name: name, maxLen: -1, maxItems: -1, maxProps: -1}
	c.batch = append(c.batch, n)
	return n
}

// fill copies the keywords of m into the raw node n, compiling children
// depth first in the order the flattening of allOf cycles has always
// depended on: items, prefixItems, properties, additionalProperties,
// patternProperties, propertyNames, allOf, oneOf, anyOf, not, subtypes.
// Where the model has no child for a keyword that is there, the schema's
// own proxy says which reference failed (base, read under the lock).
func (c *compiler) fill(n *node, m *spec.Schema) {
	more := m.More()
	n.types = m.Types
	n.nullable = m.Nullable
	n.format = m.Format
	n.enum = m.Enum
	n.constVal, n.hasConst = more.Const, more.ConstOK
	n.example, n.hasExample = more.Example, more.HasExample
	n.def, n.hasDefault = more.Default, more.HasDefault
	n.readOnly = m.ReadOnly()
	n.writeOnly = m.WriteOnly()

	n.min, n.hasMin, n.exclMin = m.Min, m.HasMin, m.ExclMin
	n.max, n.hasMax, n.exclMax = m.Max, m.HasMax, m.ExclMax
	n.multipleOf = m.MultipleOf

	n.minLen = clampInt(m.MinLength)
	if m.MaxLength >= 0 {
		n.maxLen = clampInt(m.MaxLength)
	}
	if p := c.pattern(m.Pattern); p != nil {
		n.patterns = append(n.patterns, p)
	}

	if items := m.Items(); items != nil {
		n.items = c.schema(items, items.Name)
	} else if m.ItemsKeyword && !more.NoItems {
		n.items = c.child(nil, c.proxyOf(m, func(s *base.Schema) *base.SchemaProxy {
			if s.Items.IsA() {
				return s.Items.A
			}
			return nil
		}))
	}
	n.noItems = more.NoItems
	for i, p := range more.PrefixItems {
		n.prefix = append(n.prefix, c.child(p, c.missing(p, m, func(s *base.Schema) *base.SchemaProxy { return s.PrefixItems[i] })))
	}
	n.minItems = clampInt(more.MinItems)
	if more.MaxItems >= 0 {
		n.maxItems = clampInt(more.MaxItems)
	}
	n.unique = more.UniqueItems

	for _, p := range m.Own() {
		n.props = append(n.props, prop{name: p.Name, node: c.child(p.Schema, c.missing(p.Schema, m, func(s *base.Schema) *base.SchemaProxy {
			return s.Properties.GetOrZero(p.Name)
		}))})
	}
	n.required = m.OwnRequired
	n.addl = m.Additional
	if n.addl == addlSchema {
		extra := m.AdditionalSchema()
		n.addlNode = c.child(extra, c.missing(extra, m, func(s *base.Schema) *base.SchemaProxy { return s.AdditionalProperties.A }))
	}
	for i, pp := range more.PatternProps {
		if cp := c.pattern(pp.Pattern); cp != nil {
			n.patternProps = append(n.patternProps, patternProp{pat: cp, node: c.child(pp.Schema, c.missing(pp.Schema, m, func(s *base.Schema) *base.SchemaProxy {
				return s.PatternProperties.GetOrZero(more.PatternProps[i].Pattern)
			}))})
		}
	}
	n.propertyNames = c.child(more.PropertyNames, c.missing(more.PropertyNames, m, func(s *base.Schema) *base.SchemaProxy { return s.PropertyNames }))
	n.minProps = clampInt(more.MinProps)
	if more.MaxProps >= 0 {
		n.maxProps = clampInt(more.MaxProps)
	}

	for i, p := range m.AllOf() {
		if cn := c.child(p, c.missing(p, m, func(s *base.Schema) *base.SchemaProxy { return s.AllOf[i] })); cn != nil {
			n.allOf = append(n.allOf, cn)
		}
	}
	for i, p := range m.OneOf() {
		if cn := c.child(p, c.missing(p, m, func(s *base.Schema) *base.SchemaProxy { return s.OneOf[i] })); cn != nil {
			n.oneOf = append(n.oneOf, cn)
		}
	}
	for i, p := range m.AnyOf() {
		if cn := c.child(p, c.missing(p, m, func(s *base.Schema) *base.SchemaProxy { return s.AnyOf[i] })); cn != nil {
			n.anyOf = append(n.anyOf, cn)
		}
	}
	if m.HasNot {
		not := m.Not()
		n.not = c.child(not, c.missing(not, m, func(s *base.Schema) *base.SchemaProxy { return s.Not }))
	}

	if d := m.Discriminator(); d != nil {
		n.disc, n.discOwn = d, true
		// The classic base type, whose subtypes extend it with allOf:
		// generating it picks one of them.
		if len(n.oneOf) == 0 && len(n.anyOf) == 0 {
			for _, t := range d.Mapping {
				if t.Schema != nil {
					n.subtypes = append(n.subtypes, subtype{key: t.Value, node: c.schema(t.Schema, t.Schema.Name)})
				}
			}
		}
	}
}

// missing reads, under the lock, the proxy a schema wrote for a child the
// model has none for (child nil); nothing when child is there.
func (c *compiler) missing(child, m *spec.Schema, get func(*base.Schema) *base.SchemaProxy) *base.SchemaProxy {
	if child != nil {
		return nil
	}
	return c.proxyOf(m, get)
}

// proxyOf reads a proxy from m's libopenapi schema under the lock. The
// schema is fetched first, outside it: Lib may take the lock itself. A
// leaf writes no child, and building its libopenapi schema to find that
// out would undo what leaves save.
func (c *compiler) proxyOf(m *spec.Schema, get func(*base.Schema) *base.SchemaProxy) (p *base.SchemaProxy) {
	if m.Leaf() {
		return nil
	}
	s := m.Lib()
	if s == nil {
		return nil
	}
	c.guard(func() { p = get(s) })
	return p
}

func (c *compiler) pattern(src string) *pattern {
	if src == "" {
		return nil
	}
	if p, ok := c.patterns[src]; ok {
		return p
	}
	p := compilePattern(src)
	c.patterns[src] = p
	return p
}

// finish flattens every node created by this call and attaches property
// heuristics. Flattening needs only raw allOf parts, which are complete
// once fill has returned, so the order is irrelevant.
func (c *compiler) finish() {
	for i := 0; i < len(c.batch); i++ { // flattening may append merged nodes
		flatten(c.batch[i], c)
	}
}

func clampInt(v int64) int {
	if v < 0 {
		return 0
	}
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(v)
}
