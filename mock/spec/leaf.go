package spec

import (
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// Leaves: most schemas a document writes inline are scalars with a few
// keywords (a property's `type: string, format: date-time`). Building
// libopenapi's model of one (its low-level schema, then the high-level
// one) costs far more than reading its keywords, and on the published
// schema those builds were half of start-up's state step and most of the
// first call to a large answer, for schemas whose libopenapi model no
// caller ever asked for. So a leaf is read from its YAML node, the same
// way libopenapi reads it, and its libopenapi schema is built only when a
// caller asks for it (Lib).
//
// A schema is read as a leaf only when every key is one this file reads in
// exactly libopenapi's way, or an annotation nothing reads; anything else
// (a child schema, a $ref, an alias, a merge key, exclusive bounds whose
// reading depends on the document's version, a key spelled in another
// case, which libopenapi matches without regard to case) is built by
// libopenapi as before. TestLeavesReadAsLibopenapiBuilds holds the two
// readings to each other over every inline schema of the documents.

// leafKeys are the keys a leaf may have, and how each is read.
var leafKeys = map[string]leafKey{
	"type": keyType, "format": keyText, "pattern": keyText,
	"description": keyNote, "title": keyNote, "deprecated": keyNote,
	"nullable": keyBool, "readOnly": keyBool, "writeOnly": keyBool,
	"minLength": keyInt, "maxLength": keyInt,
	"minimum": keyNumber, "maximum": keyNumber, "multipleOf": keyNumber,
	"enum": keyValues, "examples": keyValues,
	"example": keyValue, "default": keyValue, "const": keyValue,
}

type leafKey uint8

const (
	keyNote      leafKey = iota // a scalar read by nothing here
	keyExtension                // an x- key: anything, read by nothing here
	keyType
	keyText
	keyBool
	keyInt
	keyNumber
	keyValues
	keyValue
)

// leafNode reports whether n is a schema this file reads as a leaf.
func leafNode(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content)%2 != 0 || n.Tag != "!!map" && n.Tag != "" {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" && k.Tag != "" || v.Kind == yaml.AliasNode {
			return false
		}
		how, ok := leafKeys[k.Value]
		if !ok {
			if !strings.HasPrefix(k.Value, "x-") {
				return false
			}
			how = keyExtension
		}
		for j := 0; j < i; j += 2 {
			if n.Content[j].Value == k.Value {
				return false // which one counts is libopenapi's business
			}
		}
		switch how {
		case keyType:
			if v.Kind == yaml.SequenceNode {
				for _, t := range v.Content {
					if t.Kind != yaml.ScalarNode {
						return false
					}
				}
			} else if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				return false
			}
		case keyText, keyBool, keyInt, keyNumber, keyNote:
			if v.Kind != yaml.ScalarNode {
				return false
			}
		case keyValues:
			if v.Kind != yaml.SequenceNode {
				return false
			}
			for _, e := range v.Content {
				if e.Kind == yaml.AliasNode {
					return false
				}
			}
		}
	}
	return true
}

// leaf creates the compiled schema behind the inline proxy p from its
// YAML when it is a leaf, and returns nil when it is not.
func (c *compiler) leaf(p *base.SchemaProxy) *Schema {
	if n, ok := c.memo[p]; ok {
		return n
	}
	node := p.GetValueNode()
	if !leafNode(node) {
		return nil
	}
	n := &Schema{src: p, MaxLength: -1, doc: c.doc}
	n.more = leafKeywords(n, node)
	n.object = n.Types&Object != 0
	n.plain = n.Pattern == "" && !n.HasConst && !n.HasMultipleOf
	n.state = stDone
	n.done.Store(true)
	c.memo[p] = n
	return n
}

// Leaf reports whether s was read as a leaf: a schema that writes no
// child schema at all (no properties, items, parts, branches, not, ...),
// so a reader looking for a child's proxy need not build s's libopenapi
// schema to find there is none.
func (s *Schema) Leaf() bool { return s != nil && s.src != nil }

// leafKeywords reads the keywords of the leaf node into n, each as
// libopenapi's builder reads it (low.BuildModel and the schema's Build,
// then the high-level NewSchema, then keywords above), and returns its
// More.
func leafKeywords(n *Schema, node *yaml.Node) *More {
	var example, examples, def, konst *yaml.Node
	for i := 0; i < len(node.Content); i += 2 {
		k, v := node.Content[i].Value, node.Content[i+1]
		switch k {
		case "type":
			if v.Kind == yaml.SequenceNode {
				for _, t := range v.Content {
					n.Types |= typeNames[t.Value]
				}
			} else {
				n.Types = typeNames[v.Value]
			}
		case "format":
			n.Format = v.Value
		case "pattern":
			n.Pattern = v.Value
		case "nullable":
			n.Nullable = yamlBool(v)
		case "readOnly":
			n.readOnly = yamlBool(v)
		case "writeOnly":
			n.writeOnly = yamlBool(v)
		case "minLength":
			if isNumber(v) {
				n.MinLength, _ = strconv.ParseInt(v.Value, 10, 64)
			}
		case "maxLength":
			if isNumber(v) {
				n.MaxLength, _ = strconv.ParseInt(v.Value, 10, 64)
			}
		case "minimum":
			if isNumber(v) {
				n.Min, _ = strconv.ParseFloat(v.Value, 64)
				n.HasMin = true
			}
		case "maximum":
			if isNumber(v) {
				n.Max, _ = strconv.ParseFloat(v.Value, 64)
				n.HasMax = true
			}
		case "multipleOf":
			if isNumber(v) {
				m, _ := strconv.ParseFloat(v.Value, 64)
				n.HasMultipleOf = true
				if usableMultiple(m) {
					n.MultipleOf = m
				}
			}
		case "enum":
			for _, e := range v.Content {
				if d, ok := DecodeValue(e); ok {
					n.Enum = append(n.Enum, d)
				}
			}
		case "example":
			example = v
		case "examples":
			examples = v
		case "default":
			def = v
		case "const":
			konst = v
		}
	}
	n.HasConst = konst != nil
	n.Bare = BareObject(node)
	if example == nil && (examples == nil || len(examples.Content) == 0) && def == nil && konst == nil {
		return noMore
	}
	m := &More{MaxItems: -1, MaxProps: -1}
	m.Const, m.ConstOK = DecodeValue(konst)
	m.Example, m.HasExample = DecodeValue(example)
	if !m.HasExample && examples != nil && len(examples.Content) > 0 {
		m.Example, m.HasExample = DecodeValue(examples.Content[0])
	}
	m.Default, m.HasDefault = DecodeValue(def)
	return m
}

// yamlBool reads a boolean keyword as libopenapi does: only a node YAML
// tagged as a boolean counts, and what strconv makes of its text.
func yamlBool(v *yaml.Node) bool {
	if v.Tag != "!!bool" {
		return false
	}
	b, _ := strconv.ParseBool(v.Value)
	return b
}

// isNumber is libopenapi's test for a numeric keyword: a node YAML tagged
// as an integer or a float (a text that does not parse then reads as 0).
func isNumber(v *yaml.Node) bool { return v.Tag == "!!int" || v.Tag == "!!float" }

// build makes the libopenapi schema of a leaf, the first time a caller
// asks for it; callers hold the Guard. The built schema is filed like any
// other, so Document.Schema of it finds n.
func (c *compiler) build(n *Schema) {
	if n.libDone.Load() {
		return
	}
	c.adopt(n, oasdoc.Schema(n.src))
}

// adopt makes s, libopenapi's schema of the leaf n, n's Lib, and files it
// so that Document.Schema of it finds n; callers hold the Guard.
func (c *compiler) adopt(n *Schema, s *base.Schema) {
	if n.libDone.Load() {
		return
	}
	n.lib = s
	if s != nil {
		if _, ok := c.memo[s]; !ok {
			c.memo[s] = n
		}
	}
	n.libDone.Store(true)
}
