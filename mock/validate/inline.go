package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// inlineBudget bounds the nodes one inlined schema may have (each schema it
// references counted once, since each is copied once); past the budget the
// library's path compiles it.
const inlineBudget = 200_000

// compileInline compiles schema on its own, every schema it references
// copied once under its $defs and referenced there, as the library itself
// does for parameters but without repeating shared parts. It returns nil
// when that cannot be done (a reference that names nothing or points into
// another file, a reference with sibling keywords, a schema past
// inlineBudget), and the caller takes the library's whole path.
//
// edits rewrite the copied schema before it is compiled (allowNulls); they
// see the referenced schemas under the root's $defs.
//
// Each referenced schema is copied once, not once per use: the compiler's
// cost grows faster than the size of what it is given (it looks each
// subschema up in a list of those it has queued), and the published
// schema's audit log entry, whose two states reach the same 33 images,
// was 306 KB inlined (about 300 ms to compile) against 85 KB with each
// component once.
//
// Two costs of the library's path for bodies are avoided. It renders the
// whole document as a resource for the compiler (once per purpose) and
// decodes it again for every schema: 150-250 ms for the first call with a
// body on the published schema. And it renders schemas from libopenapi's
// model by reflection, which took a large schema (a compute environment's
// platform configurations) 80-140 ms. Here the source's own nodes are
// copied, which is the same schema, and the direction's rule is applied to
// the copy (pruneDirection); TestInlineCompileAgreesWithTheLibrary holds
// the verdicts to the library's, on every body schema of the published
// schema as well.
func compileInline(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose, options *config.ValidationOptions, version float32, relax Relaxation, edits ...func(*yaml.Node)) *schema_validation.CompiledValidationSchema {
	compiled, _ := compileInlineParts(schema, purpose, options, version, relax, edits...)
	return compiled
}

// compileInlineParts is compileInline that also returns, by the name they
// have under the copy's $defs, the document's schemas the copy holds.
func compileInlineParts(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose, options *config.ValidationOptions, version float32, relax Relaxation, edits ...func(*yaml.Node)) (*schema_validation.CompiledValidationSchema, map[string]*yaml.Node) {
	low := schema.GoLow()
	if low == nil || low.GetRootNode() == nil || low.GetIndex() == nil {
		return nil, nil
	}
	in := &inliner{idx: low.GetIndex(), budget: inlineBudget, relax: relax, defs: map[*yaml.Node]string{}, components: map[*yaml.Node]string{}}
	node, ok := in.copy(low.GetRootNode(), "")
	if !ok || !in.addDefs(node) {
		return nil, nil
	}
	if p := schema.ParentProxy; relax != nil && p != nil && p.IsReference() {
		relax(node, componentName(p.GetReference()))
	}
	pruneDirection(node, purpose)
	for _, edit := range edits {
		edit(node)
	}
	var value any
	if err := node.Decode(&value); err != nil {
		return nil, nil
	}
	rendered, err := json.Marshal(value)
	if err != nil {
		return nil, nil
	}
	if compileHook != nil {
		compileHook(low.Hash(), purpose)
	}
	compiled, err := helpers.NewCompiledSchemaWithVersion(fmt.Sprintf("%x", low.Hash()), rendered, options, version)
	if err != nil {
		return nil, nil
	}
	parts := make(map[string]*yaml.Node, len(in.defs))
	for target, name := range in.defs {
		parts[name] = target
	}
	return &schema_validation.CompiledValidationSchema{
		// JSON is YAML: the library quotes this text in its error
		// reports, which the fake does not use beyond their reasons.
		RenderedInline:  rendered,
		ReferenceSchema: string(rendered),
		RenderedJSON:    rendered,
		RenderedNode:    node,
		CompiledSchema:  compiled,
	}, parts
}

// compileHook, when set (by tests), is told of every schema compileInline
// hands to the compiler: its hash and purpose.
var compileHook func(hash uint64, purpose schema_validation.SchemaValidationPurpose)

// inliner copies schema nodes, replacing each reference with one into the
// copy's $defs, where every referenced schema is copied once.
type inliner struct {
	idx    *index.SpecIndex
	budget int
	relax  Relaxation // applied to every mapping copied; nil: none
	// defs names the targets of references, as they are kept under the
	// copy's $defs (addDefs); order lists them as first met, and
	// components names the component each came from, for relax.
	defs       map[*yaml.Node]string
	order      []*yaml.Node
	components map[*yaml.Node]string
}

// copy returns a copy of n with its references turned into references into
// the copy's $defs. parentKey is the key n is the value of: under
// "properties" a key named "$ref" is a property's name, not a reference.
func (in *inliner) copy(n *yaml.Node, parentKey string) (*yaml.Node, bool) {
	if in.budget--; in.budget < 0 || n == nil {
		return nil, false
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, false
		}
		return in.copy(n.Content[0], parentKey)
	case yaml.AliasNode:
		return in.copy(n.Alias, parentKey)
	case yaml.ScalarNode:
		return n, true // scalars are never changed, so they are shared
	case yaml.SequenceNode:
		out := *n
		out.Content = make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			var ok bool
			if out.Content[i], ok = in.copy(c, parentKey); !ok {
				return nil, false
			}
		}
		return &out, true
	case yaml.MappingNode:
		if parentKey != "properties" {
			if ref, ok := refOf(n); ok {
				return in.follow(ref)
			}
		}
		out := *n
		out.Content = make([]*yaml.Node, len(n.Content))
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Value == "<<" { // a YAML merge key: left to the library
				return nil, false
			}
			v, ok := in.copy(n.Content[i+1], k.Value)
			if !ok {
				return nil, false
			}
			out.Content[i], out.Content[i+1] = k, v
		}
		if in.relax != nil && parentKey != "properties" {
			in.relax(&out, "")
		}
		return &out, true
	}
	return nil, false
}

// follow turns a reference into one to its target's copy under the root's
// $defs.
func (in *inliner) follow(ref string) (*yaml.Node, bool) {
	comp := in.idx.FindComponent(context.Background(), ref)
	if comp == nil || comp.Node == nil || comp.Index != nil && comp.Index != in.idx {
		return nil, false
	}
	return in.defRef(comp.Node, ref), true
}

// defsPrefix starts the names addDefs gives the targets of references,
// unlike any name a document would use under $defs.
const defsPrefix = "wmsmock-"

// defRef is a reference to target's copy under the root's $defs.
func (in *inliner) defRef(target *yaml.Node, ref string) *yaml.Node {
	name, ok := in.defs[target]
	if !ok {
		name = defsPrefix + strconv.Itoa(len(in.order))
		in.defs[target] = name
		in.components[target] = componentName(ref)
		in.order = append(in.order, target)
	}
	return mapping("$ref", "#/$defs/"+name)
}

// addDefs puts a copy of every target of a reference under the root's
// $defs, where defRef pointed; copying one may find more. It reports false
// when a copy fails or the root cannot hold $defs.
func (in *inliner) addDefs(root *yaml.Node) bool {
	if len(in.order) == 0 {
		return true
	}
	if root.Kind != yaml.MappingNode {
		return false
	}
	defs := oasdoc.MapValue(root, "$defs")
	if defs == nil {
		defs = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, scalarNode("$defs"), defs)
	} else if defs.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i < len(in.order); i++ {
		target := in.order[i]
		c, ok := in.copy(target, "")
		if !ok {
			return false
		}
		if in.relax != nil {
			in.relax(c, in.components[target])
		}
		defs.Content = append(defs.Content, scalarNode(in.defs[target]), c)
	}
	return true
}

func scalarNode(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

// mapping is a mapping of string keys to string values, given in pairs.
func mapping(pairs ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, s := range pairs {
		m.Content = append(m.Content, scalarNode(s))
	}
	return m
}

// refOf reports whether a mapping is a reference, and which. A reference
// with other keywords beside it means different things in OpenAPI 3.0
// (ignored) and 3.1 (applied too): it is left to the library.
func refOf(n *yaml.Node) (string, bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" && n.Content[i+1].Kind == yaml.ScalarNode {
			if len(n.Content) != 2 {
				return "", false
			}
			return n.Content[i+1].Value, true
		}
	}
	return "", false
}

// pruneDirection applies OpenAPI's rule for read-only and write-only
// properties to an inlined schema: a read-only property is not required in
// a request body, a write-only one not in a response body, even when the
// schema lists it as required. A property counts as read-only (write-only)
// when its schema, or any branch of its compositions, says so. The rule
// applies to every schema nested in n.
func pruneDirection(n *yaml.Node, purpose schema_validation.SchemaValidationPurpose) {
	var flag string
	switch purpose {
	case schema_validation.SchemaValidationPurposeRequestBody:
		flag = "readOnly"
	case schema_validation.SchemaValidationPurposeResponseBody:
		flag = "writeOnly"
	default:
		return
	}
	resolve := defsOf(n)
	var walk func(s *yaml.Node)
	walk = func(s *yaml.Node) {
		if s == nil || s.Kind != yaml.MappingNode {
			return
		}
		dropRequired(s, flag, resolve)
		for i := 0; i+1 < len(s.Content); i += 2 {
			v := s.Content[i+1]
			switch s.Content[i].Value {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				if v.Kind == yaml.MappingNode {
					for j := 1; j < len(v.Content); j += 2 {
						walk(v.Content[j])
					}
				}
			case "items", "contains", "additionalProperties", "unevaluatedProperties", "propertyNames", "not", "if", "then", "else":
				walk(v)
			case "prefixItems", "allOf", "anyOf", "oneOf":
				if v.Kind == yaml.SequenceNode {
					for _, c := range v.Content {
						walk(c)
					}
				}
			}
		}
	}
	walk(n)
}

// dropRequired removes from s's required list the properties s declares
// with flag, and the list itself when that empties it. resolve finds the
// schema a reference into the root's $defs names.
func dropRequired(s *yaml.Node, flag string, resolve func(*yaml.Node) *yaml.Node) {
	ri, props := -1, (*yaml.Node)(nil)
	for i := 0; i+1 < len(s.Content); i += 2 {
		switch s.Content[i].Value {
		case "required":
			if s.Content[i+1].Kind == yaml.SequenceNode {
				ri = i
			}
		case "properties":
			if s.Content[i+1].Kind == yaml.MappingNode {
				props = s.Content[i+1]
			}
		}
	}
	if ri < 0 || props == nil {
		return
	}
	req := s.Content[ri+1]
	kept := make([]*yaml.Node, 0, len(req.Content))
	for _, name := range req.Content {
		if name.Kind == yaml.ScalarNode && flagged(oasdoc.MapValue(props, name.Value), flag, resolve, 0) {
			continue
		}
		kept = append(kept, name)
	}
	if len(kept) == len(req.Content) {
		return
	}
	if len(kept) == 0 {
		s.Content = append(s.Content[:ri:ri], s.Content[ri+2:]...)
		return
	}
	req.Content = kept // s and its list are the inliner's copies
}

// flagged reports whether a property's schema, or a branch of its
// compositions, sets flag to true.
func flagged(s *yaml.Node, flag string, resolve func(*yaml.Node) *yaml.Node, depth int) bool {
	s = resolve(s)
	if s == nil || s.Kind != yaml.MappingNode || depth > maxDefsDepth {
		return false
	}
	if v := oasdoc.MapValue(s, flag); v != nil && v.Kind == yaml.ScalarNode && strings.EqualFold(v.Value, "true") {
		return true
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if seq := oasdoc.MapValue(s, key); seq != nil && seq.Kind == yaml.SequenceNode {
			for _, c := range seq.Content {
				if flagged(c, flag, resolve, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// maxDefsDepth bounds walks that follow references into $defs, which may
// be recursive.
const maxDefsDepth = 32

// defsOf returns a function that resolves a reference into root's $defs
// (as the inliner writes them) to the schema there, and returns any other
// node as it is. References are followed until a schema is found.
func defsOf(root *yaml.Node) func(*yaml.Node) *yaml.Node {
	var defs *yaml.Node
	if root != nil && root.Kind == yaml.MappingNode {
		defs = oasdoc.MapValue(root, "$defs")
	}
	if defs == nil || defs.Kind != yaml.MappingNode {
		return func(n *yaml.Node) *yaml.Node { return n }
	}
	return func(n *yaml.Node) *yaml.Node {
		for range maxDefsDepth {
			if n == nil || n.Kind != yaml.MappingNode {
				return n
			}
			ref, ok := refOf(n)
			if !ok || !strings.HasPrefix(ref, "#/$defs/") {
				return n
			}
			n = oasdoc.MapValue(defs, strings.TrimPrefix(ref, "#/$defs/"))
		}
		return nil
	}
}

// componentName is the name of the schema component a reference names.
func componentName(ref string) string {
	return strings.TrimPrefix(ref, "#/components/schemas/")
}
