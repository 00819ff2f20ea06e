package resources

import (
	"encoding/json"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// The answers this package gives are built the same way everywhere: a
// synthesized value that is valid for the answer's schema, with the record's
// own values laid over it wherever they fit that schema. The helpers here
// read schemas (properties through allOf, list shapes) and decide whether a
// value fits, so that an answer stays valid against whichever document is
// served, the small embedded one or the large published one.

// MaxSchemaDepth bounds walks through allOf chains and nested values; real
// documents nest a few levels, and a cycle must not hang a request.
const MaxSchemaDepth = 12

// The schemas the helpers here read are the document's compiled model
// (spec.Schema): properties through allOf, list shapes and the rest are
// its methods, worked out once per document.

// baseOf is the libopenapi schema s was compiled from, for the
// generator and the validator, which take those (nil for nil).
func baseOf(s *spec.Schema) *base.Schema {
	if s == nil {
		return nil
	}
	return s.Base
}

// Stamp writes a time the way the service does (CONTRACT T2).
func Stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z") }

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

// newFitter checks values with check; its verdicts are not cached, since a
// cache of them showed no gain in any benchmark (the validator's compiled
// schemas make a check cheap).
func newFitter(check func(*base.Schema, []byte) []string, openapi31 bool) *Fitter {
	return &Fitter{check: check, openapi31: openapi31}
}

// fits reports whether v is a valid value for s.
func (f *Fitter) fits(s *spec.Schema, v any) bool {
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
	if f.match != nil && f.match(s.Base, v) {
		return true
	}
	if f.check == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return len(f.check(s.Base, b)) == 0
}

// scalarOK judges a scalar against a plain schema (spec.Schema.Plain)
// and its allOf parts.
func scalarOK(s *spec.Schema, v any, depth int) bool {
	if s == nil {
		return true
	}
	for _, m := range s.AllOf() {
		if depth < MaxSchemaDepth && !scalarOK(m, v, depth+1) {
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
		if !ok || p == nil || depth >= MaxSchemaDepth {
			continue
		}
		trial, _ := jsonvalue.Clone(m[k]).(map[string]any)
		if trial == nil {
			trial = map[string]any{}
		}
		f.Merge(p, trial, wm, depth+1)
		if f.fits(p, trial) {
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
	if f.fits(p, v) {
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
		if p == nil || f.fits(p, v) || f.nullHabit(s, k, v) {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			f.sanitize(p, x, depth+1)
			if f.fits(p, x) {
				continue
			}
		case []any:
			if it := p.Items(); it != nil {
				kept := x[:0:0]
				for _, e := range x {
					if f.fits(it, e) {
						kept = append(kept, e)
					}
				}
				if f.fits(p, kept) {
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

// hideWriteOnly removes, at any depth, the properties a schema marks
// writeOnly: secrets a client sent are never given back.
func hideWriteOnly(s *spec.Schema, v any, depth int) {
	if s == nil || depth > MaxSchemaDepth {
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
			hideWriteOnly(p, val, depth+1)
		}
	case []any:
		it := s.Items()
		for _, e := range x {
			hideWriteOnly(it, e, depth+1)
		}
	}
}

// DropNulls removes null members from objects at any depth: in a request a
// null means "not given", and keeping it would only fail schema checks.
func DropNulls(v any, depth int) any {
	if depth > MaxSchemaDepth*2 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = DropNulls(e, depth+1)
		}
	case []any:
		for i, e := range x {
			x[i] = DropNulls(e, depth+1)
		}
	}
	return v
}

// Bases hands out synthesized values, each one valid for its schema and
// the same for the same key, as the ground answers are built on. They are
// cached because the same record is rendered on every read: without the
// cache a launch costs half as much again (BenchmarkHandlerLaunchWorkflow).
type Bases struct {
	gen *synth.Generator
	fit *Fitter
	m   *memo.Map[baseKey, any]
}

type baseKey struct {
	schema *spec.Schema
	key    string
	// as is the schema whose values were laid over (view), if any.
	as *spec.Schema
}

func newBases(caches *memo.Set, gen *synth.Generator, fit *Fitter) *Bases {
	return &Bases{gen: gen, fit: fit, m: memo.NewIn[baseKey, any](caches, "synthesized bases", 60)}
}

// Object returns a fresh copy of the synthesized value for s and key, as
// an object (an empty one if the schema does not describe an object).
func (b *Bases) Object(s *spec.Schema, key string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	m, ok := jsonvalue.Clone(b.Value(s, key)).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return m
}

// Bare returns the synthesized base for s and key with only the members
// s requires: the frame of an answer made of reported values, so that
// nothing the client did not report (a made-up container, a cost) shows
// up beside what it did.
func (b *Bases) Bare(s *spec.Schema, key string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00bare"}, func() (any, error) {
		m := b.Object(s, key)
		branch := branchOf(s, m, 0) // a oneOf's branch requires its own (its discriminator)
		for k := range m {
			if !s.Required(k) && !branch.Required(k) {
				delete(m, k)
			}
		}
		return m, nil
	})
	return jsonvalue.Clone(v).(map[string]any)
}

// Frame returns a fresh copy of the synthesized object for s and key
// without its property name: the frame of a list answer, whose items the
// caller supplies. Copying the synthesized items only to drop them cost a
// list call more than building the rest of its answer.
func (b *Bases) Frame(s *spec.Schema, key, name string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00without " + name}, func() (any, error) {
		m, ok := jsonvalue.Clone(b.Value(s, key)).(map[string]any)
		if !ok {
			return map[string]any{}, nil
		}
		delete(m, name)
		return m, nil
	})
	return jsonvalue.Clone(v).(map[string]any)
}

// WithField returns the synthesized object for s and key, as JSON, with
// its property name set to the string value. The object without name is
// encoded once and cached; each call only splices the field in front, which
// costs a fraction of copying the object and encoding it again. Launches
// answer this way, and they are the hottest write.
func (b *Bases) WithField(s *spec.Schema, key, name, value string) json.RawMessage {
	var rest []byte // the cached object's members, without the braces
	if s != nil {
		v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00json without " + name}, func() (any, error) {
			enc, err := json.Marshal(b.Frame(s, key, name))
			if err != nil {
				return nil, err
			}
			return enc[1 : len(enc)-1], nil
		})
		rest, _ = v.([]byte)
	}
	out := make([]byte, 0, len(rest)+len(name)+len(value)+8)
	out = append(workflow.AppendJSONString(append(out, '{'), name), ':')
	out = workflow.AppendJSONString(out, value)
	if len(rest) > 0 {
		out = append(append(out, ','), rest...)
	}
	return append(out, '}')
}

// View returns a fresh copy of the synthesized object for s and key with
// the synthesized values of the same key for schema canon laid over it
// where they fit: a view of a record in a shape of its own (a list entry)
// then shows the generated values its other views show, fixed by the key
// rather than drawn again for each shape. The merged object is cached.
func (b *Bases) View(s, canon *spec.Schema, key string) map[string]any {
	if s == nil || canon == nil || s.Same(canon) {
		return b.Object(s, key)
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key, as: canon}, func() (any, error) {
		m := b.Object(s, key)
		if c, ok := jsonvalue.Clone(b.Value(canon, key)).(map[string]any); ok {
			b.fit.Merge(s, m, c, 0)
		}
		return m, nil
	})
	m, _ := jsonvalue.Clone(v).(map[string]any)
	return m
}

// Value is the cached synthesized value for s and key. Callers must not
// change it.
func (b *Bases) Value(s *spec.Schema, key string) any {
	v, _ := b.m.Do(baseKey{schema: s, key: key}, func() (any, error) {
		v := b.gen.Value(baseOf(s), key, synth.Response)
		if m, ok := v.(map[string]any); ok {
			b.fit.sanitize(s, m, 0)
		}
		return v, nil
	})
	return v
}

// Framer hands out the frames an answer about one record is built on:
// synthesized values for a record of the seeded account (made), bare ones
// (only what a schema requires) for a record a client wrote, so that nothing
// made up stands beside what was written.
type Framer struct {
	b    *Bases
	made bool
}

func (b *Bases) Frames(made bool) Framer { return Framer{b, made} }

// Object is the frame of schema s under key.
func (f Framer) Object(s *spec.Schema, key string) map[string]any {
	if f.made {
		return f.b.Object(s, key)
	}
	return f.b.Bare(s, key)
}

// Child returns m[name] as an object, or a frame for the property's schema
// when m has none.
func (f Framer) Child(s *spec.Schema, m map[string]any, name, key string) (map[string]any, *spec.Schema) {
	ps := s.Prop(name)
	if c, ok := m[name].(map[string]any); ok {
		return c, ps
	}
	return f.Object(ps, key+"/"+name), ps
}

// Child returns m[name] as an object, synthesizing one for the property's
// schema when the base left the optional property out.
func (b *Bases) Child(s *spec.Schema, m map[string]any, name, key string) (map[string]any, *spec.Schema) {
	ps := s.Prop(name)
	if c, ok := m[name].(map[string]any); ok {
		return c, ps
	}
	return b.Object(ps, key+"/"+name), ps
}

// LowerContains is a case-insensitive substring test for search filters.
func LowerContains(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
