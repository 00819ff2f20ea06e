package conformance

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dlclark/regexp2"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// Document is the OpenAPI document a run judges answers by. It is the
// judge's own: a model read from the document's bytes (never the model a
// fake serves from), its operations, and a validator the library builds
// from it, so that nothing the fake computes takes part in judging it.
type Document struct {
	// Title and Version come from the document's info object.
	Title, Version string
	// Operations are every operation, in route order: compared segment by
	// segment, a literal segment before a parameter.
	Operations []*Operation

	model *v3.Document
	// routes finds the operation a call addressed, with the reading rules'
	// router (the one the fake routes with); byRoute maps its indexes.
	routes  oasdoc.Router
	byRoute []*Operation
	// mu serializes validation: libopenapi writes to its model while it
	// renders a schema for the first time.
	mu sync.Mutex
	v  validator.Validator
}

// Operation is one operation of a Document.
type Operation struct {
	Method string // upper case
	Path   string // the template, e.g. /workflow/{workflowId}
	ID     string // operationId, or "METHOD path"
	// Success is the lowest 2xx status the document declares (200 when it
	// declares none).
	Success  int
	pathItem *v3.PathItem
	op       *v3.Operation
}

// LoadDocument reads a document from its bytes (YAML or JSON).
func LoadDocument(b []byte) (*Document, error) {
	model, _, err := oasdoc.Read(b)
	if err != nil {
		return nil, err
	}
	d := &Document{model: model}
	if model.Info != nil {
		d.Title, d.Version = model.Info.Title, model.Info.Version
	}
	if model.Paths == nil || model.Paths.PathItems == nil {
		return nil, fmt.Errorf("the document declares no paths")
	}
	for p := model.Paths.PathItems.First(); p != nil; p = p.Next() {
		for o := p.Value().GetOperations().First(); o != nil; o = o.Next() {
			op := &Operation{Method: strings.ToUpper(o.Key()), Path: p.Key(), ID: o.Value().OperationId,
				Success: successStatus(o.Value()), pathItem: p.Value(), op: o.Value()}
			if op.ID == "" {
				op.ID = op.Method + " " + op.Path
			}
			d.Operations = append(d.Operations, op)
		}
	}
	sort.SliceStable(d.Operations, func(i, j int) bool { return oasdoc.RouteLess(d.Operations[i].Path, d.Operations[j].Path) })
	for _, op := range d.Operations {
		if _, err := d.routes.Add(op.Method, op.Path); err == nil {
			d.byRoute = append(d.byRoute, op)
		}
	}
	d.v = validator.NewValidatorFromV3Model(model, config.WithRegexEngine(ecmaRegexp), config.WithoutSecurityValidation())
	return d, nil
}

// LoadDocumentFile reads a document from a file.
func LoadDocumentFile(path string) (*Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := LoadDocument(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

func successStatus(op *v3.Operation) int {
	best := 0
	if op.Responses != nil && op.Responses.Codes != nil {
		for c := op.Responses.Codes.First(); c != nil; c = c.Next() {
			if code, err := strconv.Atoi(c.Key()); err == nil && code >= 200 && code < 300 && (best == 0 || code < best) {
				best = code
			}
		}
	}
	if best == 0 {
		return http.StatusOK
	}
	return best
}

// find returns the operation a call addressed (its escaped path without
// the base path; a query is ignored), or nil.
func (d *Document) find(method, path string) *Operation {
	path, _, _ = strings.Cut(path, "?")
	i, _, ok := d.routes.Find(method, path)
	if !ok {
		return nil
	}
	return d.byRoute[i]
}

// checkResponse validates an answer to a call of op against the document;
// no problems means it conforms. path is the call's path without the base
// path. Nulls the service itself sends where the schema has a non-nullable
// property are its habit (habits.go): they are returned as habits, and are
// a problem only when strict says so.
func (d *Document) checkResponse(op *Operation, req *http.Request, path string, a *answer, strict bool) ([]string, []Habit) {
	validate := func(body []byte) []string { return d.validateBody(op, req, path, a, body) }
	problems := validate(a.body)
	if problems == nil {
		return nil, nil
	}
	rest, habits, found := d.judgeHabits(op, a, validate)
	if !found {
		return problems, nil
	}
	if strict {
		rest = append(rest, fmt.Sprintf("null where the schema has a non-nullable property, or a value other than an object where it says only type object (the service's habits, failed by --strict-schema) at %d places:\n%s",
			len(habits), strings.TrimRight(habitText(habits, "    ", 0), "\n")))
	}
	return rest, habits
}

// validateBody is the library's verdict on an answer to a call of op with
// body in place of the answer's own.
func (d *Document) validateBody(op *Operation, req *http.Request, path string, a *answer, body []byte) []string {
	r := req.Clone(req.Context())
	r.URL.Path, r.URL.RawPath = path, ""
	r.Body = http.NoBody
	resp := &http.Response{StatusCode: a.status, Header: a.header, Body: io.NopCloser(bytes.NewReader(body)), Request: r}
	d.mu.Lock()
	ok, errs := d.v.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(r, resp, op.pathItem, op.Path)
	d.mu.Unlock()
	if ok {
		return nil
	}
	var out []string
	for _, e := range errs {
		if e == nil {
			continue
		}
		var where []string
		for _, f := range e.SchemaValidationErrors {
			if f != nil {
				where = append(where, strings.TrimSpace(f.FieldPath+" "+f.Reason))
			}
		}
		switch {
		case len(where) > 0:
			out = append(out, e.Message+" ("+strings.Join(where, "; ")+")")
		case e.Reason != "" && e.Reason != e.Message:
			out = append(out, e.Message+": "+e.Reason)
		default:
			out = append(out, e.Message)
		}
	}
	if len(out) == 0 {
		out = []string{"the validator refused the answer without saying why"}
	}
	sort.Strings(out)
	return out
}

// ecmaRegexp compiles a schema's pattern. Patterns are ECMA-262 regular
// expressions; Go's engine takes most of them, and regexp2 in ECMAScript
// mode the rest (look-around and back-references, which the published
// schema uses).
func ecmaRegexp(pattern string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(pattern); err == nil {
		return re, nil
	}
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	return ecma{re}, nil
}

type ecma struct{ re *regexp2.Regexp }

func (e ecma) MatchString(s string) bool {
	ok, err := e.re.MatchString(s)
	return ok && err == nil
}

func (e ecma) String() string { return e.re.String() }
