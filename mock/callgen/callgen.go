// Package callgen builds a valid call for any operation of a document: path
// parameters, required query and header parameters, and a request body, all
// synthesized from the document's schemas, and finds the ids a server
// holds for calls that must name them (Finder). The fake's tests use it to
// exercise every operation of a document, and bench/startup to make first
// calls that name what the account holds. (The conformance suite builds
// its own calls: the judge shares no code with the fake.)
package callgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// Call is one request, ready to send.
type Call struct {
	Method      string
	Path        string // the document path with parameters filled in, escaped
	Query       url.Values
	Header      http.Header
	Body        []byte
	ContentType string
}

// URL joins base (scheme, host and base path) with the call's path and query.
func (c *Call) URL(base string) string {
	u := strings.TrimSuffix(base, "/") + c.Path
	if len(c.Query) > 0 {
		u += "?" + c.Query.Encode()
	}
	return u
}

// Request builds an *http.Request for base with the given token (none when
// token is empty).
func (c *Call) Request(base, token string) (*http.Request, error) {
	var body *bytes.Reader
	if c.Body != nil {
		body = bytes.NewReader(c.Body)
	}
	var req *http.Request
	var err error
	if body != nil {
		req, err = http.NewRequest(c.Method, c.URL(base), body)
	} else {
		req, err = http.NewRequest(c.Method, c.URL(base), nil)
	}
	if err != nil {
		return nil, err
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	if c.ContentType != "" {
		req.Header.Set("Content-Type", c.ContentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// Option changes how Build fills a call.
type Option func(*options)

type options struct {
	path map[string]string
	refs func(field string) (string, bool)
}

// WithPathValues gives path parameters their values instead of generated
// ones, for calls that must address something that exists.
func WithPathValues(values map[string]string) Option {
	return func(o *options) { o.path = values }
}

// WithReferences gives the fields of a body that name records by id
// (computeEnvId, labelIds) the id resolve returns for the field's name,
// for calls that must name records that exist: the fake, like the
// service, refuses a write that names nothing. A field resolve has no id
// for keeps its generated value. A number where the generated value was a
// number stays one.
func WithReferences(resolve func(field string) (id string, ok bool)) Option {
	return func(o *options) { o.refs = resolve }
}

// Build returns a call for op that its document accepts. key makes the
// generated values deterministic (the same key gives the same call).
func Build(op *spec.Operation, gen *synth.Generator, key string, opts ...Option) (*Call, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	c := &Call{Method: op.Method, Query: url.Values{}, Header: http.Header{}}
	path := op.Path
	for _, p := range parameters(op) {
		schema := paramSchema(p)
		switch p.In {
		case "path":
			v, given := o.path[p.Name]
			if !given {
				v = pathValue(schema, gen, key+"/"+p.Name)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
		case "query":
			if p.Required == nil || !*p.Required {
				continue
			}
			for _, v := range scalarValues(gen.Value(schema, key+"?"+p.Name, synth.Request)) {
				c.Query.Add(p.Name, v)
			}
		case "header":
			if p.Required == nil || !*p.Required || strings.EqualFold(p.Name, "Accept-Version") {
				continue
			}
			vs := scalarValues(gen.Value(schema, key+"!"+p.Name, synth.Request))
			c.Header.Set(p.Name, strings.Join(vs, ","))
		}
	}
	if strings.Contains(path, "{") {
		return nil, fmt.Errorf("%s %s: path parameters without a declaration", op.Method, op.Path)
	}
	c.Path = path
	if err := c.body(op, gen, key, o.refs); err != nil {
		return nil, err
	}
	return c, nil
}

// parameters merges path-level and operation-level parameters; an
// operation's own declaration wins over the path's for the same name.
func parameters(op *spec.Operation) []*v3.Parameter {
	seen := map[string]bool{}
	var out []*v3.Parameter
	for _, p := range op.Op.Parameters {
		if p != nil {
			seen[p.In+":"+p.Name] = true
			out = append(out, p)
		}
	}
	for _, p := range op.PathItem.Parameters {
		if p != nil && !seen[p.In+":"+p.Name] {
			out = append(out, p)
		}
	}
	return out
}

func paramSchema(p *v3.Parameter) *base.Schema {
	if p.Schema != nil {
		return p.Schema.Schema()
	}
	if p.Content != nil {
		for m := p.Content.First(); m != nil; m = m.Next() {
			if m.Value().Schema != nil {
				return m.Value().Schema.Schema()
			}
		}
	}
	return nil
}

// pathValue is a value for a path parameter that routes unambiguously: a
// plain string parameter gets a short id rather than free text that might
// hold a slash.
func pathValue(schema *base.Schema, gen *synth.Generator, key string) string {
	v := gen.Value(schema, key, synth.Request)
	if s, ok := v.(string); ok {
		if schema != nil && (schema.Pattern != "" || schema.Format != "" || len(schema.Enum) > 0) {
			return s
		}
		if s == "" || strings.ContainsAny(s, "/ ?#%") {
			return synth.ID(gen.Rand(key))
		}
		return s
	}
	vs := scalarValues(v)
	if len(vs) == 0 {
		return "1"
	}
	return vs[0]
}

// scalarValues writes a generated value the way a form-style parameter
// carries it: one string per array element.
func scalarValues(v any) []string {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, scalarValues(e)...)
		}
		return out
	case string:
		return []string{t}
	case bool:
		return []string{strconv.FormatBool(t)}
	case json.Number:
		return []string{t.String()}
	case int64:
		return []string{strconv.FormatInt(t, 10)}
	case int:
		return []string{strconv.Itoa(t)}
	case float64:
		return []string{strconv.FormatFloat(t, 'f', -1, 64)}
	default:
		b, _ := json.Marshal(t)
		return []string{string(b)}
	}
}

func (c *Call) body(op *spec.Operation, gen *synth.Generator, key string, refs func(string) (string, bool)) error {
	rb := op.Op.RequestBody
	if rb == nil || rb.Content == nil || rb.Content.Len() == 0 {
		return nil
	}
	var mediaType string
	var media *v3.MediaType
	for m := rb.Content.First(); m != nil; m = m.Next() {
		if media == nil || spec.IsJSON(m.Key()) && !spec.IsJSON(mediaType) {
			mediaType, media = m.Key(), m.Value()
		}
	}
	var schema *base.Schema
	if media.Schema != nil {
		schema = media.Schema.Schema()
	}
	v := gen.Value(schema, key+"#body", synth.Request)
	if refs != nil {
		nameHeld(v, refs, 0)
	}
	switch {
	case spec.IsJSON(mediaType):
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		c.Body, c.ContentType = b, mediaType
	case strings.HasPrefix(mediaType, "multipart/form-data"):
		return c.multipart(v)
	default:
		c.Body, c.ContentType = []byte(fmt.Sprint(v)), mediaType
	}
	return nil
}

// isReference reports a field that names records by id, by the service's
// naming: computeEnvId, labelIds.
func isReference(field string) bool {
	return strings.HasSuffix(field, "Id") || strings.HasSuffix(field, "Ids")
}

// NamesRecords reports a call whose JSON body names records by id (a
// field isReference accepts, with a value, a few objects deep): a fake
// refuses it unless those records exist.
func (c *Call) NamesRecords() bool {
	var v any
	if json.Unmarshal(c.Body, &v) != nil {
		return false
	}
	var names func(v any, depth int) bool
	names = func(v any, depth int) bool {
		m, ok := v.(map[string]any)
		if !ok || depth > 3 {
			return false
		}
		for k, val := range m {
			if val != nil && isReference(k) || names(val, depth+1) {
				return true
			}
		}
		return false
	}
	return names(v, 0)
}

// nameHeld sets the reference fields of a generated value (see
// WithReferences), a few objects deep.
func nameHeld(v any, refs func(string) (string, bool), depth int) {
	m, ok := v.(map[string]any)
	if !ok || depth > 3 {
		return
	}
	for k, val := range m {
		if _, ok := val.(map[string]any); ok {
			nameHeld(val, refs, depth+1)
			continue
		}
		if !isReference(k) {
			continue
		}
		if l, many := val.([]any); many && len(l) == 0 {
			continue // names nothing
		}
		id, ok := refs(k)
		if !ok {
			continue
		}
		var one any = id
		sample := val
		if l, many := val.([]any); many && len(l) > 0 {
			sample = l[0]
		}
		switch sample.(type) {
		case float64, int, int64, json.Number:
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				one = n
			}
		}
		if _, many := val.([]any); many {
			m[k] = []any{one}
		} else {
			m[k] = one
		}
	}
}

// multipart encodes a generated object as form fields, one part a property.
func (c *Call) multipart(v any) error {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if obj, ok := v.(map[string]any); ok {
		for name, val := range obj {
			for _, s := range scalarValues(val) {
				if err := w.WriteField(name, s); err != nil {
					return err
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	c.Body, c.ContentType = buf.Bytes(), w.FormDataContentType()
	return nil
}
