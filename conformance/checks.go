package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	messages "github.com/cucumber/messages/go/v21"
)

// errorMessage is the Bad Request message shape (CONTRACT E1): any text,
// then " - Error ID: " and a 22-character base62 identifier.
var errorMessage = regexp.MustCompile(`^(.+) - Error ID: ([0-9A-Za-z]{22})$`)

// errorID checks that an answer is a JSON object with exactly one string
// field, message, ending with an Error ID, and returns the ID.
func errorID(a *answer) (string, error) {
	msg, err := message(a)
	if err != nil {
		return "", err
	}
	sub := errorMessage.FindStringSubmatch(msg)
	if sub == nil {
		return "", fmt.Errorf("message %q does not end with \" - Error ID: <22 base62 characters>\"", msg)
	}
	return sub[2], nil
}

// message reads the service's error body, a JSON object whose one field is
// the string message.
func message(a *answer) (string, error) {
	if mt, _, err := mime.ParseMediaType(a.header.Get("Content-Type")); err != nil || !isJSONMedia(mt) {
		return "", fmt.Errorf("Content-Type is %q, want application/json", a.header.Get("Content-Type"))
	}
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		return "", fmt.Errorf("the body is not a JSON object: %v: %s", err, excerpt(a.body))
	}
	if len(m) != 1 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return "", fmt.Errorf("the body must have exactly one field, message; it has %v", keys)
	}
	msg, ok := m["message"].(string)
	if !ok {
		return "", fmt.Errorf("the body has no string field message: %s", excerpt(a.body))
	}
	return msg, nil
}

func isJSONMedia(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// timestampLike picks out strings that are meant as a date and time, so
// that their form can be checked whatever field they are in.
var timestampLike = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}`)

// contractTimestamp is the one form the contract allows (T2).
var contractTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)

// timestamps walks a JSON document and returns each timestamp-like string
// with its path.
func timestamps(body []byte) ([][2]string, error) {
	v, err := decodeJSON(body)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(joinPath(path, k), t[k])
			}
		case []any:
			for i, e := range t {
				walk(joinPath(path, strconv.Itoa(i)), e)
			}
		case string:
			if timestampLike.MatchString(t) {
				out = append(out, [2]string{path, t})
			}
		}
	}
	walk("", v)
	return out, nil
}

// badTimestamp says what is wrong with a timestamp, or "" when it is in
// the contract's form and a real instant.
func badTimestamp(s string) string {
	if !contractTimestamp.MatchString(s) {
		return "not in the form YYYY-MM-DDTHH:MM:SSZ"
	}
	if _, err := time.Parse("2006-01-02T15:04:05Z", s); err != nil {
		return "not a valid date and time"
	}
	return ""
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// decodeJSON decodes keeping numbers exact, since identifiers are int64.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the body is not JSON: %v: %s", err, excerpt(b))
	}
	return v, nil
}

// field returns the value at a dotted path such as "workflows.0.workflow.id".
func field(body []byte, path string) (any, error) {
	v, err := decodeJSON(body)
	if err != nil {
		return nil, err
	}
	cur := v
	for _, part := range strings.Split(path, ".") {
		switch t := cur.(type) {
		case map[string]any:
			next, ok := t[part]
			if !ok {
				return nil, fmt.Errorf("the body has no field %q (at %q)", path, part)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(t) {
				return nil, fmt.Errorf("the body has no field %q: %q is not an index of a list of %d", path, part, len(t))
			}
			cur = t[i]
		default:
			return nil, fmt.Errorf("the body has no field %q: %q is inside a %s", path, part, kind(cur))
		}
	}
	return cur, nil
}

// scalar writes a JSON value the way a scenario writes it: strings without
// quotes, numbers and booleans as in JSON, null as "null".
func scalar(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// sameJSON reports whether two bodies hold the same JSON value (or, when
// either is not JSON, the same bytes).
func sameJSON(a, b []byte) bool {
	va, errA := decodeJSON(a)
	vb, errB := decodeJSON(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

func pickleTags(tags []*messages.PickleTag) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		out = append(out, t.Name)
	}
	return out
}
