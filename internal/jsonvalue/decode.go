package jsonvalue

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Decode reads a body that holds exactly one JSON value, keeping numbers
// as written (json.Number), so that a value read once can serve every
// stage of a call: the validator judges it and the handler stores it. ok
// is false for anything that is not one JSON value; the caller then
// leaves the body to the stage that explains what is wrong with it.
//
// The value is what json.Decoder.Decode gives with UseNumber (a test
// fuzzes the two against each other), but built straight from the bytes:
// json.Decoder reads through a buffer of its own that it grows by
// doubling until it holds the whole value, which for Nextflow's progress
// report of 100 tasks (67 KB) was a tenth of everything the call
// allocated, and it decodes into interfaces by reflection. json.Valid
// judges the body first, so the walk below only meets valid JSON.
func Decode(body []byte) (v any, ok bool) {
	if !json.Valid(body) {
		return nil, false
	}
	d := decoder{data: body}
	return d.value(0), true
}

// decoder builds the value of a document json.Valid has accepted.
type decoder struct {
	data []byte
	i    int
	// names holds each member name met so far, so that a name repeated in
	// every element of an array (a task's "status") is one string, not one
	// allocation per element.
	names map[string]string
}

// value reads the value at d.i. An object is made room for width members
// up front: the element before it in its array had that many, and the
// elements of an array tend to be alike, so its map is not grown and
// copied as it fills. The guess comes only from that sibling, so a body
// cannot make the decoder reserve more than the sibling's own members
// took (one wide object then many empty ones reserves once per wide one).
func (d *decoder) value(width int) any {
	d.i = skipSpace(d.data, d.i)
	switch c := d.data[d.i]; c {
	case '{':
		m := make(map[string]any, width)
		d.i++
		for {
			d.i = skipSpace(d.data, d.i)
			if d.data[d.i] == '}' {
				d.i++
				return m
			}
			if d.data[d.i] == ',' {
				d.i = skipSpace(d.data, d.i+1)
			}
			k := d.name()
			d.i = skipSpace(d.data, d.i) + 1 // the colon
			m[k] = d.value(0)
		}
	case '[':
		a := []any{}
		d.i++
		width := 0 // the last element's members, when it was an object
		for {
			d.i = skipSpace(d.data, d.i)
			if d.data[d.i] == ']' {
				d.i++
				return a
			}
			if d.data[d.i] == ',' {
				d.i++
			}
			e := d.value(width)
			width = 0
			if m, ok := e.(map[string]any); ok {
				width = len(m)
			}
			a = append(a, e)
		}
	case '"':
		return d.string()
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	default: // a number
		start := d.i
		for d.i < len(d.data) && numberByte(d.data[d.i]) {
			d.i++
		}
		return json.Number(d.data[start:d.i])
	}
}

// string reads the string that opens at d.i.
func (d *decoder) string() string {
	start := d.i
	end, _ := skipString(d.data, start)
	d.i = end
	s, _ := unquote(d.data[start:end])
	return s
}

// name reads a member name, the string already met where there is one.
func (d *decoder) name() string {
	start := d.i
	end, _ := skipString(d.data, start)
	d.i = end
	if n, ok := d.names[string(d.data[start:end])]; ok {
		return n
	}
	n, _ := unquote(d.data[start:end])
	if d.names == nil {
		d.names = map[string]string{}
	}
	d.names[string(d.data[start:end])] = n
	return n
}

func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// Finite reports whether every number in v fits a float64, as a decoder
// that reads numbers as float64 requires (1e999 does not). Only literals
// long enough or with an exponent can be out of range, so most numbers
// are not parsed at all.
func Finite(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if !Finite(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !Finite(e) {
				return false
			}
		}
	case json.Number:
		s := string(x)
		if len(s) > 300 || strings.ContainsAny(s, "eE") {
			_, err := strconv.ParseFloat(s, 64)
			return err == nil
		}
	}
	return true
}

// Lazy is a body decoded on first use, at most once: several stages of a
// call may need the value (the validator on a verdict it has not cached,
// the handler where it has no decoded form of its own), and a call whose
// stages all do without it pays nothing. One call's stages run one after
// another, so it is not safe for concurrent use.
type Lazy struct {
	body []byte
	done bool
	v    any
}

// NewLazy wraps body, which must not change afterwards.
func NewLazy(body []byte) *Lazy { return &Lazy{body: body} }

// Value is the body decoded (Decode), nil when it is not one JSON value.
// A nil Lazy has no value.
func (l *Lazy) Value() any {
	if l == nil {
		return nil
	}
	if !l.done {
		l.v, _ = Decode(l.body)
		l.done, l.body = true, nil
	}
	return l.v
}
