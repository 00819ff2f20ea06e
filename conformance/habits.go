package conformance

import (
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// The service's answers are not always what its published schema says
// (CONTRACT.md, "The service's JSON habits"): its JSON layer writes every
// property of a record, null where the record has no value, although the
// schema marks none of those properties nullable. A run judges a server by
// the contract, so such a null is the service's habit: counted and listed,
// never failed, unless the run checks the schema strictly
// (Options.StrictSchema). Anything else the schema refuses (a wrong type,
// a missing required property, a null the schema forbids outright) is still
// a failure.
//
// It is the only habit of the contract's last section that is about
// answers; the others (numbers sent as strings, discriminators left out,
// required properties omitted) are what clients send, and a conformance run
// judges what a server answers.

// Habit is a place where a server's answers depart from the document the
// way the service's own answers do.
type Habit struct {
	// Operation is the operation answered, "METHOD template".
	Operation string `json:"operation"`
	// Path is where in the answer, as a JSONPath: $.workflow.errorMessage;
	// [*] stands for any item of an array.
	Path string `json:"path"`
	// Kind is the habit: HabitNull or HabitAnyObject.
	Kind string `json:"kind"`
	// Count is how many nulls were seen there.
	Count int `json:"count"`
}

// HabitNull is a null for a property the schema declares, does not
// require, and does not make nullable.
const HabitNull = "null"

// HabitAnyObject is a value other than an object (a list, a string) for a
// property whose schema says only "type: object": how the published
// schema renders a Java Object, which the service's JSON layer writes as
// whatever it holds (a run log's entries, an Iterator<String>, come as a
// list of strings, and Nextflow's launch command reads them so).
const HabitAnyObject = "any_object"

func (h Habit) String() string { return h.Operation + " " + h.Path }

// mergeHabits adds the habits of more to have: one entry per operation,
// path and kind, with the counts summed, in a stable order.
func mergeHabits(have []Habit, more ...Habit) []Habit {
	for _, h := range more {
		i := slices.IndexFunc(have, func(o Habit) bool {
			return o.Operation == h.Operation && o.Path == h.Path && o.Kind == h.Kind
		})
		if i < 0 {
			have = append(have, h)
			continue
		}
		have[i].Count += h.Count
	}
	slices.SortFunc(have, func(a, b Habit) int {
		return cmp.Or(cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Kind, b.Kind))
	})
	return have
}

// Habits returns the habits every scenario of the run saw, one entry per
// operation and place.
func (r *Result) Habits() []Habit {
	var out []Habit
	for _, sc := range r.Scenarios {
		out = mergeHabits(out, sc.Habits...)
	}
	return out
}

// habitText lists habits by operation, a line each, at most limit
// operations (0: all).
func habitText(habits []Habit, indent string, limit int) string {
	var order []string
	paths := map[string][]string{}
	for _, h := range habits {
		if _, ok := paths[h.Operation]; !ok {
			order = append(order, h.Operation)
		}
		paths[h.Operation] = append(paths[h.Operation], h.Path)
	}
	var b strings.Builder
	for i, op := range order {
		if limit > 0 && i == limit {
			fmt.Fprintf(&b, "%sand %d more operations\n", indent, len(order)-limit)
			break
		}
		fmt.Fprintf(&b, "%s%s: %s\n", indent, op, strings.Join(paths[op], ", "))
	}
	return b.String()
}

// judgeHabits is checkResponse's second look at an answer the schema
// refused: its habit nulls are found and taken out, and what is left is
// judged again. It returns the problems that remain (nil when the nulls
// were all there was), and the habits.
func (d *Document) judgeHabits(op *Operation, a *answer, validate func(body []byte) []string) ([]string, []Habit, bool) {
	schema := op.answerSchema(a.status, a.header.Get("Content-Type"))
	if schema == nil {
		return nil, nil, false
	}
	v, err := decodeJSON(a.body)
	if err != nil {
		return nil, nil, false
	}
	d.mu.Lock() // libopenapi builds schemas lazily, writing to its model
	spots := findHabitNulls(schema, v, d.component)
	d.mu.Unlock()
	if len(spots) == 0 {
		return nil, nil, false
	}
	var habits []Habit
	for _, s := range spots {
		kind := HabitNull
		if s.anyObject {
			kind = HabitAnyObject
			s.in[s.key] = map[string]any{} // judged as the bare object the schema names
		} else {
			delete(s.in, s.key)
		}
		habits = mergeHabits(habits, Habit{Operation: op.Method + " " + op.Path, Path: s.path, Kind: kind, Count: 1})
	}
	rest, err := json.Marshal(v)
	if err != nil {
		return nil, nil, false
	}
	return validate(rest), habits, true
}

// answerSchema is the JSON schema the document gives the answer with this
// status and media type: the status's own response, else its class (2XX),
// else the default one.
func (op *Operation) answerSchema(status int, contentType string) *base.Schema {
	if op.op.Responses == nil {
		return nil
	}
	var resp *v3.Response
	if op.op.Responses.Codes != nil {
		code := strconv.Itoa(status)
		resp = op.op.Responses.Codes.GetOrZero(code)
		if resp == nil {
			resp = op.op.Responses.Codes.GetOrZero(code[:1] + "XX")
		}
	}
	if resp == nil {
		resp = op.op.Responses.Default
	}
	if resp == nil || resp.Content == nil {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	for c := resp.Content.First(); c != nil; c = c.Next() {
		if (c.Key() == mt || mt == "" && isJSONMedia(c.Key())) && c.Value().Schema != nil {
			return oasdoc.Schema(c.Value().Schema)
		}
	}
	return nil
}

// habitSpot is a null found where the schema declares an optional,
// non-nullable property: in the object in, under key, at path.
type habitSpot struct {
	in   map[string]any
	key  string
	path string
	// anyObject: not a null but a value other than an object where the
	// schema says only type object (HabitAnyObject).
	anyObject bool
}

// maxHabitDepth bounds the walk through nested values and compositions;
// recursive schemas end there.
const maxHabitDepth = 64

// nullWalk walks a decoded answer with its schema. It finds every null
// that stands for a property the schema declares for that object, requires
// nowhere, and does not make nullable (spots), and, when asked, every
// property the schema surely declares for an object that the object leaves
// out (absent). The schemas judging an object are its own, its allOf parts,
// and the branches of its oneOf and anyOf: the one its discriminator names,
// else all of them (the validator then decides whether the answer fits
// without the nulls; an absent property counts only where the schema
// surely applies).
type nullWalk struct {
	// component finds a component schema by name (discriminator mappings).
	component  func(name string) *base.Schema
	wantAbsent bool
	spots      []habitSpot
	absent     []string
}

func findHabitNulls(s *base.Schema, v any, component func(name string) *base.Schema) []habitSpot {
	w := &nullWalk{component: component}
	w.walk(s, v, "$", 0)
	return w.spots
}

func (w *nullWalk) walk(s *base.Schema, v any, path string, depth int) {
	if s == nil || depth > maxHabitDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		parts, sure, required := objectParts(s, x, w.component)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := declared(parts, k)
			if x[k] == nil {
				if p != nil && !required[k] && !nullable(p) {
					w.spots = append(w.spots, habitSpot{in: x, key: k, path: path + "." + k})
				}
				continue
			}
			if p == nil {
				p = additional(parts)
			}
			if _, isObject := x[k].(map[string]any); !isObject && bareObject(p) {
				w.spots = append(w.spots, habitSpot{in: x, key: k, path: path + "." + k, anyObject: true})
				continue
			}
			w.walk(p, x[k], path+"."+k, depth+1)
		}
		if w.wantAbsent {
			w.absentIn(parts[:sure], x, path)
		}
	case []any:
		items := itemsOfAll(s)
		for _, e := range x {
			w.walk(items, e, path+"[*]", depth+1)
		}
	}
}

// bareObject reports whether s says only "type: object": no properties,
// no additional ones named, no composition.
func bareObject(s *base.Schema) bool {
	return s != nil && slices.Equal(s.Type, []string{"object"}) && (s.Properties == nil || s.Properties.Len() == 0) &&
		s.AdditionalProperties == nil && len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0
}

// absentIn notes the properties parts declare that x leaves out, but for
// writeOnly ones, which an answer never carries.
func (w *nullWalk) absentIn(parts []*base.Schema, x map[string]any, path string) {
	for _, s := range parts {
		if s.Properties == nil {
			continue
		}
		for name, p := range s.Properties.FromOldest() {
			if _, ok := x[name]; ok {
				continue
			}
			if ps := oasdoc.Schema(p); ps != nil && ps.WriteOnly != nil && *ps.WriteOnly {
				continue
			}
			if at := path + "." + name; !slices.Contains(w.absent, at) {
				w.absent = append(w.absent, at)
			}
		}
	}
}

// objectParts lists the schemas that judge object x under s: first those
// that surely apply (s, its allOf parts, the branch its discriminator
// names), sure of them, then the oneOf/anyOf branches that may apply; and
// the properties the sure ones require, a discriminator's property
// included.
func objectParts(s *base.Schema, x map[string]any, component func(string) *base.Schema) ([]*base.Schema, int, map[string]bool) {
	var parts, maybe []*base.Schema
	required := map[string]bool{}
	var add func(s *base.Schema, depth int)
	add = func(s *base.Schema, depth int) {
		if s == nil || depth > maxHabitDepth || slices.Contains(parts, s) {
			return
		}
		parts = append(parts, s)
		for _, r := range s.Required {
			required[r] = true
		}
		if s.Discriminator != nil && s.Discriminator.PropertyName != "" {
			required[s.Discriminator.PropertyName] = true
		}
		for _, p := range s.AllOf {
			add(oasdoc.Schema(p), depth+1)
		}
		branches := append(slices.Clone(s.OneOf), s.AnyOf...)
		if b := discriminated(s, branches, x, component); b != nil {
			add(b, depth+1)
			return
		}
		for _, p := range branches {
			maybe = append(maybe, allParts(oasdoc.Schema(p))...)
		}
	}
	add(s, 0)
	sure := len(parts)
	for _, m := range maybe {
		if m != nil && !slices.Contains(parts, m) {
			parts = append(parts, m)
		}
	}
	return parts, sure, required
}

// discriminated is the branch s's discriminator names for object x, or
// nil. The judge reads documents with the reading rules (internal/oasdoc),
// which guard each discriminated branch with the discriminator values that
// select it; the branch is the one whose guard takes x's value. A document
// the rules leave alone is matched by the mapping's component.
func discriminated(s *base.Schema, branches []*base.SchemaProxy, x map[string]any, component func(string) *base.Schema) *base.Schema {
	if s.Discriminator == nil || len(branches) == 0 {
		return nil
	}
	prop := s.Discriminator.PropertyName
	value, ok := x[prop].(string)
	if !ok {
		return nil
	}
	var picked *base.Schema
	for _, b := range branches {
		bs := oasdoc.Schema(b)
		if bs == nil {
			continue
		}
		if p := declared(allParts(bs), prop); p != nil && len(p.Enum) > 0 && slices.ContainsFunc(p.Enum, func(e *yaml.Node) bool { return e.Value == value }) {
			if picked != nil {
				return nil // two branches take the value: none is named
			}
			picked = bs
		}
	}
	if picked != nil {
		return picked
	}
	target := value
	if s.Discriminator.Mapping != nil {
		if ref, ok := s.Discriminator.Mapping.Get(value); ok {
			target = ref
		}
	}
	want := component(target[strings.LastIndexByte(target, '/')+1:])
	for _, b := range branches {
		if bs := oasdoc.Schema(b); want != nil && bs == want {
			return bs
		}
	}
	return nil
}

// allParts is s and its allOf parts, to any depth.
func allParts(s *base.Schema) []*base.Schema {
	if s == nil {
		return nil
	}
	out := []*base.Schema{s}
	for i := 0; i < len(out) && i < maxHabitDepth; i++ {
		for _, p := range out[i].AllOf {
			if ps := oasdoc.Schema(p); ps != nil {
				out = append(out, ps)
			}
		}
	}
	return out
}

// declared is the schema of property name in the first of parts that
// declares it, or nil.
func declared(parts []*base.Schema, name string) *base.Schema {
	for _, s := range parts {
		if s.Properties == nil {
			continue
		}
		if p, ok := s.Properties.Get(name); ok {
			return oasdoc.Schema(p)
		}
	}
	return nil
}

// additional is the schema of an undeclared property's value: the first
// additionalProperties schema among parts, or nil.
func additional(parts []*base.Schema) *base.Schema {
	for _, s := range parts {
		if a := s.AdditionalProperties; a != nil && a.IsA() && a.A != nil {
			return oasdoc.Schema(a.A)
		}
	}
	return nil
}

// itemsOfAll is the items schema of s or of one of its allOf parts.
func itemsOfAll(s *base.Schema) *base.Schema {
	if s == nil {
		return nil
	}
	if s.Items != nil && s.Items.IsA() {
		return oasdoc.Schema(s.Items.A)
	}
	for _, p := range s.AllOf {
		if it := itemsOfAll(oasdoc.Schema(p)); it != nil {
			return it
		}
	}
	return nil
}

// component is the document's component schema name, or nil.
func (d *Document) component(name string) *base.Schema {
	if d.model.Components == nil || d.model.Components.Schemas == nil {
		return nil
	}
	return oasdoc.Schema(d.model.Components.Schemas.GetOrZero(name))
}

// nullable reports whether a property's schema takes null as it stands.
func nullable(s *base.Schema) bool {
	return s.Nullable != nil && *s.Nullable || slices.Contains(s.Type, "null")
}

// NullReading is what one answer shows of the service's null habit: the
// nulls it sends where the schema has a non-nullable property it does not
// require, and the properties the schema declares that it leaves out. A
// server with the habit shows the first and never the second.
type NullReading struct {
	Nulls  []Habit
	Absent []string // JSONPaths, [*] for any item of an array
}

// ReadNulls reads an answer to a call of method and path (below the base
// path; a query is ignored) by the document, for a probe of the habit
// (wmsmock calibrate). It fails when the document has no such operation,
// or no JSON schema for the answer.
func (d *Document) ReadNulls(method, path string, status int, header http.Header, body []byte) (NullReading, error) {
	op := d.find(method, path)
	if op == nil {
		return NullReading{}, fmt.Errorf("the schema has no operation %s %s", method, path)
	}
	schema := op.answerSchema(status, header.Get("Content-Type"))
	if schema == nil {
		return NullReading{}, fmt.Errorf("the schema gives %s %s no JSON answer for status %d", method, op.Path, status)
	}
	v, err := decodeJSON(body)
	if err != nil {
		return NullReading{}, err
	}
	w := &nullWalk{component: d.component, wantAbsent: true}
	d.mu.Lock() // libopenapi builds schemas lazily, writing to its model
	w.walk(schema, v, "$", 0)
	d.mu.Unlock()
	var r NullReading
	for _, s := range w.spots {
		if s.anyObject {
			continue
		}
		r.Nulls = mergeHabits(r.Nulls, Habit{Operation: op.Method + " " + op.Path, Path: s.path, Kind: HabitNull, Count: 1})
	}
	r.Absent = w.absent
	return r, nil
}
