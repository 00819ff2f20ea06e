package jsonvalue

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The functions below read and write the members of a JSON object in its
// encoded form, for records that are changed a few members at a time
// (a reported task is merged with each report of it): decoding the whole
// record into maps to change some members and encoding it all again
// costs far more than copying the members that stay as they are.

// errNotObject is what Members says of anything but one JSON object.
var errNotObject = errors.New("jsonvalue: not one JSON object")

// Members calls fn with each member of the JSON object data, in order: its
// name (decoded; valid only during the call), and its value as encoded.
// It stops early when fn returns false, and fails on anything but one
// well-formed object (with nothing but white space around it).
func Members(data []byte, fn func(name, raw []byte) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		if skipSpace(data, i+1) != len(data) {
			return errNotObject
		}
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errNotObject
		}
		end, ok := skipString(data, i)
		if !ok {
			return errNotObject
		}
		name, ok := unquoteBytes(data[i:end])
		if !ok {
			return errNotObject
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errNotObject
		}
		start := skipSpace(data, i+1)
		stop, ok := skipValue(data, start, 0)
		if !ok {
			return errNotObject
		}
		if !fn(name, data[start:stop]) {
			return nil
		}
		i = skipSpace(data, stop)
		if i >= len(data) {
			return errNotObject
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			if skipSpace(data, i+1) != len(data) {
				return errNotObject
			}
			return nil
		default:
			return errNotObject
		}
	}
}

// Scalar decodes an encoded value as Decode would: strings, numbers (as
// json.Number), booleans and null at once, objects and arrays through
// encoding/json.
func Scalar(raw []byte) (any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '"':
		return unquote(raw)
	case c == 't' && string(raw) == "true":
		return true, true
	case c == 'f' && string(raw) == "false":
		return false, true
	case c == 'n' && string(raw) == "null":
		return nil, true
	case c == '-' || c >= '0' && c <= '9':
		if !IsNumber(raw) {
			return nil, false
		}
		return json.Number(raw), true
	}
	return Decode(raw)
}

// MergeObject encodes the object old (encoded, or empty for none) with
// the members of set put over its own: old's other members as they were
// encoded, in their order, then set's in the order of their names.
func MergeObject(old []byte, set map[string]any) ([]byte, error) {
	out := make([]byte, 0, len(old)+64*len(set))
	out = append(out, '{')
	if len(old) > 0 {
		err := Members(old, func(name, raw []byte) bool {
			if _, replaced := set[string(name)]; !replaced {
				out = appendName(out, name)
				out = append(out, raw...)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		out = appendName(out, k)
		var err error
		if out, err = AppendValue(out, set[k]); err != nil {
			return nil, err
		}
	}
	return append(out, '}'), nil
}

// appendName writes a member's name and colon, after a comma unless it
// is the object's first.
func appendName[T string | []byte](out []byte, name T) []byte {
	if out[len(out)-1] != '{' {
		out = append(out, ',')
	}
	out = appendString(out, string(name))
	return append(out, ':')
}

// AppendValue encodes v as encoding/json does, writing the common kinds
// (text without characters to escape, numbers, booleans, null) directly.
func AppendValue(out []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(out, "null"...), nil
	case bool:
		return strconv.AppendBool(out, x), nil
	case string:
		return appendString(out, x), nil
	case json.Number:
		if IsNumber([]byte(x)) {
			return append(out, x...), nil
		}
	case int64:
		return strconv.AppendInt(out, x, 10), nil
	case int:
		return strconv.AppendInt(out, int64(x), 10), nil
	}
	b, err := json.Marshal(v)
	return append(out, b...), err
}

// appendString writes s as a JSON string: directly when it has nothing
// encoding/json would escape (its HTML characters included), through it
// otherwise.
func appendString(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(out, b...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}

// IsNumber reports whether b is one number as JSON writes it (RFC 8259
// section 6), with nothing around it: not " 5", "0x1F", "5a", "NaN" or
// ".5".
func IsNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i == len(b)
}

// unquoteBytes is unquote without a copy when there are no escapes: the
// result is then part of raw.
func unquoteBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
			s, ok := unquote(raw)
			return []byte(s), ok
		}
	}
	return inner, true
}

// unquote decodes an encoded string, directly when it has no escapes.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	plain, ascii := true, true
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 {
			plain = false
			break
		}
		ascii = ascii && c < 0x80
	}
	// Text without escapes is itself, where it is valid UTF-8; encoding/json
	// replaces each invalid byte with U+FFFD.
	if plain && (ascii || utf8.Valid(inner)) {
		return string(inner), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at i.
func skipString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// maxDepth bounds the nesting skipValue follows.
const maxDepth = 1000

// skipValue returns the index just past the value that starts at i. It
// checks the structure (strings, brackets, literals and numbers as
// runs of their characters), not every rule of JSON: Scalar and
// encoding/json judge the values that are read.
func skipValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) || depth > maxDepth {
		return 0, false
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		j := skipSpace(data, i+1)
		if j < len(data) && data[j] == closer {
			return j + 1, true
		}
		for {
			if c == '{' {
				if j >= len(data) || data[j] != '"' {
					return 0, false
				}
				end, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = skipSpace(data, end)
				if j >= len(data) || data[j] != ':' {
					return 0, false
				}
				j = skipSpace(data, j+1)
			}
			end, ok := skipValue(data, j, depth+1)
			if !ok {
				return 0, false
			}
			j = skipSpace(data, end)
			if j >= len(data) {
				return 0, false
			}
			if data[j] == closer {
				return j + 1, true
			}
			if data[j] != ',' {
				return 0, false
			}
			j = skipSpace(data, j+1)
		}
	default:
		j := i
		for j < len(data) {
			c := data[j]
			if c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				j++
				continue
			}
			break
		}
		return j, j > i
	}
}

// CompactMembers calls fn with each member of the object data, its name
// as written (quotes and escapes included) and its value's text, and
// reports true, when data is one object with nothing between its own
// tokens: no space around its braces, names, colons and commas (a
// value's inside is taken as it is). Writing "{", the members as given
// joined by ":" and ",", and "}" then gives data back byte for byte. For
// anything else (another value, spaces, bad structure) it reports false,
// having perhaps called fn for some members first.
func CompactMembers(data []byte, fn func(name, value []byte)) bool {
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return false
	}
	if len(data) == 2 {
		return true
	}
	i := 1
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		end, ok := skipString(data, i)
		if !ok || end >= len(data) || data[end] != ':' {
			return false
		}
		stop, ok := skipValue(data, end+1, 0)
		if !ok || stop >= len(data) || stop == end+1 {
			return false
		}
		fn(data[i:end], data[end+1:stop])
		switch data[stop] {
		case ',':
			i = stop + 1
		case '}':
			return stop == len(data)-1
		default:
			return false
		}
	}
}
