package resources

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/oasdoc"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// The answers this package gives are built the same way everywhere: a
// synthesized value that is valid for the answer's schema, with the record's
// own values laid over it wherever they fit that schema. The helpers here
// read schemas (properties through allOf, list shapes) and decide whether a
// value fits, so that an answer stays valid against whichever document is
// served, the small embedded one or the large published one.

// maxSchemaDepth bounds walks through allOf chains and nested values; real
// documents nest a few levels, and a cycle must not hang a request.
const maxSchemaDepth = 12

// prop finds the schema of a property declared by s directly or through
// its allOf members (oneOf and anyOf branches are not searched: a property
// declared only in some branches may not be valid in the one chosen).
func prop(s *base.Schema, name string) *base.Schema {
	return propDepth(s, name, 0)
}

func propDepth(s *base.Schema, name string, depth int) *base.Schema {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	if s.Properties != nil {
		if p, ok := s.Properties.Get(name); ok {
			return oasdoc.Schema(p)
		}
	}
	for _, m := range s.AllOf {
		if p := propDepth(oasdoc.Schema(m), name, depth+1); p != nil {
			return p
		}
	}
	return nil
}

// anyProp is prop that also looks into oneOf and anyOf branches. It is
// used only to find what must be hidden (writeOnly secrets), where
// looking too widely is the safe mistake.
func anyProp(s *base.Schema, name string, depth int) *base.Schema {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	if p := propDepth(s, name, depth); p != nil {
		return p
	}
	for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
		for _, m := range group {
			if p := anyProp(oasdoc.Schema(m), name, depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

// propNames lists the properties s declares directly or through allOf, in
// document order.
func propNames(s *base.Schema) []string {
	var out []string
	var walk func(*base.Schema, int)
	walk = func(s *base.Schema, depth int) {
		if s == nil || depth > maxSchemaDepth {
			return
		}
		if s.Properties != nil {
			for p := s.Properties.First(); p != nil; p = p.Next() {
				if !slices.Contains(out, p.Key()) {
					out = append(out, p.Key())
				}
			}
		}
		for _, m := range s.AllOf {
			walk(oasdoc.Schema(m), depth+1)
		}
	}
	walk(s, 0)
	return out
}

// required reports whether s (or one of its allOf members) requires name.
func required(s *base.Schema, name string) bool {
	var walk func(*base.Schema, int) bool
	walk = func(s *base.Schema, depth int) bool {
		if s == nil || depth > maxSchemaDepth {
			return false
		}
		if slices.Contains(s.Required, name) {
			return true
		}
		for _, m := range s.AllOf {
			if walk(oasdoc.Schema(m), depth+1) {
				return true
			}
		}
		return false
	}
	return walk(s, 0)
}

func hasType(s *base.Schema, t string) bool { return s != nil && slices.Contains(s.Type, t) }

// isArray and isObject read a schema's declared shape, through allOf.
func isArray(s *base.Schema) bool {
	return s != nil && (hasType(s, "array") || s.Items != nil && s.Items.IsA())
}

func isObject(s *base.Schema) bool {
	if s == nil {
		return false
	}
	if hasType(s, "object") || s.Properties != nil && s.Properties.Len() > 0 {
		return true
	}
	for _, m := range s.AllOf {
		if isObject(oasdoc.Schema(m)) {
			return true
		}
	}
	return len(s.OneOf) > 0 && isObject(oasdoc.Schema(s.OneOf[0]))
}

func itemsOf(s *base.Schema) *base.Schema {
	if s == nil || s.Items == nil || !s.Items.IsA() {
		return nil
	}
	return oasdoc.Schema(s.Items.A)
}

func readOnly(s *base.Schema) bool  { return s != nil && s.ReadOnly != nil && *s.ReadOnly }
func writeOnly(s *base.Schema) bool { return s != nil && s.WriteOnly != nil && *s.WriteOnly }

// listShape finds where a list answer keeps its items: the first array
// property whose items are objects ("workflows", "pipelines", "tokens").
func listShape(s *base.Schema) (key string, item *base.Schema) {
	for _, name := range propNames(s) {
		p := prop(s, name)
		if isArray(p) {
			if it := itemsOf(p); isObject(it) {
				return name, it
			}
		}
	}
	return "", nil
}

// sameSchema reports whether two schemas are the same declaration (two
// references to one component compare equal).
func sameSchema(a, b *base.Schema) bool {
	if a == nil || b == nil {
		return false
	}
	if a == b {
		return true
	}
	la, lb := a.GoLow(), b.GoLow()
	return la != nil && lb != nil && la.Hash() == lb.Hash()
}

// stamp writes a time the way the service does (CONTRACT T2).
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z") }

// fitter decides whether values fit schemas. Scalars against plain schemas
// are checked here, quickly, because answers overlay many of them per call;
// anything else is first put to the generator's own checker, which works on
// the schema as prepared for making values (answers are built on values it
// made, so nothing is compiled for them), and only what that checker does
// not accept goes to the document's validator, the authority: compiling a
// validator for a large answer schema was most of an operation's first
// call on the published schema.
type fitter struct {
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
func newFitter(check func(*base.Schema, []byte) []string, openapi31 bool) *fitter {
	return &fitter{check: check, openapi31: openapi31}
}

// fits reports whether v is a valid value for s.
func (f *fitter) fits(s *base.Schema, v any) bool {
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
	if !plain(s, 0) {
		return f.full(s, v)
	}
	return scalarOK(s, v, 0)
}

// nullOK is deliberately strict: null is used only where the schema says so
// in the plainest way (nullable with a type, or "null" among the types),
// because validators disagree about nullable next to allOf.
func (f *fitter) nullOK(s *base.Schema) bool {
	if hasType(s, "null") {
		return true
	}
	if f.openapi31 || s.Nullable == nil || !*s.Nullable {
		return false
	}
	return len(s.Type) > 0 && len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0
}

func (f *fitter) full(s *base.Schema, v any) bool {
	if f.match != nil && f.match(s, v) {
		return true
	}
	if f.check == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return len(f.check(s, b)) == 0
}

// plain reports whether s can be checked by scalarOK: no branches, no
// pattern, no const.
func plain(s *base.Schema, depth int) bool {
	if s == nil || depth > maxSchemaDepth {
		return s == nil
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || s.Not != nil || s.Pattern != "" || s.Const != nil || s.MultipleOf != nil {
		return false
	}
	for _, m := range s.AllOf {
		if !plain(oasdoc.Schema(m), depth+1) {
			return false
		}
	}
	return true
}

func scalarOK(s *base.Schema, v any, depth int) bool {
	if s == nil {
		return true
	}
	for _, m := range s.AllOf {
		if !scalarOK(oasdoc.Schema(m), v, depth+1) {
			return false
		}
	}
	if len(s.Type) == 0 && (s.Properties != nil && s.Properties.Len() > 0 || s.Items != nil) {
		return false
	}
	if len(s.Type) > 0 && !slices.ContainsFunc(s.Type, func(t string) bool { return typeOK(t, v) }) {
		return false
	}
	if len(s.Enum) > 0 && !inEnum(s, v) {
		return false
	}
	switch x := v.(type) {
	case string:
		n := int64(utf8.RuneCountInString(x))
		if s.MaxLength != nil && n > *s.MaxLength || s.MinLength != nil && n < *s.MinLength {
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

func boundsOK(s *base.Schema, num float64) bool {
	if s.Minimum != nil {
		excl := s.ExclusiveMinimum != nil && s.ExclusiveMinimum.IsA() && s.ExclusiveMinimum.A
		if num < *s.Minimum || excl && num == *s.Minimum {
			return false
		}
	}
	if s.ExclusiveMinimum != nil && s.ExclusiveMinimum.IsB() && num <= s.ExclusiveMinimum.B {
		return false
	}
	if s.Maximum != nil {
		excl := s.ExclusiveMaximum != nil && s.ExclusiveMaximum.IsA() && s.ExclusiveMaximum.A
		if num > *s.Maximum || excl && num == *s.Maximum {
			return false
		}
	}
	if s.ExclusiveMaximum != nil && s.ExclusiveMaximum.IsB() && num >= s.ExclusiveMaximum.B {
		return false
	}
	return true
}

func typeOK(t string, v any) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := jsonvalue.Number(v)
		return ok
	case "integer":
		n, ok := jsonvalue.Number(v)
		return ok && n == math.Trunc(n)
	}
	return false
}

func inEnum(s *base.Schema, v any) bool {
	for _, e := range s.Enum {
		var ev any
		if e == nil || e.Decode(&ev) != nil {
			continue
		}
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

// overlay lays fields over m where the schema s declares them and the value
// fits; a nil value that does not fit removes the key instead (unless the
// schema requires it), since an absent optional field is always valid, or,
// where the service's nulls are sent, sets it null, as the service does.
// Either way the record's values win over the base's, nulls included.
func (f *fitter) overlay(s *base.Schema, m map[string]any, fields map[string]any) {
	for k, v := range fields {
		f.set(s, m, k, v)
	}
}

// merge is overlay that also goes into objects: a written object that does
// not fit the view's property as a whole (a launch written as a request and
// read as a Launch, a config some of whose members the view does not have)
// has its members laid over the view's own object one by one, and is taken
// when the result fits. So a view shows every written member it has room
// for, whichever schema it was written with. The values are laid in, not
// copied: fields must not be a cached value.
func (f *fitter) merge(s *base.Schema, m map[string]any, fields map[string]any, depth int) {
	for k, v := range fields {
		if f.set(s, m, k, v) {
			continue
		}
		wm, ok := v.(map[string]any)
		p := prop(s, k)
		if !ok || p == nil || depth >= maxSchemaDepth {
			continue
		}
		trial, _ := jsonvalue.Clone(m[k]).(map[string]any)
		if trial == nil {
			trial = map[string]any{}
		}
		f.merge(p, trial, wm, depth+1)
		if f.fits(p, trial) {
			m[k] = trial
		}
	}
}

// set is overlay for one field; it reports whether the value was taken.
func (f *fitter) set(s *base.Schema, m map[string]any, name string, v any) bool {
	p := prop(s, name)
	if p == nil {
		return false
	}
	if f.fits(p, v) {
		m[name] = v
		return true
	}
	if v == nil && !required(s, name) {
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
func (f *fitter) nullHabit(s *base.Schema, name string, v any) bool {
	return v == nil && f.nulls && !required(s, name)
}

// sanitize makes a synthesized object valid as part of an answer should
// the generator have missed (a oneOf that two branches match once writeOnly
// properties are left out, say): optional members that do not fit are
// repaired where they are objects, filtered where they are arrays, and
// dropped otherwise. It costs one check when the value is valid, and runs
// once per cached base.
func (f *fitter) sanitize(s *base.Schema, m map[string]any, depth int) {
	if s == nil || depth > 4 || f.full(s, m) {
		return
	}
	for k, v := range m {
		p := prop(s, k)
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
			if it := itemsOf(p); it != nil {
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
		if !required(s, k) {
			delete(m, k)
		}
	}
}

// hideWriteOnly removes, at any depth, the properties a schema marks
// writeOnly: secrets a client sent are never given back.
func hideWriteOnly(s *base.Schema, v any, depth int) {
	if s == nil || depth > maxSchemaDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := anyProp(s, k, 0)
			if writeOnly(p) {
				delete(x, k)
				continue
			}
			hideWriteOnly(p, val, depth+1)
		}
	case []any:
		it := itemsOf(s)
		for _, e := range x {
			hideWriteOnly(it, e, depth+1)
		}
	}
}

// dropNulls removes null members from objects at any depth: in a request a
// null means "not given", and keeping it would only fail schema checks.
func dropNulls(v any, depth int) any {
	if depth > maxSchemaDepth*2 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e, depth+1)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e, depth+1)
		}
	}
	return v
}

// bases hands out synthesized values, each one valid for its schema and
// the same for the same key, as the ground answers are built on. They are
// cached because the same record is rendered on every read: without the
// cache a launch costs half as much again (BenchmarkHandlerLaunchWorkflow).
type bases struct {
	gen *synth.Generator
	fit *fitter
	m   *memo.Map[baseKey, any]
}

type baseKey struct {
	schema *base.Schema
	key    string
	// as is the schema whose values were laid over (view), if any.
	as *base.Schema
}

func newBases(caches *memo.Set, gen *synth.Generator, fit *fitter) *bases {
	return &bases{gen: gen, fit: fit, m: memo.NewIn[baseKey, any](caches, "synthesized bases", 60)}
}

// object returns a fresh copy of the synthesized value for s and key, as
// an object (an empty one if the schema does not describe an object).
func (b *bases) object(s *base.Schema, key string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	m, ok := jsonvalue.Clone(b.value(s, key)).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return m
}

// frame returns a fresh copy of the synthesized object for s and key
// without its property name: the frame of a list answer, whose items the
// caller supplies. Copying the synthesized items only to drop them cost a
// list call more than building the rest of its answer.
func (b *bases) frame(s *base.Schema, key, name string) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00without " + name}, func() (any, error) {
		m, ok := jsonvalue.Clone(b.value(s, key)).(map[string]any)
		if !ok {
			return map[string]any{}, nil
		}
		delete(m, name)
		return m, nil
	})
	return jsonvalue.Clone(v).(map[string]any)
}

// withField returns the synthesized object for s and key, as JSON, with
// its property name set to the string value. The object without name is
// encoded once and cached; each call only splices the field in front, which
// costs a fraction of copying the object and encoding it again. Launches
// answer this way, and they are the hottest write.
func (b *bases) withField(s *base.Schema, key, name, value string) json.RawMessage {
	var rest []byte // the cached object's members, without the braces
	if s != nil {
		v, _ := b.m.Do(baseKey{schema: s, key: key + "\x00json without " + name}, func() (any, error) {
			enc, err := json.Marshal(b.frame(s, key, name))
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

// view returns a fresh copy of the synthesized object for s and key with
// the synthesized values of the same key for schema canon laid over it
// where they fit: a view of a record in a shape of its own (a list entry)
// then shows the generated values its other views show, fixed by the key
// rather than drawn again for each shape. The merged object is cached.
func (b *bases) view(s, canon *base.Schema, key string) map[string]any {
	if s == nil || canon == nil || sameSchema(s, canon) {
		return b.object(s, key)
	}
	v, _ := b.m.Do(baseKey{schema: s, key: key, as: canon}, func() (any, error) {
		m := b.object(s, key)
		if c, ok := jsonvalue.Clone(b.value(canon, key)).(map[string]any); ok {
			b.fit.merge(s, m, c, 0)
		}
		return m, nil
	})
	m, _ := jsonvalue.Clone(v).(map[string]any)
	return m
}

// value is the cached synthesized value for s and key. Callers must not
// change it.
func (b *bases) value(s *base.Schema, key string) any {
	v, _ := b.m.Do(baseKey{schema: s, key: key}, func() (any, error) {
		v := b.gen.Value(s, key, synth.Response)
		if m, ok := v.(map[string]any); ok {
			b.fit.sanitize(s, m, 0)
		}
		return v, nil
	})
	return v
}

// framer hands out the frames an answer about one record is built on:
// synthesized values for a record of the seeded account (made), bare ones
// (only what a schema requires) for a record a client wrote, so that nothing
// made up stands beside what was written.
type framer struct {
	b    *bases
	made bool
}

func (b *bases) frames(made bool) framer { return framer{b, made} }

// object is the frame of schema s under key.
func (f framer) object(s *base.Schema, key string) map[string]any {
	if f.made {
		return f.b.object(s, key)
	}
	return f.b.bare(s, key)
}

// child returns m[name] as an object, or a frame for the property's schema
// when m has none.
func (f framer) child(s *base.Schema, m map[string]any, name, key string) (map[string]any, *base.Schema) {
	ps := prop(s, name)
	if c, ok := m[name].(map[string]any); ok {
		return c, ps
	}
	return f.object(ps, key+"/"+name), ps
}

// child returns m[name] as an object, synthesizing one for the property's
// schema when the base left the optional property out.
func (b *bases) child(s *base.Schema, m map[string]any, name, key string) (map[string]any, *base.Schema) {
	ps := prop(s, name)
	if c, ok := m[name].(map[string]any); ok {
		return c, ps
	}
	return b.object(ps, key+"/"+name), ps
}

// lowerContains is a case-insensitive substring test for search filters.
func lowerContains(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
