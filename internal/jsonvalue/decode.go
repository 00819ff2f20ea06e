package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Decode reads a body that holds exactly one JSON value, keeping numbers
// as written (json.Number), so that a value read once can serve every
// stage of a call: the validator judges it and the handler stores it. ok
// is false for anything that is not one JSON value; the caller then
// leaves the body to the stage that explains what is wrong with it.
func Decode(body []byte) (v any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return v, true
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
