package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"sort"
	"strings"
)

// Call is one call a scenario's steps made, kept in the result as a
// fidelity report compares it: what was asked and what kind of answer came
// back, without the values any two servers hold differently (ids, names,
// times).
type Call struct {
	Method string `json:"method"`
	// Path is the path and query after the base URL, as sent.
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Shape is the body's structure: "empty", "text/html", or its JSON
	// with every value replaced by its type, e.g. {"message":"string"}.
	Shape string `json:"shape"`
	// Headers names the headers of the answer that a client acts on and
	// the document leaves open: Retry-After and X-RateLimit-*.
	Headers []string `json:"headers,omitempty"`
	// Fields are the JSON body's values by JSON Pointer ("/workflow/status":
	// "\"RUNNING\""), each as JSON text cut at maxFieldText; of an array only
	// its first element, an empty object or array as "{}" or "[]" (and one
	// below maxFieldDepth as "{...}" or "[...]"). A
	// fidelity report compares them to name the field where two servers
	// differ. Bounded: at most maxFields, and nothing below maxFieldDepth.
	Fields map[string]string `json:"fields,omitempty"`
}

// Observation is the part of a call two servers are expected to share.
func (c Call) Observation() string {
	s := fmt.Sprintf("%s -> %d %s", c.Method, c.Status, c.Shape)
	if len(c.Headers) > 0 {
		s += " [" + strings.Join(c.Headers, ", ") + "]"
	}
	return s
}

// observedHeaders are the headers a Call names when an answer has them.
var observedHeaders = []string{"Retry-After", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"}

func observe(method, path string, a *answer) Call {
	c := Call{Method: method, Path: path, Status: a.status, Shape: bodyShape(a.header.Get("Content-Type"), a.body), Fields: bodyFields(a.body)}
	for _, h := range observedHeaders {
		if _, ok := a.header[h]; ok {
			c.Headers = append(c.Headers, h)
		}
	}
	return c
}

// maxShape bounds a shape's text; a list's shape is its first item's.
const maxShape = 240

// bodyShape describes a body by its structure.
func bodyShape(contentType string, body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return "empty"
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil || mt == "" {
			mt = "not JSON"
		}
		return mt
	}
	var b strings.Builder
	writeShape(&b, v, 0)
	s := b.String()
	if len(s) > maxShape {
		s = s[:maxShape] + "..."
	}
	return s
}

func writeShape(b *strings.Builder, v any, depth int) {
	switch t := v.(type) {
	case map[string]any:
		if depth >= 3 {
			b.WriteString("{...}")
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "%q:", k)
			writeShape(b, t[k], depth+1)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		if len(t) > 0 {
			writeShape(b, t[0], depth+1)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(`"string"`)
	case json.Number:
		b.WriteString(`"number"`)
	case bool:
		b.WriteString(`"boolean"`)
	case nil:
		b.WriteString("null")
	}
}

// exercised lists the operations a scenario's calls addressed, as
// "METHOD template", sorted.
func (d *Document) exercised(calls []Call) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range calls {
		if op := d.find(c.Method, c.Path); op != nil && !seen[op.ID] {
			seen[op.ID] = true
			out = append(out, op.Method+" "+op.Path)
		}
	}
	sort.Strings(out)
	return out
}

// Bounds of Call.Fields.
const (
	maxFields     = 300
	maxFieldDepth = 8
	maxFieldText  = 80
)

// bodyFields flattens a JSON body into Call.Fields; nil for a body that is
// not JSON or is empty.
func bodyFields(body []byte) map[string]string {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	out := map[string]string{}
	flatten(out, "", v, 0)
	return out
}

func flatten(out map[string]string, ptr string, v any, depth int) {
	if len(out) >= maxFields {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			out[ptr] = "{}"
			return
		}
		if depth >= maxFieldDepth {
			out[ptr] = "{...}"
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(out, ptr+"/"+pointerToken(k), t[k], depth+1)
		}
	case []any:
		if len(t) == 0 {
			out[ptr] = "[]"
			return
		}
		if depth >= maxFieldDepth {
			out[ptr] = "[...]"
			return
		}
		flatten(out, ptr+"/0", t[0], depth+1)
	default:
		b, _ := json.Marshal(t)
		s := string(b)
		if len(s) > maxFieldText {
			s = s[:maxFieldText] + "..."
		}
		out[ptr] = s
	}
}

// pointerToken escapes a key for a JSON Pointer (RFC 6901).
func pointerToken(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// FieldKind is what a Fields value is: "null", "string", "number",
// "boolean", "object" or "array" (the last two only when empty, or below
// the depth kept).
func FieldKind(text string) string {
	switch {
	case text == "null":
		return "null"
	case strings.HasPrefix(text, "{"):
		return "object"
	case strings.HasPrefix(text, "["):
		return "array"
	case text == "true" || text == "false":
		return "boolean"
	case strings.HasPrefix(text, `"`):
		return "string"
	}
	return "number"
}
