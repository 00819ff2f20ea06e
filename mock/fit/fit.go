// Package fit decides whether values fit a document's schemas and builds
// answers that stay valid: a synthesized value for the answer's schema (a
// base, see Bases) with a record's own values laid over it wherever they
// fit (Fitter.Overlay, Merge, Set), and every object completed with the
// properties the service always writes (Fitter.Complete). The fake's
// resource behaviour (mock/resources and its parts) answers through it,
// so that an answer is valid against whichever document is served, the
// small embedded one or the large published one.
package fit

import (
	"encoding/json"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// MaxDepth bounds walks through allOf chains and nested values; real
// documents nest a few levels, and a cycle must not hang a request.
const MaxDepth = 12

// Fitter decides whether values fit schemas. Scalars against plain schemas
// are checked here, quickly, because answers overlay many of them per call;
// anything else is first put to the generator's own checker, which works on
// the schema as prepared for making values (answers are built on values it
// made, so nothing is compiled for them), and only what that checker does
// not accept goes to the document's validator, the authority: compiling a
// validator for a large answer schema was most of an operation's first
// call on the published schema.
type Fitter struct {
	// match is the generator's checker (synth.Generator.Fits); nil sends
	// every check to the validator.
	match     func(*base.Schema, any) bool
	check     func(*base.Schema, []byte) []string
	openapi31 bool
	// nulls sends an optional property without a value as null, as the
	// service does (profile answers.nulls), rather than leaving it out.
	nulls bool
}

// An Option sets how a Fitter judges and fills.
type Option func(*Fitter)

// WithNulls has answers carry null for an optional property without a
// value, as the service's do (profile answers.nulls), rather than leave it
// out.
func WithNulls(on bool) Option { return func(f *Fitter) { f.nulls = on } }

// WithMatch tries match (the generator's checker, synth.Generator.Fits)
// before the validator: answers are built on values the generator made, so
// its verdict usually settles a check without compiling anything.
func WithMatch(match func(*base.Schema, any) bool) Option {
	return func(f *Fitter) { f.match = match }
}

// New judges values against doc's schemas, check (the document's
// validator) having the last word. Its verdicts are not cached, since a
// cache of them showed no gain in any benchmark (the validator's compiled
// schemas make a check cheap).
func New(doc *spec.Document, check func(*base.Schema, []byte) []string, opts ...Option) *Fitter {
	f := &Fitter{check: check, openapi31: strings.HasPrefix(doc.OpenAPI, "3.1")}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Nulls reports whether answers carry the service's nulls (WithNulls).
func (f *Fitter) Nulls() bool { return f.nulls }

// Fits reports whether v is a valid value for s.
func (f *Fitter) Fits(s *spec.Schema, v any) bool {
	if s == nil {
		return true
	}
	if v == nil {
		return f.nullOK(s)
	}
	switch v.(type) {
	case map[string]any, []any:
		return f.full(s, v)
	}
	if !s.Plain() {
		return f.full(s, v)
	}
	return scalarOK(s, v, 0)
}

// nullOK is deliberately strict: null is used only where the schema says so
// in the plainest way (nullable with a type, or "null" among the types),
// because validators disagree about nullable next to allOf.
func (f *Fitter) nullOK(s *spec.Schema) bool {
	if s.HasType(spec.Null) {
		return true
	}
	if f.openapi31 || !s.Nullable {
		return false
	}
	return s.Types != 0 && len(s.AllOf()) == 0 && len(s.OneOf()) == 0 && len(s.AnyOf()) == 0
}

func (f *Fitter) full(s *spec.Schema, v any) bool {
	if f.match != nil && f.match(s.Lib(), v) {
		return true
	}
	if f.check == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return len(f.check(s.Lib(), b)) == 0
}

// scalarOK judges a scalar against a plain schema (spec.Schema.Plain)
// and its allOf parts.
func scalarOK(s *spec.Schema, v any, depth int) bool {
	if s == nil {
		return true
	}
	for _, m := range s.AllOf() {
		if depth < MaxDepth && !scalarOK(m, v, depth+1) {
			return false
		}
	}
	if s.Types == 0 && (len(s.Own()) > 0 || s.ItemsKeyword) {
		return false
	}
	if s.Types != 0 && !typesOK(s.Types, v) {
		return false
	}
	if len(s.Enum) > 0 && !inEnum(s, v) {
		return false
	}
	switch x := v.(type) {
	case string:
		n := int64(utf8.RuneCountInString(x))
		if s.MaxLength >= 0 && n > s.MaxLength || n < s.MinLength {
			return false
		}
		if s.Format == "date-time" {
			if _, err := time.Parse(time.RFC3339, x); err != nil {
				return false
			}
		}
	case bool:
	default:
		num, ok := jsonvalue.Number(v)
		if !ok {
			return false
		}
		if s.Format == "int32" && (num > math.MaxInt32 || num < math.MinInt32) {
			return false
		}
		if !boundsOK(s, num) {
			return false
		}
	}
	return true
}

func boundsOK(s *spec.Schema, num float64) bool {
	if s.HasMin && (num < s.Min || s.ExclMin && num == s.Min) {
		return false
	}
	if s.HasMax && (num > s.Max || s.ExclMax && num == s.Max) {
		return false
	}
	return true
}

// typesOK reports whether the scalar v has one of the types t.
func typesOK(t spec.Types, v any) bool {
	switch x := v.(type) {
	case string:
		return t.Has(spec.String)
	case bool:
		return t.Has(spec.Boolean)
	default:
		n, ok := jsonvalue.Number(x)
		return ok && (t.Has(spec.Number) || t.Has(spec.Integer) && n == math.Trunc(n))
	}
}

func inEnum(s *spec.Schema, v any) bool {
	for _, ev := range s.Enum {
		if ev == v {
			return true
		}
		a, aok := jsonvalue.Number(ev)
		b, bok := jsonvalue.Number(v)
		if aok && bok && a == b {
			return true
		}
	}
	return false
}

// Overlay lays fields over m where the schema s declares them and the value
// fits; a nil value that does not fit removes the key instead (unless the
// schema requires it), since an absent optional field is always valid, or,
// where the service's nulls are sent, sets it null, as the service does.
// Either way the record's values win over the base's, nulls included.
func (f *Fitter) Overlay(s *spec.Schema, m map[string]any, fields map[string]any) {
	for k, v := range fields {
		f.Set(s, m, k, v)
	}
}

// Merge is overlay that also goes into objects: a written object that does
// not fit the view's property as a whole (a launch written as a request and
// read as a Launch, a config some of whose members the view does not have)
// has its members laid over the view's own object one by one, and is taken
// when the result fits. So a view shows every written member it has room
// for, whichever schema it was written with. The values are laid in, not
// copied: fields must not be a cached value.
func (f *Fitter) Merge(s *spec.Schema, m map[string]any, fields map[string]any, depth int) {
	for k, v := range fields {
		if f.Set(s, m, k, v) {
			continue
		}
		wm, ok := v.(map[string]any)
		p := s.Prop(k)
		if !ok || p == nil || depth >= MaxDepth {
			continue
		}
		trial, _ := jsonvalue.Clone(m[k]).(map[string]any)
		if trial == nil {
			trial = map[string]any{}
		}
		f.Merge(p, trial, wm, depth+1)
		if f.Fits(p, trial) {
			m[k] = trial
		}
	}
}

// Set is overlay for one field; it reports whether the value was taken.
func (f *Fitter) Set(s *spec.Schema, m map[string]any, name string, v any) bool {
	p := s.Prop(name)
	if p == nil {
		return false
	}
	if f.Fits(p, v) {
		m[name] = v
		return true
	}
	if v == nil && !s.Required(name) {
		if f.nulls {
			m[name] = nil
			return true
		}
		delete(m, name)
	}
	return false
}

// nullHabit reports whether m[name] may be null as the service's habit:
// the service's nulls are sent and s does not require the property.
func (f *Fitter) nullHabit(s *spec.Schema, name string, v any) bool {
	return v == nil && f.nulls && !s.Required(name)
}

// sanitize makes a synthesized object valid as part of an answer should
// the generator have missed (a oneOf that two branches match once writeOnly
// properties are left out, say): optional members that do not fit are
// repaired where they are objects, filtered where they are arrays, and
// dropped otherwise. It costs one check when the value is valid, and runs
// once per cached base.
func (f *Fitter) sanitize(s *spec.Schema, m map[string]any, depth int) {
	if s == nil || depth > 4 || f.full(s, m) {
		return
	}
	for k, v := range m {
		p := s.Prop(k)
		if p == nil || f.Fits(p, v) || f.nullHabit(s, k, v) {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			f.sanitize(p, x, depth+1)
			if f.Fits(p, x) {
				continue
			}
		case []any:
			if it := p.Items(); it != nil {
				kept := x[:0:0]
				for _, e := range x {
					if f.Fits(it, e) {
						kept = append(kept, e)
					}
				}
				if f.Fits(p, kept) {
					m[k] = kept
					continue
				}
			}
		}
		if !s.Required(k) {
			delete(m, k)
		}
	}
}

// HideWriteOnly removes, at any depth, the properties a schema marks
// writeOnly: secrets a client sent are never given back.
func HideWriteOnly(s *spec.Schema, v any, depth int) {
	if s == nil || depth > MaxDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := s.AnyProp(k)
			if p.WriteOnly() {
				delete(x, k)
				continue
			}
			HideWriteOnly(p, val, depth+1)
		}
	case []any:
		it := s.Items()
		for _, e := range x {
			HideWriteOnly(it, e, depth+1)
		}
	}
}
