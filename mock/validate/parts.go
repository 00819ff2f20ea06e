package validate

import (
	"strings"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"
)

// partKey names a document schema compiled as part of another: the
// source node it was copied from, and the purpose and version it was
// compiled for (what its rewriting depends on, the validator's options
// aside, which are the same for all its compiles).
type partKey struct {
	node    *yaml.Node
	purpose schema_validation.SchemaValidationPurpose
	version float32
}

// parts keeps the compiled schemas found inside other compiled schemas,
// so that a schema already compiled as part of a larger one is not
// compiled again when it is asked for on its own: the resources check an
// answer's entry, then each of its properties that did not fit, and the
// published schema's audit log entry and its target are both 300 KB
// inlined. Used under the document's Guard, as compile is.
type parts map[partKey]*schema_validation.CompiledValidationSchema

// keep records the schemas under the $defs of compiled, which
// compileInlineParts names in defs. Only a schema rewritten on its own is
// kept: a copy rewritten in its holder's context (allowNulls) is not what
// compiling it alone gives.
func (ps parts) keep(compiled *schema_validation.CompiledValidationSchema, defs map[string]*yaml.Node, purpose schema_validation.SchemaValidationPurpose, version float32) {
	if compiled == nil || compiled.CompiledSchema == nil || len(defs) == 0 {
		return
	}
	walkCompiled(compiled.CompiledSchema, func(s *jsonschema.Schema) {
		_, frag, ok := strings.Cut(s.Location, "#/$defs/")
		if !ok || strings.Contains(frag, "/") {
			return
		}
		node, ok := defs[frag] // copies in context have names of their own, not in defs
		if !ok {
			return
		}
		k := partKey{node, purpose, version}
		if _, ok := ps[k]; !ok {
			ps[k] = &schema_validation.CompiledValidationSchema{
				// The texts are the whole schema's: the library quotes
				// them in error reports only.
				RenderedInline:  compiled.RenderedInline,
				ReferenceSchema: compiled.ReferenceSchema,
				RenderedJSON:    compiled.RenderedJSON,
				RenderedNode:    compiled.RenderedNode,
				CompiledSchema:  s,
			}
		}
	})
}

// walkCompiled calls visit on s and every compiled schema s reaches, once
// each.
func walkCompiled(s *jsonschema.Schema, visit func(*jsonschema.Schema)) {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walkAny := func(a any) {
		switch x := a.(type) {
		case *jsonschema.Schema:
			walk(x)
		case []*jsonschema.Schema:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		visit(s)
		for _, c := range []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
			s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema} {
			walk(c)
		}
		if s.DynamicRef != nil {
			walk(s.DynamicRef.Ref)
		}
		for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for _, c := range list {
				walk(c)
			}
		}
		for _, c := range s.Properties {
			walk(c)
		}
		for _, c := range s.PatternProperties {
			walk(c)
		}
		for _, c := range s.DependentSchemas {
			walk(c)
		}
		for _, c := range s.Dependencies {
			walkAny(c)
		}
		walkAny(s.AdditionalProperties)
		walkAny(s.Items)
		walkAny(s.AdditionalItems)
	}
	walk(s)
}
