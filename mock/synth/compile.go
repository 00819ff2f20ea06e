package synth

import (
	"math"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// refKey identifies a $ref target. Every proxy for the same $ref hands out
// its own copy of the target schema, so pointers cannot tell two references
// apart; the (index, reference) pair can, and it also makes recursion a
// cycle in the node graph instead of an endless walk.
type refKey struct {
	idx *index.SpecIndex
	ref string
}

// compiler turns libopenapi schemas into nodes. It is used under the
// generator's mutex; all nodes it creates in one call are flattened before
// the call returns, so callers only ever see finished nodes.
type compiler struct {
	memo     map[any]*node
	patterns map[string]*pattern
	batch    []*node // raw nodes created by the current call
}

func newCompiler() *compiler {
	return &compiler{memo: map[any]*node{}, patterns: map[string]*pattern{}}
}

// root compiles a schema handed to Value and returns its flattened node.
func (c *compiler) root(s *base.Schema) *node {
	c.batch = c.batch[:0]
	var n *node
	if p := s.ParentProxy; p != nil && p.IsReference() {
		n = c.proxy(p)
	} else {
		name := ""
		if p != nil {
			// A component fetched from components/schemas is not a reference,
			// but its key node carries the component name, which implicit
			// discriminator values need.
			if k := p.GetSchemaKeyNode(); k != nil && k.Kind == yaml.ScalarNode {
				name = k.Value
			}
		}
		n = c.schema(s, name)
	}
	c.finish()
	return n.f()
}

// proxy compiles the schema behind a proxy, following references.
func (c *compiler) proxy(p *base.SchemaProxy) *node {
	if p == nil {
		return nil
	}
	if p.IsReference() {
		ref := p.GetReference()
		var idx *index.SpecIndex
		if lp := p.GoLow(); lp != nil {
			idx = lp.GetIndex()
		}
		key := refKey{idx, ref}
		if n, ok := c.memo[key]; ok {
			return n
		}
		n := c.newNode(spec.RefName(ref))
		c.memo[key] = n
		if s := oasdoc.Schema(p); s != nil {
			c.fill(n, s)
		} else {
			n.unresolved = true
		}
		return n
	}
	s := oasdoc.Schema(p)
	if s == nil {
		n := c.newNode("")
		n.unresolved = true
		return n
	}
	return c.schema(s, "")
}

func (c *compiler) schema(s *base.Schema, name string) *node {
	if n, ok := c.memo[s]; ok {
		return n
	}
	n := c.newNode(name)
	c.memo[s] = n
	c.fill(n, s)
	return n
}

func (c *compiler) newNode(name string) *node {
	n := &node{name: name, maxLen: -1, maxItems: -1, maxProps: -1}
	c.batch = append(c.batch, n)
	return n
}

// fill copies the keywords of s into the raw node n, compiling children.
func (c *compiler) fill(n *node, s *base.Schema) {
	n.types = spec.TypesOf(s.Type)
	n.nullable = s.Nullable != nil && *s.Nullable
	n.format = s.Format
	for _, e := range s.Enum {
		if v, ok := spec.DecodeValue(e); ok {
			n.enum = append(n.enum, v)
		}
	}
	n.constVal, n.hasConst = spec.DecodeValue(s.Const)
	n.example, n.hasExample = spec.DecodeValue(s.Example)
	if !n.hasExample && len(s.Examples) > 0 {
		n.example, n.hasExample = spec.DecodeValue(s.Examples[0])
	}
	n.def, n.hasDefault = spec.DecodeValue(s.Default)
	n.readOnly = s.ReadOnly != nil && *s.ReadOnly
	n.writeOnly = s.WriteOnly != nil && *s.WriteOnly

	if s.Minimum != nil {
		n.min, n.hasMin = *s.Minimum, true
	}
	if s.Maximum != nil {
		n.max, n.hasMax = *s.Maximum, true
	}
	if e := s.ExclusiveMinimum; e != nil {
		if e.IsA() {
			n.exclMin = e.A && n.hasMin
		} else if !n.hasMin || e.B >= n.min {
			n.min, n.hasMin, n.exclMin = e.B, true, true
		}
	}
	if e := s.ExclusiveMaximum; e != nil {
		if e.IsA() {
			n.exclMax = e.A && n.hasMax
		} else if !n.hasMax || e.B <= n.max {
			n.max, n.hasMax, n.exclMax = e.B, true, true
		}
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 && !math.IsInf(*s.MultipleOf, 0) {
		n.multipleOf = *s.MultipleOf
	}

	if s.MinLength != nil {
		n.minLen = clampInt(*s.MinLength)
	}
	if s.MaxLength != nil {
		n.maxLen = clampInt(*s.MaxLength)
	}
	if p := c.pattern(s.Pattern); p != nil {
		n.patterns = append(n.patterns, p)
	}

	if it := s.Items; it != nil {
		if it.IsA() {
			if it.A != nil {
				n.items = c.proxy(it.A)
			}
		} else if !it.B {
			n.noItems = true
		}
	}
	for _, p := range s.PrefixItems {
		n.prefix = append(n.prefix, c.proxy(p))
	}
	if s.MinItems != nil {
		n.minItems = clampInt(*s.MinItems)
	}
	if s.MaxItems != nil {
		n.maxItems = clampInt(*s.MaxItems)
	}
	n.unique = s.UniqueItems != nil && *s.UniqueItems

	for name, p := range s.Properties.FromOldest() {
		n.props = append(n.props, prop{name: name, node: c.proxy(p)})
	}
	n.required = append(n.required, s.Required...)
	if a := s.AdditionalProperties; a != nil {
		switch {
		case a.IsA() && a.A != nil:
			n.addl, n.addlNode = addlSchema, c.proxy(a.A)
		case a.IsA():
			n.addl = addlTrue
		case a.B:
			n.addl = addlTrue
		default:
			n.addl = addlFalse
		}
	}
	for pat, p := range s.PatternProperties.FromOldest() {
		if cp := c.pattern(pat); cp != nil {
			n.patternProps = append(n.patternProps, patternProp{pat: cp, node: c.proxy(p)})
		}
	}
	if s.PropertyNames != nil {
		n.propertyNames = c.proxy(s.PropertyNames)
	}
	if s.MinProperties != nil {
		n.minProps = clampInt(*s.MinProperties)
	}
	if s.MaxProperties != nil {
		n.maxProps = clampInt(*s.MaxProperties)
	}

	for _, p := range s.AllOf {
		if cn := c.proxy(p); cn != nil {
			n.allOf = append(n.allOf, cn)
		}
	}
	for _, p := range s.OneOf {
		if cn := c.proxy(p); cn != nil {
			n.oneOf = append(n.oneOf, cn)
		}
	}
	for _, p := range s.AnyOf {
		if cn := c.proxy(p); cn != nil {
			n.anyOf = append(n.anyOf, cn)
		}
	}
	if s.Not != nil {
		n.not = c.proxy(s.Not)
	}

	if d := s.Discriminator; d != nil && d.PropertyName != "" {
		n.disc = &discriminator{prop: d.PropertyName}
		n.discOwn = true
		for key, target := range d.Mapping.FromOldest() {
			n.disc.mapping = append(n.disc.mapping, discMapping{key: key, target: spec.RefName(target)})
		}
		if len(n.oneOf) == 0 && len(n.anyOf) == 0 && d.Mapping != nil {
			c.resolveSubtypes(n, s, d)
		}
	}
}

// resolveSubtypes compiles the targets of a discriminator mapping. The
// high-level model only gives the targets as reference strings, so each is
// looked up in the schema's index and built from its component node. (A
// proxy over a synthetic $ref node would not do: libopenapi caches
// resolved references by source line and column, which synthetic nodes
// share.)
func (c *compiler) resolveSubtypes(n *node, s *base.Schema, d *base.Discriminator) {
	ls := s.GoLow()
	if ls == nil || ls.Index == nil {
		return
	}
	for key, target := range d.Mapping.FromOldest() {
		ref := target
		if !strings.Contains(ref, "#") && !strings.Contains(ref, "/") {
			ref = "#/components/schemas/" + ref
		}
		rk := refKey{ls.Index, ref}
		sub, ok := c.memo[rk]
		if !ok {
			sub = c.buildComponent(ls.Index, ref)
			if sub == nil {
				continue
			}
			c.memo[rk] = sub
		}
		if !sub.unresolved {
			n.subtypes = append(n.subtypes, subtype{key: key, node: sub})
		}
	}
}

// buildComponent compiles the component a reference points at, or returns
// nil when the index cannot find it.
func (c *compiler) buildComponent(idx *index.SpecIndex, ref string) (n *node) {
	defer func() {
		if recover() != nil {
			n = nil
		}
	}()
	s := buildComponentSchema(idx, ref) // prepare.go
	if s == nil {
		return nil
	}
	n = c.newNode(spec.RefName(ref))
	c.fill(n, s)
	return n
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
