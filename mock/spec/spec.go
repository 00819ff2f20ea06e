// Package spec loads an OpenAPI 3.x document and indexes what the fake needs
// from it: one entry per operation, in the order routes must be tried, with
// the answer each operation gives on success.
//
// Loading is kept cheap on purpose. Building libopenapi's model of the
// published schema takes about a tenth of a second; anything heavier (schema
// compilation for validation, example checks) happens lazily, per operation,
// on the first request that needs it, so the fake is ready in well under the
// 300 ms a developer will tolerate.
package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
	"github.com/wmsmock/wmsmock/internal/stopwatch"
)

// Document is a loaded, indexed OpenAPI document.
type Document struct {
	// Title and Version come from the document's info object.
	Title, Version string
	// OpenAPI is the document's openapi field, e.g. "3.0.1".
	OpenAPI string
	// Model is libopenapi's high-level model; validators are built from it.
	Model *v3.Document
	// Operations lists every operation in route order: for each method,
	// templates with literal segments come before those with parameters in
	// the same position.
	Operations []*Operation

	raw []byte
	// routes finds operations by method and path; byRoute maps its
	// template indexes to operations.
	routes  oasdoc.Router
	byRoute []*Operation
	// modelMu serializes first uses of the model (see Guard), unless a
	// detached document (Detached) was given its schemas' guard.
	modelMu sync.Mutex
	guard   func(func())
	// schemaCache holds the compiled schemas (schema.go).
	schemaCache

	// LoadTimes is how long loading took, step by step: "read" (LoadFile
	// only), "parse", "model" and "index". The server adds it to its own
	// start-up breakdown.
	LoadTimes []stopwatch.Lap

	renderOnce sync.Once
	yamlBytes  []byte
	jsonBytes  []byte
	renderErr  error
}

// Operation is one method on one path template.
type Operation struct {
	Method   string // upper case, e.g. "GET"
	Path     string // the template as written in the document, e.g. "/workflow/{workflowId}"
	ID       string // operationId, or "METHOD path" when the document has none
	PathItem *v3.PathItem
	Op       *v3.Operation
	// Secured reports whether the document declares a security requirement
	// for the operation. The fake asks for a token either way (CONTRACT A1)
	// unless the profile lets calls to unsecured operations through, which
	// is what the pipeline reads this for.
	Secured bool
	// Success is the answer the operation gives when the request is valid:
	// its lowest declared 2xx response.
	Success Response
	// Paging holds the operation's page-size and offset parameters, when it
	// has them.
	Paging *Paging

	doc *Document
}

// SchemaOf is the compiled model (Document.SchemaOf) of a schema of the
// operation's document: its success answer's, its request body's or a
// parameter's.
func (op *Operation) SchemaOf(p *base.SchemaProxy) *Schema {
	if op == nil || op.doc == nil {
		return nil
	}
	return op.doc.SchemaOf(p)
}

// Response describes one declared response.
type Response struct {
	Status    int
	MediaType string            // "" when the response has no body
	Schema    *base.SchemaProxy // nil when the media type declares none
	// Example is the JSON encoding of the media type's example (or its first
	// named example), nil when the document gives none. It is not trusted
	// blindly: the server checks it against Schema before serving it.
	Example []byte
}

// Paging names an operation's paging query parameters and its defaults.
type Paging struct {
	MaxParam, OffsetParam string
	DefaultMax            int // 0 when the document states none
}

// LoadFile reads and loads the document at path.
func LoadFile(path string) (*Document, error) {
	w := stopwatch.New()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading OpenAPI document: %w", err)
	}
	w.Lap("read")
	d, err := loadTimed(b, w)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Load parses an OpenAPI 3.0 or 3.1 document, in YAML or JSON (see
// oasdoc.Read for what reading involves).
func Load(b []byte) (*Document, error) { return loadTimed(b, stopwatch.New()) }

func loadTimed(b []byte, w *stopwatch.Watch) (*Document, error) {
	model, version, err := oasdoc.ReadTimed(b, w)
	if err != nil {
		return nil, err
	}
	d := &Document{
		Model:   model,
		OpenAPI: version,
		raw:     b,
	}
	if model.Info != nil {
		d.Title, d.Version = model.Info.Title, model.Info.Version
	}
	if err := d.index(); err != nil {
		return nil, err
	}
	w.Lap("index")
	d.LoadTimes = w.Laps()
	return d, nil
}

func (d *Document) index() error {
	if d.Model.Paths == nil || d.Model.Paths.PathItems == nil {
		return errors.New("the document declares no paths")
	}
	globalSecured := len(d.Model.Security) > 0
	for p := d.Model.Paths.PathItems.First(); p != nil; p = p.Next() {
		path, item := p.Key(), p.Value()
		if !strings.HasPrefix(path, "/") {
			return fmt.Errorf("path %q does not start with '/'", path)
		}
		for o := item.GetOperations().First(); o != nil; o = o.Next() {
			method := strings.ToUpper(o.Key())
			op := o.Value()
			entry := &Operation{Method: method, Path: path, PathItem: item, Op: op, ID: op.OperationId, doc: d}
			if entry.ID == "" {
				entry.ID = method + " " + path
			}
			entry.Secured = globalSecured
			if op.Security != nil {
				entry.Secured = false
				for _, req := range op.Security {
					if req != nil && req.Requirements != nil && req.Requirements.Len() > 0 {
						entry.Secured = true
					}
				}
			}
			entry.Success = successResponse(op)
			entry.Paging = pagingOf(item, op)
			d.Operations = append(d.Operations, entry)
		}
	}
	if len(d.Operations) == 0 {
		return errors.New("the document declares no operations")
	}
	sort.SliceStable(d.Operations, func(i, j int) bool {
		return oasdoc.RouteLess(d.Operations[i].Path, d.Operations[j].Path)
	})
	for _, op := range d.Operations {
		// Two templates that differ only in their parameters' names
		// ("/a/{x}" and "/a/{y}") cannot be told apart by a call; the first
		// in route order answers it.
		if _, err := d.routes.Add(op.Method, op.Path); err == nil {
			d.byRoute = append(d.byRoute, op)
		}
	}
	return nil
}

// Route finds the operation a call addresses, from its method and its path
// below the base path, escaped as it arrived ("%2F" inside a segment never
// separates). Parameter values come back decoded; a value that does not
// decode names nothing, so the call matches no operation.
func (d *Document) Route(method, escapedPath string) (*Operation, map[string]string, bool) {
	i, vals, ok := d.routes.Find(method, escapedPath)
	if !ok {
		return nil, nil, false
	}
	var vars map[string]string
	if len(vals) > 0 {
		names := d.routes.Params(i)
		vars = make(map[string]string, len(vals))
		for j, v := range vals {
			if strings.Contains(v, "%") {
				u, err := url.PathUnescape(v)
				if err != nil {
					return nil, nil, false
				}
				v = u
			}
			vars[names[j]] = v
		}
	}
	return d.byRoute[i], vars, true
}

// HasPath reports whether some operation's template matches the path
// (escaped, below the base path) with any method: for a call Route does
// not find, whether it named a method the path lacks or a path the
// document lacks.
func (d *Document) HasPath(escapedPath string) bool { return d.routes.Knows(escapedPath) }

// successResponse picks the lowest declared 2xx response, the answer of a
// call that went well. Documents that declare none get 200 with no body.
func successResponse(op *v3.Operation) Response {
	best := Response{Status: 0}
	if op.Responses != nil && op.Responses.Codes != nil {
		for c := op.Responses.Codes.First(); c != nil; c = c.Next() {
			code, err := strconv.Atoi(c.Key())
			if err != nil {
				if strings.EqualFold(c.Key(), "2XX") && best.Status == 0 {
					best = fromResponse(200, c.Value())
				}
				continue
			}
			if code >= 200 && code < 300 && (best.Status == 0 || code < best.Status) {
				best = fromResponse(code, c.Value())
			}
		}
	}
	if best.Status == 0 {
		if op.Responses != nil && op.Responses.Default != nil {
			return fromResponse(200, op.Responses.Default)
		}
		best.Status = 200
	}
	return best
}

func fromResponse(status int, r *v3.Response) Response {
	out := Response{Status: status}
	if status == 204 || status == 205 || r == nil || r.Content == nil || r.Content.Len() == 0 {
		return out
	}
	mediaType, media := preferredMedia(r)
	out.MediaType = mediaType
	out.Schema = media.Schema
	out.Example = exampleOf(media)
	return out
}

// preferredMedia prefers JSON, as clients of this service expect, and
// otherwise takes the first media type the document lists.
func preferredMedia(r *v3.Response) (string, *v3.MediaType) {
	var firstKey string
	var first *v3.MediaType
	for m := r.Content.First(); m != nil; m = m.Next() {
		if first == nil {
			firstKey, first = m.Key(), m.Value()
		}
		if IsJSON(m.Key()) {
			return m.Key(), m.Value()
		}
	}
	return firstKey, first
}

// IsJSON reports whether a media type carries JSON.
// It allocates nothing: the fake asks it on every call with a body.
func IsJSON(mediaType string) bool {
	mt, _, _ := strings.Cut(mediaType, ";")
	mt = strings.TrimSpace(mt)
	return strings.EqualFold(mt, "application/json") || len(mt) >= 5 && strings.EqualFold(mt[len(mt)-5:], "+json") || mt == "*/*"
}

func exampleOf(m *v3.MediaType) []byte {
	if m == nil {
		return nil
	}
	node := m.Example
	if node == nil && m.Examples != nil {
		for e := m.Examples.First(); e != nil; e = e.Next() {
			if e.Value() != nil && e.Value().Value != nil {
				node = e.Value().Value
				break
			}
		}
	}
	return encodeExample(node)
}

// SchemaExample is the JSON encoding of a schema's own example when it is
// an object or an array (a whole answer, written once on the component
// rather than on each media type), or nil. Scalar examples are left to the
// generator, which uses them for single values.
func SchemaExample(s *base.Schema) []byte {
	if s == nil || s.Example == nil || s.Example.Kind != yaml.MappingNode && s.Example.Kind != yaml.SequenceNode {
		return nil
	}
	return encodeExample(s.Example)
}

func encodeExample(node *yaml.Node) []byte {
	if node == nil {
		return nil
	}
	var v any
	if err := textTimestamps(node, map[*yaml.Node]*yaml.Node{}).Decode(&v); err != nil {
		return nil
	}
	b, err := json.Marshal(JSONValue(v))
	if err != nil {
		return nil
	}
	return b
}

// pagingOf finds the page-size and offset query parameters (CONTRACT P1: on
// this service they are called max and offset).
func pagingOf(item *v3.PathItem, op *v3.Operation) *Paging {
	var p Paging
	params := append(append([]*v3.Parameter{}, item.Parameters...), op.Parameters...)
	for _, param := range params {
		if param == nil || param.In != "query" {
			continue
		}
		switch param.Name {
		case "max":
			p.MaxParam = param.Name
			if param.Schema != nil {
				if s := param.Schema.Schema(); s != nil && s.Default != nil {
					_ = s.Default.Decode(&p.DefaultMax)
				}
			}
		case "offset":
			p.OffsetParam = param.Name
		}
	}
	if p.MaxParam == "" && p.OffsetParam == "" {
		return nil
	}
	return &p
}

// YAML returns the document as YAML: the bytes it was loaded from when they
// were YAML, a faithful conversion otherwise.
func (d *Document) YAML() ([]byte, error) {
	d.render()
	return d.yamlBytes, d.renderErr
}

// JSON returns the document as JSON.
func (d *Document) JSON() ([]byte, error) {
	d.render()
	return d.jsonBytes, d.renderErr
}

// render converts the document between YAML and JSON once, on first demand,
// so start-up does not pay for a conversion nobody may ask for.
func (d *Document) render() {
	d.renderOnce.Do(func() {
		if json.Valid(d.raw) { // checked here, not at start-up: a full scan
			d.jsonBytes = d.raw
			var node yaml.Node
			if d.renderErr = yaml.Unmarshal(d.raw, &node); d.renderErr == nil {
				d.yamlBytes, d.renderErr = yaml.Marshal(&node)
			}
			return
		}
		d.yamlBytes = d.raw
		var node yaml.Node
		var v any
		if d.renderErr = yaml.Unmarshal(d.raw, &node); d.renderErr != nil {
			return
		}
		if d.renderErr = textTimestamps(&node, map[*yaml.Node]*yaml.Node{}).Decode(&v); d.renderErr == nil {
			d.jsonBytes, d.renderErr = json.Marshal(JSONValue(v))
		}
	})
}

// textTimestamps returns a copy of n in which plain scalars that YAML reads
// as timestamps (an unquoted 2024-05-01) are strings again: decoded as
// time.Time they would reach JSON as "2024-05-01T00:00:00Z", which is not
// what the document says. done maps nodes already copied, so aliases are
// copied once.
func textTimestamps(n *yaml.Node, done map[*yaml.Node]*yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if c, ok := done[n]; ok {
		return c
	}
	c := *n
	done[n] = &c
	if c.Kind == yaml.ScalarNode && c.ShortTag() == "!!timestamp" {
		c.Tag = "!!str"
	}
	c.Alias = textTimestamps(n.Alias, done)
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, e := range n.Content {
			c.Content[i] = textTimestamps(e, done)
		}
	}
	return &c
}
