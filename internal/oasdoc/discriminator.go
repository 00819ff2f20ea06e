package oasdoc

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// A discriminated oneOf (or anyOf) means, in OpenAPI, "the value of the
// discriminator property picks the branch". JSON Schema, which the validator
// and the generator both work in, knows nothing of discriminators: it
// checks every branch, and because the service's branches are open objects
// with optional properties, a correct body usually fits several of them and
// fails "exactly one". The generator then has to poison the other branches
// (null values for their properties) to make its own answers fit.
//
// normalizeDiscriminators rewrites such compositions, in the parsed document
// before the model is built, into the plain JSON Schema that says the same
// thing: each branch `$ref: X` becomes
//
//	allOf: [{required: [p], properties: {p: {enum: [keys of X]}}}, {$ref: X}]
//
// where p is the discriminator's propertyName and the keys are the mapping's
// entries for X (or X's own name, OpenAPI's implicit mapping). Branches become
// mutually exclusive by the discriminator alone, so a correct body matches
// exactly one, a body whose discriminator names no branch matches none, and
// generation can build one branch without looking at the others. The
// discriminator check comes first in the allOf so that a checker walking
// branches rejects the wrong ones before descending into them.
//
// It also breaks the cycle older versions of the service's schema have:
// branches written as `allOf: [{$ref: Parent}, {...}]` where Parent is the
// discriminated oneOf itself (inheritance, in code-generator terms). Read as
// JSON Schema that recursion never consumes the value, and checking it costs
// time exponential in the recursion depth; the intended meaning is "Parent's
// own properties", so the reference is replaced by an inline copy of the
// parent without its oneOf, anyOf and discriminator.
//
// The served document is not changed: /_mock/openapi.yaml serves the bytes
// the user gave.
func normalizeDiscriminators(root *yaml.Node) {
	schemas := componentSchemas(root)
	byRef := map[string]*yaml.Node{}
	if schemas != nil {
		for i := 0; i+1 < len(schemas.Content); i += 2 {
			byRef["#/components/schemas/"+schemas.Content[i].Value] = schemas.Content[i+1]
		}
	}
	// The parents are collected first: rewriting while walking would visit
	// the nodes it adds. A parsed document is a tree (an alias is a node of
	// its own that points at its anchor, and the walk does not follow it),
	// so no node is met twice.
	var parents []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.MappingNode && discriminatorProperty(n) != "" &&
			(mapValue(n, "oneOf") != nil || mapValue(n, "anyOf") != nil) {
			parents = append(parents, n)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	for _, parent := range parents {
		parentRef := ""
		for ref, node := range byRef {
			if node == parent {
				parentRef = ref
			}
		}
		rewriteBranches(parent, parentRef, byRef)
	}
}

func rewriteBranches(parent *yaml.Node, parentRef string, byRef map[string]*yaml.Node) {
	prop := discriminatorProperty(parent)
	mapping := discriminatorMapping(parent)
	var base *yaml.Node // the parent without its composition, made on first need
	for _, key := range []string{"oneOf", "anyOf"} {
		branches := mapValue(parent, key)
		if branches == nil || branches.Kind != yaml.SequenceNode {
			continue
		}
		for i, b := range branches.Content {
			ref := refOf(b)
			if ref == "" {
				continue // an inline branch: no name for the discriminator to pick
			}
			values := mapping[ref]
			if len(values) == 0 {
				values = []string{ref[strings.LastIndex(ref, "/")+1:]}
			}
			if target := byRef[ref]; target != nil && parentRef != "" {
				if all := mapValue(target, "allOf"); all != nil && all.Kind == yaml.SequenceNode {
					for j, item := range all.Content {
						if refOf(item) == parentRef {
							if base == nil {
								base = withoutComposition(parent)
							}
							all.Content[j] = base
						}
					}
				}
			}
			branches.Content[i] = mapNode(
				"allOf", seqNode(discriminatorGuard(prop, values), b),
			)
		}
	}
}

// discriminatorGuard is the schema that holds exactly when the property
// carries one of values.
func discriminatorGuard(prop string, values []string) *yaml.Node {
	enum := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, v := range values {
		enum.Content = append(enum.Content, scalar(v))
	}
	return mapNode(
		"required", seqNode(scalar(prop)),
		"properties", mapNode(prop, mapNode("enum", enum)),
	)
}

// withoutComposition copies a schema mapping without the keys that make it
// a polymorphic parent, keeping its own properties, type and constraints.
func withoutComposition(n *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "oneOf", "anyOf", "discriminator":
			continue
		}
		out.Content = append(out.Content, n.Content[i], n.Content[i+1])
	}
	return out
}

func componentSchemas(root *yaml.Node) *yaml.Node {
	doc := root
	if doc != nil && doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	return mapValue(mapValue(doc, "components"), "schemas")
}

func discriminatorProperty(n *yaml.Node) string {
	d := mapValue(n, "discriminator")
	if p := mapValue(d, "propertyName"); p != nil && p.Kind == yaml.ScalarNode {
		return p.Value
	}
	return ""
}

// discriminatorMapping inverts the mapping: reference -> the values that
// select it.
func discriminatorMapping(n *yaml.Node) map[string][]string {
	out := map[string][]string{}
	m := mapValue(mapValue(n, "discriminator"), "mapping")
	if m == nil || m.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		ref := m.Content[i+1].Value
		if !strings.HasPrefix(ref, "#") {
			ref = "#/components/schemas/" + ref // a bare schema name
		}
		out[ref] = append(out[ref], m.Content[i].Value)
	}
	return out
}

func refOf(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return ""
	}
	if n.Content[0].Value != "$ref" {
		return ""
	}
	return n.Content[1].Value
}

// MapValue is the value of key in a mapping node, or nil (also for a node
// that is not a mapping).
func MapValue(n *yaml.Node, key string) *yaml.Node { return mapValue(n, key) }

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func scalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

func seqNode(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// mapNode builds a mapping from alternating string keys and node values.
func mapNode(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, scalar(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}
