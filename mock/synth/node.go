package synth

import "github.com/wmsmock/wmsmock/mock/spec"

// typeMask is a set of JSON types, the model's (spec.Types). Zero means
// "any type", as in JSON Schema when the type keyword is absent.
type typeMask = spec.Types

const (
	tObject  = spec.Object
	tArray   = spec.Array
	tString  = spec.String
	tInteger = spec.Integer
	tNumber  = spec.Number
	tBoolean = spec.Boolean
	tNull    = spec.Null
)

// What additionalProperties says, the model's (spec.Additional).
const (
	addlUnset  = spec.AdditionalAbsent
	addlTrue   = spec.AdditionalTrue
	addlFalse  = spec.AdditionalFalse
	addlSchema = spec.AdditionalSchema
)

// node is the generator's own, immutable view of a schema of the model
// (spec.Schema): the schema's keywords as generation reads them, plus what
// it adds (compiled patterns, names, subtypes, and once flattened the
// allOf merge, oneOf variants and sibling exclusions, which the generator
// merges its own way: a property declared twice requires both
// declarations, where the model keeps the first). A node is built once per
// schema (raw: as written, children point at raw nodes), then flattened
// (allOf merged in) and never changed again, so concurrent generators
// share it without locks.
type node struct {
	// schema is the model's schema the node generates for (nil for an
	// unresolved reference, and for the nodes merging makes).
	schema     *spec.Schema
	name       string // component name when reached through a $ref
	unresolved bool   // a $ref libopenapi could not resolve, or a nil schema

	types    typeMask
	nullable bool // OpenAPI 3.0 `nullable: true`
	format   string

	enum       []any
	constVal   any
	hasConst   bool
	example    any
	hasExample bool
	def        any
	hasDefault bool

	readOnly, writeOnly bool

	// numbers
	min, max         float64
	hasMin, hasMax   bool
	exclMin, exclMax bool
	multipleOf       float64

	// strings; maxLen < 0 means unbounded
	minLen, maxLen int
	patterns       []*pattern

	// arrays; maxItems < 0 means unbounded
	items              *node
	noItems            bool // items: false (3.1)
	prefix             []*node
	minItems, maxItems int
	unique             bool

	// objects; maxProps < 0 means unbounded
	props         []prop
	propIndex     map[string]int
	required      []string
	addl          spec.Additional
	addlNode      *node
	patternProps  []patternProp
	propertyNames *node
	minProps      int
	maxProps      int

	// composition as written (raw nodes only)
	allOf []*node
	oneOf []*node
	anyOf []*node
	not   *node

	disc    *spec.Discriminator
	discOwn bool // declared on this schema, not inherited through allOf

	// subtypes are the resolved targets of an own discriminator mapping on a
	// schema without oneOf/anyOf: the classic "base type" that subtypes
	// extend with allOf. Generating the base picks one of them.
	subtypes []subtype

	// set by flattening
	flat      *node   // the flattened view of a raw node (itself when flat)
	variants  []*node // oneOf/anyOf: own constraints merged with each branch
	discValue string  // value the discriminator property takes on this node
	exclusive []*node // schemas a value must NOT match (sibling oneOf branches)
	conj      []*node // further constraints merging could not fold in
	state     uint8
}

type prop struct {
	name     string
	node     *node
	required bool
	// usual: the service always fills it in answers (vocabulary.go).
	usual bool
	field field
}

// field is what a value knows about the property it fills: the name
// heuristic (nil if none) and the lower-cased name, which timestamp
// ordering looks at.
type field struct {
	h     *heuristic
	lname string
}

type patternProp struct {
	pat  *pattern
	node *node
}

type subtype struct {
	key  string
	node *node
}

const (
	stRaw uint8 = iota
	stFlattening
	stFlat
)

// f returns the flattened view of n, or an empty node for nil.
func (n *node) f() *node {
	if n == nil {
		return emptyNode
	}
	if n.flat != nil {
		return n.flat
	}
	return n
}

// emptyNode stands in for a missing schema; it is never modified.
var emptyNode = &node{unresolved: true, maxLen: -1, maxItems: -1, maxProps: -1, flat: nil}

func (n *node) allowsNull() bool {
	return n.types == 0 || n.types&tNull != 0 || n.nullable
}

func (n *node) propNode(name string) (*node, bool) {
	if p := n.declared(name); p != nil {
		return p.node, true
	}
	return nil, false
}

// declared returns the property name as n declares it, or nil.
func (n *node) declared(name string) *prop {
	if n.propIndex != nil {
		if i, ok := n.propIndex[name]; ok {
			return &n.props[i]
		}
		return nil
	}
	for i := range n.props {
		if n.props[i].name == name {
			return &n.props[i]
		}
	}
	return nil
}

// mappingKeyFor returns the value of d that selects the component named
// target: its mapping key, else (as OpenAPI specifies for implicit
// mapping) the component name itself.
func mappingKeyFor(d *spec.Discriminator, target string) string {
	for _, m := range d.Mapping {
		if spec.RefName(m.Ref) == target {
			return m.Value
		}
	}
	return target
}
