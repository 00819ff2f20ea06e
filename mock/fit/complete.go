package fit

import (
	"github.com/wmsmock/wmsmock/mock/spec"
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

// Complete fills v, an answer value for schema s, in place.
func (f *Fitter) Complete(s *spec.Schema, v any) {
	if f.nulls {
		completeIn(s, v, 0)
	}
}

func completeIn(s *spec.Schema, v any, depth int) {
	if s == nil || depth > 2*MaxDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		branch := BranchOf(s, x, 0)
		for _, holder := range []*spec.Schema{s, branch} {
			if holder == nil {
				continue
			}
			for _, name := range holder.PropNames() {
				p := holder.Prop(name)
				e, ok := x[name]
				if !ok {
					if !p.WriteOnly() && !s.Required(name) && !branch.Required(name) {
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
		if it := s.Items(); it != nil {
			for _, e := range x {
				completeIn(it, e, depth+1)
			}
		}
	}
}

// BranchOf finds the branch of s's oneOf or anyOf (through allOf) that the
// object x is: the one whose discriminator guard (a property whose enum the
// document's discriminator mapping made, see oasdoc's rewrite) holds x's
// value; without guards, the one branch whose declared properties cover
// x's keys best. It returns nil when s has no branches or x is in none.
func BranchOf(s *spec.Schema, x map[string]any, depth int) *spec.Schema {
	if s == nil || depth > MaxDepth {
		return nil
	}
	branches := s.Branches()
	if len(branches) == 0 {
		for _, m := range s.AllOf() {
			if b := BranchOf(m, x, depth+1); b != nil {
				return b
			}
		}
		return nil
	}
	var best *spec.Schema
	bestScore := 0
	for _, b := range branches {
		switch guarded(b, x) {
		case guardHolds:
			return b
		case guardFails:
			continue
		}
		score := 0
		for k := range x {
			if b.Prop(k) != nil {
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
func guarded(b *spec.Schema, x map[string]any) guard {
	found := noGuard
	var walk func(*spec.Schema, int)
	walk = func(s *spec.Schema, depth int) {
		if s == nil || depth > MaxDepth || found == guardFails {
			return
		}
		for _, name := range s.OwnRequired {
			p := s.Prop(name)
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
		for _, m := range s.AllOf() {
			walk(m, depth+1)
		}
	}
	walk(b, 0)
	return found
}
