package spec

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/datamodel/low"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// Schema is the fake's compiled reading of one schema of a document:
// built once per document (Document.Schema), never changed once built, and
// read by any number of calls at once without a lock. libopenapi's model
// is lazy (first reads build parts of it, under the document's Guard) and
// keeps composition as written, so every reader used to walk allOf chains
// of its own; the model walks them once.
//
// A Schema is built in two steps. Its own keywords (the exported fields)
// are read when it is created; its children (properties, items, parts,
// branches) and the allOf merge only when a reader first asks for them,
// under the Guard. The published schema reaches thousands of schemas from
// any answer, and building all of them when the first is asked for made
// start-up pay for every schema the fake would ever read.
//
// A Schema holds the keywords as this schema writes them (Types, Items,
// AllOf, ...) and, where a reader needs composition resolved, allOf merged
// in: Props and Required cover the schema and every allOf part. A
// property declared by the schema and again by a part keeps the first
// declaration (the schema's own, else the earliest part's), which is how
// the fake has always read "the schema of property x".
//
// Children that libopenapi cannot resolve (a $ref to nowhere) are nil.
type Schema struct {
	// lib is the libopenapi schema this was compiled from (Lib), the
	// boundary to the validator and the synthesizer, which take
	// libopenapi's schemas. A leaf (see leaf.go) is read from its YAML
	// node and builds lib from src only when a caller asks for it.
	lib     *base.Schema
	src     *base.SchemaProxy
	libDone atomic.Bool
	// Ref is the $ref this schema was reached through ("" inline) and Name
	// the component it names (its last segment).
	Ref, Name string

	// Types are the types the type keyword lists (zero: absent).
	Types Types
	// Nullable is OpenAPI 3.0's `nullable: true`; 3.1 lists "null" among
	// the types instead (Types.Has(Null)).
	Nullable bool
	Format   string
	// Enum holds the enum's values as JSON decoding gives them (see
	// JSONValue).
	Enum     []any
	HasConst bool
	Pattern  string
	// MultipleOf is the keyword's value when it is a usable one (positive,
	// finite), else 0; HasMultipleOf says the keyword is there at all.
	MultipleOf    float64
	HasMultipleOf bool
	// Bounds on numbers, with 3.0's boolean and 3.1's numeric exclusive
	// bounds read the same way.
	Min, Max         float64
	HasMin, HasMax   bool
	ExclMin, ExclMax bool
	// Bounds on text, in characters; MaxLength < 0 is unbounded.
	MinLength, MaxLength int64

	// ItemsKeyword says the items keyword is there at all (also in 3.1's
	// boolean form, or unresolved); Items gives its schema.
	ItemsKeyword bool
	// OwnRequired is the schema's own required list.
	OwnRequired []string
	// Additional is what additionalProperties says; AdditionalSchema
	// gives its schema in mode AdditionalSchema.
	Additional Additional
	// HasNot says the not keyword is there (Not gives its schema).
	HasNot bool

	// Bare: the schema says only "type: object" (with annotations), how
	// the service's document renders a Java Object (see BareObject).
	Bare bool

	readOnly, writeOnly bool

	// Children, set when the schema is expanded (see expand).
	items               *Schema
	own                 []Prop
	extra               *Schema
	allOf, oneOf, anyOf []*Schema
	not                 *Schema
	discriminator       *Discriminator // see Discriminator
	discDone            atomic.Bool
	more                *More

	// Resolved when expanded, allOf merged in.
	props     []Prop
	propIndex map[string]int
	required  []string
	object    bool // isObject: declares an object, through allOf or a first oneOf branch
	declares  bool // declares a property, itself or through allOf
	plain     bool // no oneOf, anyOf, not, pattern, const or multipleOf, through allOf

	// doc expands the schema on first demand; state is the expansion's
	// progress, read and written under the Guard; done is set, last, once
	// everything above is written, and is all a reader checks.
	doc   *Document
	state uint8
	done  atomic.Bool
}

// More holds the keywords of a schema that only generation reads
// (mock/synth): the values the document gives (const, example, default),
// the bounds on arrays and objects, and the rarer children (prefixItems,
// patternProperties, propertyNames). Most schemas have none of them and
// share one empty More, so the model pays for them only where they are
// written.
type More struct {
	// Const is the const keyword's value, decoded (HasConst on the
	// Schema says the keyword is there; ConstOK that it decoded).
	Const   any
	ConstOK bool
	// Example is the example keyword's value, else the first of 3.1's
	// examples; Default the default's.
	Example            any
	HasExample         bool
	Default            any
	HasDefault         bool
	MinItems, MaxItems int64 // MaxItems < 0: unbounded
	UniqueItems        bool
	NoItems            bool  // 3.1's `items: false`
	MinProps, MaxProps int64 // MaxProps < 0: unbounded
	PrefixItems        []*Schema
	PatternProps       []PatternProp
	PropertyNames      *Schema
}

// PatternProp is one entry of patternProperties.
type PatternProp struct {
	Pattern string
	Schema  *Schema // nil when the reference does not resolve
}

// noMore is the More of a schema without any of its keywords.
var noMore = &More{MaxItems: -1, MaxProps: -1}

// More is the schema's generation keywords (never nil for a non-nil s).
// Callers must not change it.
func (s *Schema) More() *More {
	if s == nil {
		return noMore
	}
	s.ensure()
	return s.more
}

// Prop is one property of an object schema.
type Prop struct {
	Name   string
	Schema *Schema // nil when the document's reference does not resolve
}

// Types is a set of JSON types; zero means the type keyword is absent
// (any type).
type Types uint8

// The JSON types, as the type keyword names them.
const (
	Object Types = 1 << iota
	Array
	String
	Integer
	Number
	Boolean
	Null
)

var typeNames = map[string]Types{
	"object": Object, "array": Array, "string": String, "integer": Integer,
	"number": Number, "boolean": Boolean, "null": Null,
}

// TypesOf is the set of the type names listed; unknown names count for
// nothing.
func TypesOf(names []string) Types {
	var t Types
	for _, n := range names {
		t |= typeNames[n]
	}
	return t
}

// Has reports whether t holds any of u.
func (t Types) Has(u Types) bool { return t&u != 0 }

// Additional is what additionalProperties says. Absent and true differ
// for realism (absent: do not invent keys on objects that declare
// properties) though not for validity.
type Additional uint8

// The modes of additionalProperties.
const (
	AdditionalAbsent Additional = iota
	AdditionalTrue
	AdditionalFalse
	AdditionalSchema
)

// Discriminator is a schema's discriminator object.
type Discriminator struct {
	Property string
	// Mapping in document order; a target that is neither a component of
	// the document nor found by the index of the schema that maps to it
	// has a nil Schema.
	Mapping []Mapping
}

// Mapping is one discriminator value and the component it selects.
type Mapping struct {
	Value string
	// Ref is the target as a reference ("#/components/schemas/X", also
	// when the document wrote only the name).
	Ref    string
	Schema *Schema
}

// Prop finds the schema of a property declared by s or one of its allOf
// parts (oneOf and anyOf branches are not searched: a property declared
// only in some branches may not be valid in the one a value takes). It is
// nil when none declares it, and safe on a nil s.
func (s *Schema) Prop(name string) *Schema {
	if p := s.declared(name); p != nil {
		return p.Schema
	}
	return nil
}

func (s *Schema) declared(name string) *Prop {
	if s == nil {
		return nil
	}
	s.ensure()
	if s.propIndex != nil {
		if i, ok := s.propIndex[name]; ok {
			return &s.props[i]
		}
		return nil
	}
	for i := range s.props {
		if s.props[i].Name == name {
			return &s.props[i]
		}
	}
	return nil
}

// Props are the properties s declares itself or through allOf, in
// document order (its own first, then each part's). Callers must not
// change the slice.
func (s *Schema) Props() []Prop {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.props
}

// PropNames are the names of Props.
func (s *Schema) PropNames() []string {
	if s == nil {
		return nil
	}
	s.ensure()
	out := make([]string, len(s.props))
	for i, p := range s.props {
		out[i] = p.Name
	}
	return out
}

// Required reports whether s or one of its allOf parts requires name.
func (s *Schema) Required(name string) bool {
	if s == nil {
		return false
	}
	s.ensure()
	for _, r := range s.required {
		if r == name {
			return true
		}
	}
	return false
}

// RequiredNames are the names s and its allOf parts require, in document
// order, without repeats.
func (s *Schema) RequiredNames() []string {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.required
}

// Items is the schema of an array's items as s declares it, or nil.
func (s *Schema) Items() *Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.items
}

// Own are the properties s declares itself, in document order. Callers
// must not change the slice.
func (s *Schema) Own() []Prop {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.own
}

// AdditionalSchema is the schema additionalProperties gives, in mode
// AdditionalSchema; nil otherwise.
func (s *Schema) AdditionalSchema() *Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.extra
}

// AllOf, OneOf and AnyOf are the parts and branches as s lists them (nil
// where a reference does not resolve). Callers must not change the slices.
func (s *Schema) AllOf() []*Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.allOf
}

func (s *Schema) OneOf() []*Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.oneOf
}

func (s *Schema) AnyOf() []*Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.anyOf
}

// Not is the schema of the not keyword, or nil (see HasNot).
func (s *Schema) Not() *Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	return s.not
}

// Discriminator is the schema's discriminator, or nil.
func (s *Schema) Discriminator() *Discriminator {
	if s == nil {
		return nil
	}
	if !s.discDone.Load() {
		s.doc.Guard(func() { s.doc.compiler().discriminate(s) })
	}
	return s.discriminator
}

// ReadOnly and WriteOnly read the keywords of s itself (false for nil).
func (s *Schema) ReadOnly() bool  { return s != nil && s.readOnly }
func (s *Schema) WriteOnly() bool { return s != nil && s.writeOnly }

// Lib is the libopenapi schema s was compiled from (nil for a nil s):
// what the generator and the validator take, which read nil as
// "anything". A leaf builds it on the first call, under the document's
// Guard, so Lib must not be called while holding the Guard.
func (s *Schema) Lib() *base.Schema {
	if s == nil {
		return nil
	}
	if !s.libDone.Load() {
		s.doc.Guard(func() { s.doc.compiler().build(s) })
	}
	return s.lib
}

// EnumTypes are the JSON types of the values s's enum lists (zero
// without an enum). An integral number counts as both integer and number.
func (s *Schema) EnumTypes() Types {
	if s == nil {
		return 0
	}
	var t Types
	for _, v := range s.Enum {
		switch v.(type) {
		case map[string]any:
			t |= Object
		case []any:
			t |= Array
		case nil:
			t |= Null
		case bool:
			t |= Boolean
		case string:
			t |= String
		case int64:
			t |= Integer | Number
		default:
			t |= Number
		}
	}
	return t
}

// HasType reports whether the type keyword of s lists t.
func (s *Schema) HasType(t Types) bool { return s != nil && s.Types&t != 0 }

// IsArray reports whether s declares an array: by type or by items.
func (s *Schema) IsArray() bool {
	return s != nil && (s.Types&Array != 0 || s.Items() != nil)
}

// IsObject reports whether s declares an object: by type or properties,
// itself or through allOf, or as its first oneOf branch does.
func (s *Schema) IsObject() bool {
	if s == nil {
		return false
	}
	s.ensure()
	return s.object
}

// DeclaresProps reports whether s declares a property itself or through
// allOf: whether it describes a record rather than a free-form map.
func (s *Schema) DeclaresProps() bool {
	if s == nil {
		return false
	}
	s.ensure()
	return s.declares
}

// Plain reports whether a scalar can be judged against s from its types,
// enum, lengths, format and bounds alone: neither s nor an allOf part has
// oneOf, anyOf, not, a pattern, const or multipleOf.
func (s *Schema) Plain() bool {
	if s == nil {
		return true
	}
	s.ensure()
	return s.plain
}

// ListShape finds where a list answer keeps its items: the first array
// property whose items are objects ("workflows", "pipelines", "tokens").
func (s *Schema) ListShape() (key string, item *Schema) {
	for _, p := range s.Props() {
		if p.Schema.IsArray() && p.Schema.Items().IsObject() {
			return p.Name, p.Schema.Items()
		}
	}
	return "", nil
}

// Branches are the oneOf branches of s followed by its anyOf branches.
func (s *Schema) Branches() []*Schema {
	if s == nil {
		return nil
	}
	s.ensure()
	if len(s.anyOf) == 0 {
		return s.oneOf
	}
	return append(append(make([]*Schema, 0, len(s.oneOf)+len(s.anyOf)), s.oneOf...), s.anyOf...)
}

// Same reports whether a and b are the same declaration: one schema, or
// two references to one component.
func (s *Schema) Same(b *Schema) bool {
	if s == nil || b == nil {
		return false
	}
	if s == b {
		return true
	}
	sl, bl := s.Lib(), b.Lib()
	if sl == nil || bl == nil {
		return false
	}
	if sl == bl {
		return true
	}
	la, lb := sl.GoLow(), bl.GoLow()
	return la != nil && lb != nil && la.Hash() == lb.Hash()
}

// AnyProp is Prop that also looks into oneOf and anyOf branches, at any
// depth up to a bound: for finding what must be hidden (writeOnly
// secrets), where looking too widely is the safe mistake.
func (s *Schema) AnyProp(name string) *Schema { return s.anyProp(name, 0) }

func (s *Schema) anyProp(name string, depth int) *Schema {
	if s == nil || depth > maxDepth {
		return nil
	}
	if p := s.Prop(name); p != nil {
		return p
	}
	for _, group := range [][]*Schema{s.allOf, s.oneOf, s.anyOf} { // expanded by Prop
		for _, m := range group {
			if p := m.anyProp(name, depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

// maxDepth bounds the walks readers make over compiled schemas that are
// not merged in advance (branches): a cycle must not hang a call.
const maxDepth = 12

// Schema returns the compiled model of s, a schema of d. The first call
// for s creates it, under d's Guard; later calls only read. Nil gives nil.
func (d *Document) Schema(s *base.Schema) *Schema {
	if s == nil {
		return nil
	}
	return d.cached(&d.schemas, s, func(c *compiler) *Schema { return c.root(s) })
}

// SchemaOf is Schema for the schema behind a proxy (a media type's, a
// parameter's); nil when it has none or it does not resolve.
func (d *Document) SchemaOf(p *base.SchemaProxy) *Schema {
	if p == nil {
		return nil
	}
	return d.cached(&d.proxies, p, func(c *compiler) *Schema { return c.proxy(p) })
}

// Ref returns the compiled schema a $ref written ref ("#/components/
// schemas/Name") in idx gives, the same one every proxy for that
// reference gives, or nil when it does not resolve. A caller that meets
// components by their references (the synthesizer's warm-up) compiles
// them through it ahead of the schemas that refer to them.
func (d *Document) Ref(idx *index.SpecIndex, ref string) *Schema {
	return d.cached(&d.refs, refKey{idx, ref}, func(c *compiler) *Schema { return c.ref(idx, ref) })
}

// Component returns the compiled component schema named name, or nil.
func (d *Document) Component(name string) *Schema {
	return d.cached(&d.components, name, func(c *compiler) *Schema { return c.component(name) })
}

// cached is the compiled schema filed under key in m, created by compile
// on first demand, under d's Guard. It is expanded before any reader can
// find it: the first thing every reader asks for is a child or the merge.
func (d *Document) cached(m *sync.Map, key any, compile func(*compiler) *Schema) *Schema {
	if c, ok := m.Load(key); ok {
		return c.(*Schema)
	}
	var out *Schema
	d.Guard(func() {
		c := d.compiler()
		out = compile(c)
		c.expand(out)
	})
	m.Store(key, out)
	return out
}

// ensure expands s if no reader has yet: the one place a reader can wait
// for the Guard. Readers that find s expanded read without a lock.
func (s *Schema) ensure() {
	if s.done.Load() || s.doc == nil {
		return
	}
	s.doc.Guard(func() { s.doc.compiler().expand(s) })
}

// compiler returns the document's compiler; callers hold the Guard.
func (d *Document) compiler() *compiler {
	if d.comp == nil {
		d.comp = &compiler{doc: d, memo: map[any]*Schema{}}
	}
	return d.comp
}

// refKey identifies a $ref target. Every proxy for one $ref hands out its
// own copy of the target schema, so pointers cannot tell two references
// apart; the (index, reference) pair can, and it turns recursion into a
// cycle in the compiled graph instead of an endless walk.
type refKey struct {
	idx *index.SpecIndex
	ref string
}

// compiler turns libopenapi schemas into compiled ones. It runs under the
// document's Guard: it creates schemas with their own keywords (newSchema)
// and expands them, one at a time, when a reader first needs more.
type compiler struct {
	doc  *Document
	memo map[any]*Schema
}

// schemaRefPrefix is where a document's own components live.
const schemaRefPrefix = "#/components/schemas/"

func (c *compiler) root(s *base.Schema) *Schema {
	if n, ok := c.memo[s]; ok {
		return n
	}
	if p := s.ParentProxy; p != nil && p.IsReference() {
		return c.proxy(p)
	}
	return c.schema(s, "")
}

// proxy creates the schema behind a proxy, following references.
func (c *compiler) proxy(p *base.SchemaProxy) *Schema {
	if p == nil {
		return nil
	}
	if !p.IsReference() {
		if n := c.leaf(p); n != nil {
			return n
		}
		return c.schema(oasdoc.Schema(p), "")
	}
	ref := p.GetReference()
	var idx *index.SpecIndex
	if lp := p.GoLow(); lp != nil {
		idx = lp.GetIndex()
	}
	var key any = refKey{idx, ref}
	if strings.HasPrefix(ref, schemaRefPrefix) && c.doc.Model != nil && (idx == nil || idx == c.doc.Model.Index) {
		key = componentKey(ref[len(schemaRefPrefix):]) // the same Schema as Component gives
	}
	if n, ok := c.memo[key]; ok {
		return n
	}
	s := oasdoc.Schema(p)
	if s == nil {
		c.memo[key] = nil
		return nil
	}
	n := c.newSchema(s, ref)
	c.memo[key] = n
	return n
}

type componentKey string

// component creates the component named name: the same Schema a
// reference to it gives.
func (c *compiler) component(name string) *Schema {
	if n, ok := c.memo[componentKey(name)]; ok {
		return n
	}
	m := c.doc.Model
	if m == nil || m.Components == nil || m.Components.Schemas == nil {
		return nil
	}
	p, ok := m.Components.Schemas.Get(name)
	if !ok || p == nil {
		return nil
	}
	s := oasdoc.Schema(p)
	if s == nil {
		return nil
	}
	n := c.newSchema(s, schemaRefPrefix+name)
	c.memo[componentKey(name)] = n
	return n
}

// ref creates the schema a $ref written ref in idx gives: the same
// Schema a proxy for that reference gives. A component of the document
// is found in its model; anything else (a mapping target elsewhere, every
// reference of a detached document) in idx. Nil when neither finds it.
func (c *compiler) ref(idx *index.SpecIndex, ref string) *Schema {
	if strings.HasPrefix(ref, schemaRefPrefix) && c.doc.Model != nil && (idx == nil || idx == c.doc.Model.Index) {
		return c.component(ref[len(schemaRefPrefix):])
	}
	if idx == nil {
		return nil
	}
	key := refKey{idx, ref}
	if n, ok := c.memo[key]; ok {
		return n
	}
	t := indexedSchema(idx, ref)
	if t == nil {
		return nil
	}
	n := c.newSchema(t, ref)
	c.memo[key] = n
	return n
}

// indexedSchema builds the schema of the component ref names in idx; nil
// when there is none. The high-level model gives mapping targets only as
// text, so the target is looked up in the index and built from its node.
// (A proxy over a made-up $ref node would not do: libopenapi caches what
// it resolves by line and column, which made-up nodes share.)
func indexedSchema(idx *index.SpecIndex, ref string) (s *base.Schema) {
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

func (c *compiler) schema(s *base.Schema, ref string) *Schema {
	if s == nil {
		return nil
	}
	if n, ok := c.memo[s]; ok {
		return n
	}
	if p := s.ParentProxy; p != nil && c.memo[p] != nil && c.memo[p].src == p {
		n := c.memo[p]
		// A leaf whose schema libopenapi built for another reader (the
		// validator rendering its parent): one declaration, one Schema.
		c.adopt(n, s)
		return n
	}
	return c.newSchema(s, ref)
}

// newSchema creates the compiled schema of s with its own keywords; its
// children wait for expand.
func (c *compiler) newSchema(s *base.Schema, ref string) *Schema {
	n := &Schema{lib: s, Ref: ref, MaxLength: -1, doc: c.doc}
	n.libDone.Store(true)
	if _, ok := c.memo[s]; !ok {
		c.memo[s] = n // Document.Schema of its base finds it
	}
	if ref != "" {
		n.Name = RefName(ref)
	}
	keywords(n, s)
	return n
}

// RefName is the last segment of a JSON pointer reference, unescaped:
// "#/components/schemas/Foo" gives "Foo". Plain names come back as they are.
func RefName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		ref = ref[i+1:]
	}
	if strings.Contains(ref, "~") {
		ref = strings.ReplaceAll(strings.ReplaceAll(ref, "~1", "/"), "~0", "~")
	}
	return ref
}

// keywords copies the keywords of s that hold no schema into n.
func keywords(n *Schema, s *base.Schema) {
	n.Types = TypesOf(s.Type)
	n.Nullable = s.Nullable != nil && *s.Nullable
	n.Format = s.Format
	for _, e := range s.Enum {
		if v, ok := DecodeValue(e); ok {
			n.Enum = append(n.Enum, v)
		}
	}
	n.HasConst = s.Const != nil
	n.Pattern = s.Pattern
	if s.MultipleOf != nil {
		n.HasMultipleOf = true
		if usableMultiple(*s.MultipleOf) {
			n.MultipleOf = *s.MultipleOf
		}
	}
	n.readOnly = s.ReadOnly != nil && *s.ReadOnly
	n.writeOnly = s.WriteOnly != nil && *s.WriteOnly

	if s.Minimum != nil {
		n.Min, n.HasMin = *s.Minimum, true
	}
	if s.Maximum != nil {
		n.Max, n.HasMax = *s.Maximum, true
	}
	if e := s.ExclusiveMinimum; e != nil {
		if e.IsA() {
			n.ExclMin = e.A && n.HasMin
		} else if !n.HasMin || e.B >= n.Min {
			n.Min, n.HasMin, n.ExclMin = e.B, true, true
		}
	}
	if e := s.ExclusiveMaximum; e != nil {
		if e.IsA() {
			n.ExclMax = e.A && n.HasMax
		} else if !n.HasMax || e.B <= n.Max {
			n.Max, n.HasMax, n.ExclMax = e.B, true, true
		}
	}
	if s.MinLength != nil {
		n.MinLength = *s.MinLength
	}
	if s.MaxLength != nil {
		n.MaxLength = *s.MaxLength
	}
	n.ItemsKeyword = s.Items != nil
	n.OwnRequired = append(n.OwnRequired, s.Required...)
	if a := s.AdditionalProperties; a != nil {
		switch {
		case a.IsA() && a.A != nil:
			n.Additional = AdditionalSchema
		case a.IsA() || a.B:
			n.Additional = AdditionalTrue
		default:
			n.Additional = AdditionalFalse
		}
	}
	n.HasNot = s.Not != nil
	if low := s.GoLow(); low != nil {
		n.Bare = BareObject(low.GetRootNode())
	}
}

// usableMultiple reports whether m is a multipleOf a value can be a
// multiple of: positive and finite.
func usableMultiple(m float64) bool { return m > 0 && !math.IsInf(m, 0) }

// The states of expansion.
const (
	stRaw uint8 = iota
	stExpanding
	stDone
)

// expand creates the children of n and merges its allOf parts into its
// resolved views, expanding those parts first (and the first oneOf
// branch, which IsObject reads). A part that is still being expanded (an
// allOf cycle) adds nothing. Everything else n reaches is left for the
// reader that asks for it.
//
// So in an allOf cycle the member expanded first merges the others and
// the rest do not, and which is first depends on which a reader asks for
// first; before expansion was lazy it depended on start-up's order
// instead. A cycle of allOf is not a valid composition, so only the
// bound matters there (TestSchemaCycles), not which member gets the merge.
func (c *compiler) expand(n *Schema) {
	if n == nil || n.state != stRaw {
		return
	}
	n.state = stExpanding
	s := n.lib // built: only leaves build it late, and they are never expanded here
	if it := s.Items; it != nil && it.IsA() && it.A != nil {
		n.items = c.proxy(it.A)
	}
	for name, p := range s.Properties.FromOldest() {
		n.own = append(n.own, Prop{Name: name, Schema: c.proxy(p)})
	}
	if n.Additional == AdditionalSchema {
		n.extra = c.proxy(s.AdditionalProperties.A)
	}
	for _, p := range s.AllOf {
		n.allOf = append(n.allOf, c.proxy(p))
	}
	for _, p := range s.OneOf {
		n.oneOf = append(n.oneOf, c.proxy(p))
	}
	for _, p := range s.AnyOf {
		n.anyOf = append(n.anyOf, c.proxy(p))
	}
	if s.Not != nil {
		n.not = c.proxy(s.Not)
	}
	n.more = c.more(s)

	n.props = append([]Prop(nil), n.own...)
	n.required = appendNew(nil, n.OwnRequired...)
	n.object = n.Types&Object != 0 || len(n.own) > 0
	n.declares = len(n.own) > 0
	n.plain = len(n.oneOf) == 0 && len(n.anyOf) == 0 && !n.HasNot && n.Pattern == "" && !n.HasConst && !n.HasMultipleOf
	for _, part := range n.allOf {
		if part == nil {
			continue
		}
		c.expand(part)
		if part.state != stDone {
			n.plain = false // a cycle: as the depth-bounded walk it replaces said
			continue
		}
		for _, p := range part.props {
			if !hasProp(n.props, p.Name) {
				n.props = append(n.props, p)
			}
		}
		n.required = appendNew(n.required, part.required...)
		n.object = n.object || part.object
		n.declares = n.declares || part.declares
		n.plain = n.plain && part.plain
	}
	if !n.object && len(n.oneOf) > 0 && n.oneOf[0] != nil {
		c.expand(n.oneOf[0])
		n.object = n.oneOf[0].object
	}
	if len(n.props) > 8 {
		n.propIndex = make(map[string]int, len(n.props))
		for i, p := range n.props {
			n.propIndex[p.Name] = i
		}
	}
	n.state = stDone
	n.done.Store(true)
}

// discriminate creates n's discriminator and compiles the components its
// mapping selects; callers hold the Guard. It waits for the first reader
// of Discriminator rather than running in expand: the targets are whole
// components (the published schema maps a compute environment's
// configuration to some twenty), and most readers that expand a schema
// (start-up's look at each collection's shape) never ask for them.
func (c *compiler) discriminate(n *Schema) {
	if n.discDone.Load() {
		return
	}
	if s := n.lib; s != nil { // a leaf has no discriminator
		if d := s.Discriminator; d != nil && d.PropertyName != "" {
			n.discriminator = &Discriminator{Property: d.PropertyName}
			var idx *index.SpecIndex // where the targets are looked up: the schema's own index
			if ls := s.GoLow(); ls != nil {
				idx = ls.Index
			}
			for value, target := range d.Mapping.FromOldest() {
				ref := target
				if !strings.ContainsAny(target, "#/") { // a bare component name
					ref = schemaRefPrefix + target
				}
				n.discriminator.Mapping = append(n.discriminator.Mapping, Mapping{Value: value, Ref: ref, Schema: c.ref(idx, ref)})
			}
		}
	}
	n.discDone.Store(true)
}

// more reads the keywords of More from s, creating its children; noMore
// when s has none of them.
func (c *compiler) more(s *base.Schema) *More {
	if s.Const == nil && s.Example == nil && len(s.Examples) == 0 && s.Default == nil &&
		s.MinItems == nil && s.MaxItems == nil && s.UniqueItems == nil &&
		(s.Items == nil || s.Items.IsA()) && s.MinProperties == nil && s.MaxProperties == nil &&
		len(s.PrefixItems) == 0 && orderedmap.Len(s.PatternProperties) == 0 && s.PropertyNames == nil {
		return noMore
	}
	m := &More{MaxItems: -1, MaxProps: -1}
	m.Const, m.ConstOK = DecodeValue(s.Const)
	m.Example, m.HasExample = DecodeValue(s.Example)
	if !m.HasExample && len(s.Examples) > 0 {
		m.Example, m.HasExample = DecodeValue(s.Examples[0])
	}
	m.Default, m.HasDefault = DecodeValue(s.Default)
	if s.MinItems != nil {
		m.MinItems = *s.MinItems
	}
	if s.MaxItems != nil {
		m.MaxItems = *s.MaxItems
	}
	m.UniqueItems = s.UniqueItems != nil && *s.UniqueItems
	m.NoItems = s.Items != nil && !s.Items.IsA() && !s.Items.B
	if s.MinProperties != nil {
		m.MinProps = *s.MinProperties
	}
	if s.MaxProperties != nil {
		m.MaxProps = *s.MaxProperties
	}
	for _, p := range s.PrefixItems {
		m.PrefixItems = append(m.PrefixItems, c.proxy(p))
	}
	for pat, p := range s.PatternProperties.FromOldest() {
		m.PatternProps = append(m.PatternProps, PatternProp{Pattern: pat, Schema: c.proxy(p)})
	}
	if s.PropertyNames != nil {
		m.PropertyNames = c.proxy(s.PropertyNames)
	}
	return m
}

func hasProp(props []Prop, name string) bool {
	for _, p := range props {
		if p.Name == name {
			return true
		}
	}
	return false
}

func appendNew(dst []string, names ...string) []string {
	for _, n := range names {
		found := false
		for _, d := range dst {
			if d == n {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, n)
		}
	}
	return dst
}

// schemaCache holds a document's compiled schemas: lookups read without a
// lock, compilation happens under the Guard.
type schemaCache struct {
	schemas    sync.Map // *base.Schema -> *Schema
	proxies    sync.Map // *base.SchemaProxy -> *Schema
	components sync.Map // string -> *Schema
	refs       sync.Map // refKey -> *Schema
	comp       *compiler
}

// bareKeys are the keywords that, beside "type: object", make a schema
// say more than "an object".
var bareKeys = []string{
	"properties", "additionalProperties", "patternProperties", "propertyNames",
	"unevaluatedProperties", "dependentSchemas", "dependentRequired",
	"allOf", "oneOf", "anyOf", "not", "if", "then", "else", "$ref",
	"required", "enum", "const", "discriminator", "minProperties", "maxProperties",
}

// BareObject reports whether a schema node says only "type: object" (with
// annotations such as a description): how the service's document renders
// a Java Object, which Jackson fills with any JSON value.
func BareObject(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	t := oasdoc.MapValue(n, "type")
	if t == nil || t.Kind != yaml.ScalarNode || t.Value != "object" {
		return false
	}
	for _, k := range bareKeys {
		if oasdoc.MapValue(n, k) != nil {
			return false
		}
	}
	return true
}
