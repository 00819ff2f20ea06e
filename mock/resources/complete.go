package resources

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// The service's serializer writes every property of an object, null where
// it has no value (CONTRACT.md: answers carry null). The fake's answers
// about what clients wrote are built on bare frames (only what a schema
// requires) with the written and derived values laid over them, so that
// nothing made up stands beside what was written; complete then gives
// every object in the answer every property its schema declares, null
// where there is no value, at any depth and inside the branch of a oneOf
// that the object is (a compute environment's config, a credential's
// keys). Required properties are left alone (they always have a value) and
// so are writeOnly ones (never answered). A map (additionalProperties)
// gets no keys. Under the schema-pure setting (no nulls in answers)
// complete does nothing: an absent optional property is valid there.

// complete fills v, an answer value for schema s, in place.
func (f *fitter) complete(s *base.Schema, v any) {
	if f.nulls {
		completeIn(s, v, 0)
	}
}

func completeIn(s *base.Schema, v any, depth int) {
	if s == nil || depth > 2*maxSchemaDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		branch := branchOf(s, x, 0)
		for _, holder := range []*base.Schema{s, branch} {
			if holder == nil {
				continue
			}
			for _, name := range propNames(holder) {
				p := prop(holder, name)
				e, ok := x[name]
				if !ok {
					if !writeOnly(p) && !required(s, name) && !required(branch, name) {
						x[name] = nil
					}
					continue
				}
				if e != nil {
					completeIn(p, e, depth+1)
				}
			}
		}
	case []any:
		if it := itemsOf(s); it != nil {
			for _, e := range x {
				completeIn(it, e, depth+1)
			}
		}
	}
}

// branchOf finds the branch of s's oneOf or anyOf (through allOf) that the
// object x is: the one whose discriminator guard (a property whose enum the
// document's discriminator mapping made, see oasdoc's rewrite) holds x's
// value; without guards, the one branch whose declared properties cover
// x's keys best. It returns nil when s has no branches or x is in none.
func branchOf(s *base.Schema, x map[string]any, depth int) *base.Schema {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	var branches []*base.SchemaProxy
	branches = append(append(branches, s.OneOf...), s.AnyOf...)
	if len(branches) == 0 {
		for _, m := range s.AllOf {
			if b := branchOf(oasdoc.Schema(m), x, depth+1); b != nil {
				return b
			}
		}
		return nil
	}
	var best *base.Schema
	bestScore := 0
	for _, bp := range branches {
		b := oasdoc.Schema(bp)
		switch guarded(b, x) {
		case guardHolds:
			return b
		case guardFails:
			continue
		}
		score := 0
		for k := range x {
			if prop(b, k) != nil {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = b, score
		}
	}
	return best
}

type guard int

const (
	noGuard guard = iota
	guardHolds
	guardFails
)

// guarded reports whether branch b carries an enum guard on a property
// (through allOf) and whether x's value passes it.
func guarded(b *base.Schema, x map[string]any) guard {
	found := noGuard
	var walk func(*base.Schema, int)
	walk = func(s *base.Schema, depth int) {
		if s == nil || depth > maxSchemaDepth || found == guardFails {
			return
		}
		for _, name := range s.Required {
			p := prop(s, name)
			if p == nil || len(p.Enum) == 0 {
				continue
			}
			if inEnum(p, x[name]) {
				found = guardHolds
			} else {
				found = guardFails
				return
			}
		}
		for _, m := range s.AllOf {
			walk(oasdoc.Schema(m), depth+1)
		}
	}
	walk(b, 0)
	return found
}
