package leniency

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// walker reads one body along its shape. It never allocates for a body
// that needs nothing; what it finds becomes deviations and byte edits,
// applied at the end in one copy.
type walker struct {
	b      []byte
	i      int
	policy *Policy
	edits  []edit
	path   []segment
	depth  int
	bad    bool // not JSON: the walk gives up and the body goes as sent

	tolerated, refused []Deviation
	more               int
}

// segment is one step of the path to the value being read: an object key
// as it is written in the body, or an array index.
type segment struct {
	key   []byte
	index int
}

// edit replaces b[start:end] with text (an insertion when start == end),
// or, with quote, puts b[start:end] between quotes.
type edit struct {
	start, end int
	text       []byte
	quote      bool
}

// maxNesting bounds how deep the walk follows a body; a deeper body is
// left to the validator as it is.
const maxNesting = 512

// read walks the whole body; false means it is not JSON.
func (w *walker) read(root *shape) bool {
	w.ws()
	w.value(root, nil)
	w.ws()
	return !w.bad && w.i == len(w.b)
}

// inference is a discriminator value a parent found in a sibling, offered
// to a discriminated child that has none of its own.
type inference struct {
	value   []byte // the sibling's value as written, quotes included
	sibling []byte // the sibling's key, for the deviation's detail
}

// value reads one value at w.i with shape sh (nil: anything), and returns
// what it read: '{', '[', '"', 't' (a boolean), '0' (a number) or 'n'
// (null, which the caller judges: it knows whether the value is a
// property, a map entry or an item).
func (w *walker) value(sh *shape, infer *inference) byte {
	if w.i >= len(w.b) {
		w.bad = true
		return 0
	}
	start := w.i
	var kind byte
	switch c := w.b[start]; {
	case c == '{':
		if sh.walkable() {
			w.object(sh, infer)
		} else {
			w.skip()
		}
		return '{'
	case c == '[':
		if sh != nil && sh.items != nil {
			w.array(sh.items)
		} else {
			w.skip()
		}
		kind = '['
	case c == '"':
		w.str()
		kind = '"'
	case c == 'n':
		w.literal("null")
		return 'n'
	case c == 't':
		w.literal("true")
		kind = 't'
	case c == 'f':
		w.literal("false")
		kind = 't'
	case c == '-' || c >= '0' && c <= '9':
		w.number()
		kind = '0'
	default:
		w.bad = true
	}
	if w.bad || sh == nil {
		return kind
	}
	if sh.bare {
		w.deviate(ObjectsAsAny, func() string {
			return kindName[kind] + " where the schema says only type object (a Java Object on the service), taken as sent"
		})
		return kind
	}
	if kind == 't' && sh.types.Has(spec.String) && !sh.types.Has(spec.Boolean) ||
		kind == '0' && sh.types.Has(spec.String) && !sh.types.Has(numeric) {
		raw := w.b[start:w.i]
		if w.deviate(ScalarsAsStrings, func() string {
			return kindName[kind] + " " + clip(raw) + " read as the string " + strconv.Quote(clip(raw))
		}) {
			w.edits = append(w.edits, edit{start: start, end: w.i, quote: true})
		}
	}
	if kind == '"' && sh.types.Has(numeric) && !sh.types.Has(spec.String) {
		raw := w.b[start:w.i]
		if text := raw[1 : len(raw)-1]; jsonvalue.IsNumber(text) {
			if w.deviate(StringsAsNumbers, func() string {
				return "the string " + clip(raw) + " read as the number " + clip(text)
			}) {
				w.edits = append(w.edits, edit{start: start, end: w.i, text: text})
			}
		}
	}
	return kind
}

var kindName = map[byte]string{'[': "an array", '"': "a string", 't': "a boolean", '0': "a number", 'n': "null"}

// object reads an object whose shape has something to read. infer, when
// set, is the branch a sibling names for this (discriminated) object.
func (w *walker) object(sh *shape, infer *inference) {
	if w.depth++; w.depth > maxNesting {
		w.bad = true
		return
	}
	defer func() { w.depth-- }()
	start := w.i
	eff := sh
	var inserted []byte // a discriminator to insert after '{'
	if d := sh.disc; d != nil {
		if v, ok := w.member(start, d.prop); ok {
			if b := d.branches[unquote(v)]; b != nil {
				eff = b
			}
		} else if infer != nil {
			if b := d.branches[unquote(infer.value)]; b != nil {
				w.push(segment{key: []byte(d.prop)})
				tolerated := w.deviate(InferDiscriminator, func() string {
					return "no " + d.prop + " property; the branch " + string(infer.value) + " is read from the sibling " + w.siblingPath(infer.sibling)
				})
				w.pop()
				eff = b // refused or not, the rest is read as that branch, so everything is named
				if tolerated {
					inserted = append(append(append([]byte{'"'}, d.prop...), '"', ':'), infer.value...)
				}
			}
		}
	}
	var seen []string // excepted properties present
	kept := 0
	prevEnd := -1 // end of the last member kept
	runStart, runEnd := -1, -1
	w.i++ // '{'
	w.ws()
	if w.i < len(w.b) && w.b[w.i] == '}' {
		w.i++
	} else {
		for !w.bad {
			keyStart := w.i
			key, ok := w.key()
			if !ok {
				w.bad = true
				return
			}
			w.ws()
			if w.i >= len(w.b) || w.b[w.i] != ':' {
				w.bad = true
				return
			}
			w.i++
			w.ws()
			psh := eff.prop(key)
			var childInfer *inference
			if len(eff.pairs) > 0 {
				childInfer = w.inferFor(start, eff, key)
			}
			w.push(segment{key: key})
			kind := w.value(psh, childInfer)
			deleted := kind == 'n' && w.null(eff, psh, key)
			w.pop()
			if eff.excepted != nil && slices.Contains(eff.excepted, string(key)) {
				seen = append(seen, string(key))
			}
			valueEnd := w.i
			if deleted {
				if runStart < 0 {
					runStart = keyStart
				}
				runEnd = valueEnd
			} else {
				if runStart >= 0 {
					w.edits = append(w.edits, edit{start: runStart, end: keyStart})
					runStart = -1
				}
				prevEnd = valueEnd
				kept++
			}
			w.ws()
			if w.i >= len(w.b) {
				w.bad = true
				return
			}
			if w.b[w.i] == ',' {
				w.i++
				w.ws()
				continue
			}
			if w.b[w.i] != '}' {
				w.bad = true
				return
			}
			w.i++
			break
		}
	}
	if runStart >= 0 { // the last members were dropped
		if prevEnd >= 0 {
			w.edits = append(w.edits, edit{start: prevEnd, end: runEnd})
		} else {
			w.edits = append(w.edits, edit{start: runStart, end: runEnd})
		}
	}
	if inserted != nil {
		if kept > 0 {
			inserted = append(inserted, ',')
		}
		w.edits = append(w.edits, edit{start: start + 1, end: start + 1, text: inserted})
	}
	for _, name := range eff.excepted {
		if !slices.Contains(seen, name) {
			w.push(segment{key: []byte(name)})
			w.deviate(RequiredExceptions, detail("the required property is left out, as the service's own client does (profile requests.required_exceptions)"))
			w.pop()
		}
	}
}

// null decides about a null member of an object of shape obj; true means
// it is dropped from the body.
func (w *walker) null(obj, psh *shape, key []byte) bool {
	switch {
	case psh == nil || psh.types.Has(spec.Null):
		return false // allowed, or nothing known about it
	case obj.props[string(key)] == nil:
		// An entry of a map (additionalProperties): dropping it would
		// lose its key, so it is left to the validator; a Java Object
		// takes it.
		if psh.bare {
			w.deviate(ObjectsAsAny, detail("null where the schema says only type object (a Java Object on the service), taken as sent"))
		}
		return false
	case slices.Contains(obj.excepted, string(key)):
		return w.deviate(RequiredExceptions, detail("null in a required property the service's own client leaves out (profile requests.required_exceptions), read as absent"))
	case obj.required[string(key)]:
		return false // null where a value is required: the validator refuses it
	}
	return w.deviate(NullsAsAbsent, detail("null in an optional property, read as absent"))
}

// inferFor offers a discriminated member of obj the branch its sibling
// names, when the sibling is a string.
func (w *walker) inferFor(objStart int, obj *shape, key []byte) *inference {
	sib, ok := obj.pairOf(key)
	if !ok {
		return nil
	}
	v, ok := w.member(objStart, sib)
	if !ok || len(v) < 2 || v[0] != '"' {
		return nil
	}
	return &inference{value: v, sibling: []byte(sib)}
}

// member finds the value of key in the object starting at start, as
// written (a string keeps its quotes), without reading anything else.
func (w *walker) member(start int, key string) ([]byte, bool) {
	save, saveBad := w.i, w.bad
	defer func() { w.i, w.bad = save, saveBad }()
	w.i = start + 1
	w.ws()
	if w.i < len(w.b) && w.b[w.i] == '}' {
		return nil, false
	}
	for !w.bad && w.i < len(w.b) {
		k, ok := w.key()
		if !ok {
			return nil, false
		}
		w.ws()
		if w.i >= len(w.b) || w.b[w.i] != ':' {
			return nil, false
		}
		w.i++
		w.ws()
		vs := w.i
		w.skip()
		if w.bad {
			return nil, false
		}
		if string(k) == key {
			return w.b[vs:w.i], true
		}
		w.ws()
		if w.i >= len(w.b) || w.b[w.i] != ',' {
			return nil, false
		}
		w.i++
		w.ws()
	}
	return nil, false
}

func (w *walker) array(items *shape) {
	if w.depth++; w.depth > maxNesting {
		w.bad = true
		return
	}
	defer func() { w.depth-- }()
	w.i++ // '['
	w.ws()
	if w.i < len(w.b) && w.b[w.i] == ']' {
		w.i++
		return
	}
	for n := 0; !w.bad; n++ {
		w.push(segment{index: n})
		if w.value(items, nil) == 'n' && items.bare {
			w.deviate(ObjectsAsAny, detail("null where the schema says only type object (a Java Object on the service), taken as sent"))
		}
		w.pop()
		w.ws()
		if w.i >= len(w.b) {
			w.bad = true
			return
		}
		switch w.b[w.i] {
		case ',':
			w.i++
			w.ws()
		case ']':
			w.i++
			return
		default:
			w.bad = true
			return
		}
	}
}

// key reads an object key and returns it as written (without quotes,
// escapes unresolved: keys with escapes are rare, and compared as written).
func (w *walker) key() ([]byte, bool) {
	if w.i >= len(w.b) || w.b[w.i] != '"' {
		return nil, false
	}
	s := w.i
	w.str()
	if w.bad {
		return nil, false
	}
	return w.b[s+1 : w.i-1], true
}

// str skips a string, quotes included.
func (w *walker) str() {
	i := w.i + 1
	// Most strings have no escape: find the closing quote at once.
	if q := bytes.IndexByte(w.b[i:], '"'); q >= 0 && bytes.IndexByte(w.b[i:i+q], '\\') < 0 {
		w.i = i + q + 1
		return
	}
	for i < len(w.b) {
		switch w.b[i] {
		case '"':
			w.i = i + 1
			return
		case '\\':
			i += 2
		default:
			i++
		}
	}
	w.bad = true
}

func (w *walker) number() {
	i := w.i
	for i < len(w.b) {
		c := w.b[i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			i++
			continue
		}
		break
	}
	w.i = i
}

func (w *walker) literal(lit string) {
	if !bytes.HasPrefix(w.b[w.i:], []byte(lit)) {
		w.bad = true
		return
	}
	w.i += len(lit)
}

// skip passes over one value of any kind without reading it.
func (w *walker) skip() {
	if w.i >= len(w.b) {
		w.bad = true
		return
	}
	switch c := w.b[w.i]; {
	case c == '"':
		w.str()
	case c == '{' || c == '[':
		depth := 0
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case '"':
				w.str()
				if w.bad {
					return
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					w.i++
					return
				}
			}
			w.i++
		}
		w.bad = true
	case c == 't':
		w.literal("true")
	case c == 'f':
		w.literal("false")
	case c == 'n':
		w.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		w.number()
	default:
		w.bad = true
	}
}

func (w *walker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *walker) push(s segment) { w.path = append(w.path, s) }
func (w *walker) pop()           { w.path = w.path[:len(w.path)-1] }

// deviate records a deviation at the current path and reports whether the
// policy tolerates it. The detail is written only for the deviations
// recorded.
func (w *walker) deviate(k Kind, detail func() string) bool {
	ok := w.policy.tolerates(k)
	if len(w.tolerated)+len(w.refused) >= maxRecorded {
		w.more++
		return ok
	}
	d := Deviation{Path: pointer(w.path), Kind: k, Detail: detail()}
	if ok {
		w.tolerated = append(w.tolerated, d)
	} else {
		w.refused = append(w.refused, d)
	}
	return ok
}

// siblingPath is the pointer of a sibling of the object being read.
func (w *walker) siblingPath(sibling []byte) string {
	parent := w.path[:len(w.path)-2] // the path ends with the object and the discriminator
	return pointer(append(slices.Clip(parent), segment{key: sibling}))
}

// pointer renders a path as a JSON Pointer.
func pointer(path []segment) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.key == nil {
			b.WriteString(strconv.Itoa(s.index))
			continue
		}
		key := string(s.key)
		if bytes.IndexByte(s.key, '\\') >= 0 {
			var u string
			if json.Unmarshal(append(append([]byte{'"'}, s.key...), '"'), &u) == nil {
				key = u
			}
		}
		b.WriteString(pointerEscape.Replace(key))
	}
	return b.String()
}

// detail is a deviation's fixed text.
func detail(text string) func() string { return func() string { return text } }

var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// unquote is a JSON string's text as written, without its quotes (escapes
// are not resolved: discriminator values have none).
func unquote(v []byte) string {
	if len(v) >= 2 && v[0] == '"' {
		return string(v[1 : len(v)-1])
	}
	return string(v)
}

// clip shortens a value quoted in a detail.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// apply builds the edited body, and checks that it is JSON.
func (w *walker) apply() ([]byte, bool) {
	slices.SortStableFunc(w.edits, func(a, b edit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	out := make([]byte, 0, len(w.b)+16*len(w.edits))
	at := 0
	for _, e := range w.edits {
		if e.start < at {
			return nil, false // overlapping edits: never expected
		}
		out = append(out, w.b[at:e.start]...)
		if e.quote {
			out = append(append(append(out, '"'), w.b[e.start:e.end]...), '"')
		} else {
			out = append(out, e.text...)
		}
		at = e.end
	}
	out = append(out, w.b[at:]...)
	return out, json.Valid(out)
}
