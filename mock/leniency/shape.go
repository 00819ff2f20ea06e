package leniency

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// A shape's types are the model's (spec.Types), with number and integer
// always set together: reading a body does not tell 1 from 1.0.
const (
	numeric = spec.Integer | spec.Number
	anyType = spec.Object | spec.Array | spec.String | numeric | spec.Boolean | spec.Null
)

// shapeTypes is t as a shape holds it: number and integer together.
func shapeTypes(t spec.Types) spec.Types {
	if t.Has(numeric) {
		t |= numeric
	}
	return t
}

// shape is what reading a body needs of one schema: a projection of the
// document's compiled model (spec.Schema) with the policy's exceptions
// applied and allOf merged the way the validator reads it. Shapes are built
// once per operation and only read afterwards, by any number of calls at
// once.
type shape struct {
	// types is what the schema lets a value be, as the validator reads it
	// (compositions included): a null is a deviation where tNull is out, a
	// number where tString is in and tNumber out.
	types spec.Types
	// bare: the schema says only "type: object" (a Java Object).
	bare bool
	// readOnly properties are not required in a request.
	readOnly bool
	// enum holds the string values the schema allows, for finding the
	// sibling that names a discriminated object's branch.
	enum []string

	props    map[string]*shape
	required map[string]bool
	// excepted are the required properties the profile lets a client
	// leave out.
	excepted []string
	extra    *shape // additionalProperties
	items    *shape

	// disc is set on a discriminated oneOf/anyOf.
	disc *discriminated
	// pairs are this object's discriminated properties with the sibling
	// that names their branch.
	pairs []pair
}

// discriminated is a oneOf whose discriminator property picks the branch.
type discriminated struct {
	prop string
	// branches maps each discriminator value to its branch, with the
	// parent's own properties merged in.
	branches map[string]*shape
}

// pair ties a discriminated property to the sibling naming its branch.
type pair struct {
	child, sibling string
}

// walkable reports whether an object of this shape has anything to read.
func (s *shape) walkable() bool {
	return s != nil && (s.props != nil || s.extra != nil || s.disc != nil || s.excepted != nil)
}

// prop is the shape of one member of an object of this shape.
func (s *shape) prop(key []byte) *shape {
	if p, ok := s.props[string(key)]; ok {
		return p
	}
	return s.extra
}

func (s *shape) pairOf(child []byte) (sibling string, ok bool) {
	for _, p := range s.pairs {
		if p.child == string(child) {
			return p.sibling, true
		}
	}
	return "", false
}

// maxDepth bounds how deep a schema is followed while building shapes;
// deeper parts are read as anything (left to the validator).
const maxDepth = 48

// compiler builds the shapes of one operation from the compiled model.
type compiler struct {
	r   *Reader
	doc *spec.Document
	v30 bool // OpenAPI 3.0: nullable means what it says
}

// compileBody builds the shape of op's JSON request body, or nil.
func (r *Reader) compileBody(op *spec.Operation) *shape {
	rb := op.Op.RequestBody
	if rb == nil || rb.Content == nil {
		return nil
	}
	for m := rb.Content.First(); m != nil; m = m.Next() {
		if spec.IsJSON(m.Key()) && m.Value() != nil && m.Value().Schema != nil {
			c := &compiler{r: r, doc: r.doc, v30: strings.HasPrefix(r.doc.OpenAPI, "3.0")}
			return c.child(op.SchemaOf(m.Value().Schema), 0)
		}
	}
	return nil
}

// child builds the shape of a schema met as a property, an item or a
// branch. A component (reached through a $ref) is built once and shared.
func (c *compiler) child(s *spec.Schema, depth int) *shape {
	if s == nil || depth > maxDepth {
		return nil
	}
	if s.Ref == "" {
		return c.schema(s, "", depth)
	}
	return c.component(s.Ref, s, depth)
}

// component builds the shape of the component ref names from its schema,
// once. A reference met again while its component is being built
// (recursion) gets the shape under construction.
func (c *compiler) component(ref string, s *spec.Schema, depth int) *shape {
	if sh, ok := c.r.shapes[ref]; ok {
		return sh
	}
	sh := &shape{types: anyType}
	c.r.shapes[ref] = sh
	if built := c.schema(s, componentName(ref), depth); built != nil {
		*sh = *built
	}
	return sh
}

func componentName(ref string) string {
	const prefix = "#/components/schemas/"
	if strings.HasPrefix(ref, prefix) {
		return ref[len(prefix):]
	}
	return ""
}

// schema builds a shape from a schema. owner names the component the
// schema is (or an inline allOf part of), for the required exceptions.
func (c *compiler) schema(s *spec.Schema, owner string, depth int) *shape {
	if s == nil || depth > maxDepth {
		return nil
	}
	sh := &shape{types: anyType}
	nullable := c.v30 && s.Nullable
	if s.Types != 0 {
		t := shapeTypes(s.Types)
		if nullable {
			t |= spec.Null
		}
		sh.types = t
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if text, ok := enumText(e); ok {
				sh.enum = append(sh.enum, text)
			}
		}
		t := shapeTypes(s.EnumTypes())
		if nullable {
			t |= spec.Null
		}
		sh.types &= t
	}
	sh.readOnly = s.ReadOnly()
	sh.bare = s.Bare

	if len(s.Own()) > 0 {
		sh.props = make(map[string]*shape, len(s.Own()))
		for _, p := range s.Own() {
			sh.props[p.Name] = c.child(p.Schema, depth+1)
		}
	}
	if len(s.OwnRequired) > 0 {
		sh.required = make(map[string]bool, len(s.OwnRequired))
		for _, name := range s.OwnRequired {
			if p := sh.props[name]; p == nil || !p.readOnly {
				sh.required[name] = true
			}
		}
	}
	c.except(sh, owner)
	if s.Additional == spec.AdditionalSchema {
		sh.extra = c.child(s.AdditionalSchema(), depth+1)
	}
	sh.items = c.child(s.Items(), depth+1)

	for _, part := range s.AllOf() {
		var ps *shape
		if part != nil && part.Ref != "" {
			ps = c.child(part, depth+1)
		} else {
			ps = c.schema(part, owner, depth+1)
		}
		merge(sh, ps)
	}
	if nullable && len(s.AllOf()) > 0 {
		// The validator reads "nullable" beside an allOf as "null, or
		// all of these" (libopenapi-validator's 3.0 transform).
		sh.types |= spec.Null
	}
	switch {
	case s.Discriminator() != nil && len(s.OneOf())+len(s.AnyOf()) > 0:
		c.discriminate(sh, s, depth)
	case len(s.OneOf()) > 0 || len(s.AnyOf()) > 0:
		// A composition without a discriminator: nothing inside is read,
		// but what it lets a value be still counts.
		var t spec.Types
		for _, b := range s.Branches() {
			if bs := c.child(b, depth+1); bs != nil {
				t |= bs.types
			} else {
				t = anyType
			}
		}
		sh.types &= t
	}
	c.pairs(sh)
	return sh
}

// except marks the required properties of a component that the profile
// lets a client leave out.
func (c *compiler) except(sh *shape, owner string) {
	for _, name := range c.r.exceptions[owner] {
		if sh.required[name] && !slices.Contains(sh.excepted, name) {
			sh.excepted = append(sh.excepted, name)
		}
	}
}

// discriminate reads a discriminated oneOf: each mapped value (or a
// branch's own component name, OpenAPI's implicit mapping) to its branch,
// merged with the parent's own properties.
func (c *compiler) discriminate(sh *shape, s *spec.Schema, depth int) {
	d := &discriminated{prop: s.Discriminator().Property, branches: map[string]*shape{}}
	own := *sh // the parent's properties, before the branches
	mapped := map[string]bool{}
	add := func(value, ref string, target *spec.Schema) {
		if target == nil {
			return
		}
		b := &shape{types: anyType}
		merge(b, &own)
		merge(b, c.component(ref, target, depth+1))
		d.branches[value] = b
		mapped[ref] = true
	}
	for _, m := range s.Discriminator().Mapping {
		add(m.Value, m.Ref, m.Schema)
	}
	for _, b := range s.Branches() {
		if ref := branchRef(b); ref != "" && !mapped[ref] {
			if name := componentName(ref); name != "" {
				add(ref[strings.LastIndexByte(ref, '/')+1:], ref, c.doc.Component(name))
			}
		}
	}
	var t spec.Types
	for _, b := range d.branches {
		t |= b.types
	}
	if len(d.branches) > 0 {
		sh.types &= t
	}
	sh.disc = d
}

// branchRef finds the component a oneOf branch names: a reference, or
// (as spec.Load rewrites discriminated branches) an allOf of the
// discriminator's guard and a reference.
func branchRef(b *spec.Schema) string {
	if b == nil {
		return ""
	}
	if b.Ref != "" {
		return b.Ref
	}
	for i := len(b.AllOf()) - 1; i >= 0; i-- {
		if p := b.AllOf()[i]; p != nil && p.Ref != "" {
			return p.Ref
		}
	}
	return ""
}

// pairs finds, for each discriminated property of an object, the sibling
// that names its branch: a string property at least half of whose enum
// values are the discriminator's values (credentials.provider "aws" for
// keys mapped by "aws"). Found from the document, so every such pair the
// service has is covered without a list.
func (c *compiler) pairs(sh *shape) {
	for child, cs := range sh.props {
		if cs == nil || cs.disc == nil || len(cs.disc.branches) == 0 {
			continue
		}
		best, bestCount := "", 0
		for sib, ss := range sh.props {
			if sib == child || ss == nil || len(ss.enum) == 0 || !ss.types.Has(spec.String) {
				continue
			}
			n := 0
			for _, v := range ss.enum {
				if cs.disc.branches[v] != nil {
					n++
				}
			}
			if n > 0 && 2*n >= len(ss.enum) && (n > bestCount || n == bestCount && sib < best) {
				best, bestCount = sib, n
			}
		}
		if best != "" {
			sh.pairs = append(sh.pairs, pair{child: child, sibling: best})
		}
	}
}

// merge lays src over dst as allOf does: a value must fit both.
func merge(dst, src *shape) {
	if src == nil {
		return
	}
	dst.types &= src.types
	dst.bare = dst.bare && src.bare
	dst.readOnly = dst.readOnly || src.readOnly
	if dst.enum == nil {
		dst.enum = src.enum
	}
	for name, p := range src.props {
		if dst.props == nil {
			dst.props = map[string]*shape{}
		}
		if have, ok := dst.props[name]; ok && have != nil && p != nil && have != p {
			both := *have
			both.props, both.required = cloneProps(have.props), cloneSet(have.required)
			both.excepted, both.pairs = append([]string(nil), have.excepted...), append([]pair(nil), have.pairs...)
			merge(&both, p)
			dst.props[name] = &both
		} else if !ok || have == nil {
			dst.props[name] = p
		}
	}
	for name := range src.required {
		if dst.required == nil {
			dst.required = map[string]bool{}
		}
		dst.required[name] = true
	}
	for _, name := range src.excepted {
		if !slices.Contains(dst.excepted, name) {
			dst.excepted = append(dst.excepted, name)
		}
	}
	if dst.extra == nil {
		dst.extra = src.extra
	}
	if dst.items == nil {
		dst.items = src.items
	}
	if dst.disc == nil {
		dst.disc = src.disc
	}
	for _, p := range src.pairs {
		if _, ok := dst.pairOf([]byte(p.child)); !ok {
			dst.pairs = append(dst.pairs, p)
		}
	}
}

func cloneProps(m map[string]*shape) map[string]*shape {
	if m == nil {
		return nil
	}
	out := make(map[string]*shape, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func cloneSet(m map[string]bool) map[string]bool {
	if m == nil {
		return nil
	}
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// enumText is a scalar, non-null enum value as text, for matching the
// values of a discriminator.
func enumText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

// removeKey deletes key from a mapping node the caller owns.
func removeKey(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i:i], n.Content[i+2:]...)
			return
		}
	}
}
