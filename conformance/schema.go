package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
)

// docValidator checks answers against the target's document. The validator
// strips the base path from request paths, so there is one per base path.
type docValidator struct {
	doc    *spec.Document
	v      *validate.Validator
	routes []route
}

type route struct {
	op *spec.Operation
	re *regexp.Regexp
}

// validator returns the run's validator for the scenario's base path,
// building it on first use: most runs need it in a few scenarios only.
func (w *world) validator() (*docValidator, string, error) {
	doc := w.r.info.Document
	if doc == nil {
		return nil, "", errors.New("no schema to validate against: " + w.r.info.DocumentSource)
	}
	u, err := url.Parse(w.conn.BaseURL)
	if err != nil {
		return nil, "", err
	}
	basePath := strings.TrimSuffix(u.Path, "/")
	r := w.r
	r.schemaMu.Lock()
	defer r.schemaMu.Unlock()
	if r.validators == nil {
		r.validators = map[string]*docValidator{}
	}
	if dv, ok := r.validators[basePath]; ok {
		return dv, basePath, nil
	}
	dv := &docValidator{doc: doc, v: validate.New(doc, basePath, validate.WithRegexpEngine(synth.RegexpEngine))}
	for _, op := range doc.Operations {
		dv.routes = append(dv.routes, route{op: op, re: templateRegexp(op.Path)})
	}
	r.validators[basePath] = dv
	return dv, basePath, nil
}

// templateRegexp turns a path template such as /workflow/{workflowId} into
// a regexp where each parameter matches one path segment.
func templateRegexp(tmpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for len(tmpl) > 0 {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(tmpl))
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(regexp.QuoteMeta(tmpl))
			break
		}
		b.WriteString(regexp.QuoteMeta(tmpl[:i]))
		b.WriteString("[^/]+")
		tmpl = tmpl[i+j+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// operation finds the operation a call addressed. Operations are in route
// order (literal segments first), so the first match is the right one.
func (dv *docValidator) operation(method, path string) *spec.Operation {
	for _, r := range dv.routes {
		if r.op.Method == method && r.re.MatchString(path) {
			return r.op
		}
	}
	return nil
}

// check validates one answer against the document; nil means it conforms.
func (dv *docValidator) check(basePath string, a *answer) (*spec.Operation, []string) {
	rel := strings.TrimPrefix(a.req.URL.Path, basePath)
	op := dv.operation(a.req.Method, rel)
	if op == nil {
		return nil, []string{fmt.Sprintf("the schema has no operation %s %s", a.req.Method, rel)}
	}
	resp := &http.Response{
		StatusCode: a.status,
		Header:     a.header,
		Body:       io.NopCloser(bytes.NewReader(a.body)),
		Request:    a.req,
	}
	return op, dv.v.Response(a.req, op, resp)
}

func (w *world) matchesSchema() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	dv, basePath, err := w.validator()
	if err != nil {
		return err
	}
	op, problems := dv.check(basePath, a)
	if problems != nil {
		name := ""
		if op != nil {
			name = op.ID + ": "
		}
		return fmt.Errorf("%sthe answer does not match the schema: %s\n  %s", name, strings.Join(problems, "; "), a)
	}
	return nil
}

// sweepOutcome is what one operation of the sweep gave.
type sweepOutcome struct {
	op      *spec.Operation
	answer  *answer
	problem string // "" when the answer conforms
	notHeld bool   // 403 for an identifier the target does not hold
}

// sweepReadOnly calls every GET operation of the document once, with a
// valid request built from the document, and keeps what each answered.
//
// Operations without path parameters go first. Identifiers found in their
// answers (a workflow's id, a pipeline's pipelineId...) then fill the path
// parameters of the describe operations, so those are checked on records
// the target really holds instead of being refused for made-up ones.
func (w *world) sweepReadOnly(ctx context.Context) error {
	dv, basePath, err := w.validator()
	if err != nil {
		return err
	}
	gen := synth.New(synth.WithSeed(1))
	w.sweep = nil
	ids := identifiers{}
	var pending []*spec.Operation
	for _, op := range dv.doc.Operations {
		if op.Method == http.MethodGet {
			pending = append(pending, op)
		}
	}
	for len(pending) > 0 {
		// Each round calls the operations whose parameters are all known;
		// when none is, the rest go with generated values.
		var ready, later []*spec.Operation
		for _, op := range pending {
			if ids.fill(op.Path) != "" {
				ready = append(ready, op)
			} else {
				later = append(later, op)
			}
		}
		if len(ready) == 0 {
			ready, later = later, nil
		}
		for _, op := range ready {
			o, err := w.sweepOne(ctx, dv, basePath, gen, ids, op)
			if err != nil {
				return err
			}
			w.sweep = append(w.sweep, o)
			if o.problem == "" && !o.notHeld && o.answer != nil {
				ids.collect(o.answer.body)
			}
		}
		pending = later
	}
	return nil
}

func (w *world) sweepOne(ctx context.Context, dv *docValidator, basePath string, gen *synth.Generator, ids identifiers, op *spec.Operation) (sweepOutcome, error) {
	call, err := callgen.Build(op, gen, op.ID)
	if err != nil {
		return sweepOutcome{op: op, problem: "building a call: " + err.Error()}, nil
	}
	path := call.Path
	if p := ids.fill(op.Path); p != "" {
		path = p
	}
	if len(call.Query) > 0 {
		path += "?" + call.Query.Encode()
	}
	a, err := w.call(ctx, op.Method, path, nil, call.Header, w.authorization, true)
	if err != nil {
		return sweepOutcome{}, err
	}
	o := sweepOutcome{op: op, answer: a}
	switch {
	case a.status == op.Success.Status:
		if _, problems := dv.check(basePath, a); problems != nil {
			o.problem = "the answer does not match the schema: " + strings.Join(problems, "; ")
		}
	case a.status == http.StatusForbidden && strings.Contains(op.Path, "{"):
		o.notHeld = true
	default:
		o.problem = fmt.Sprintf("status %d, want %d: %s", a.status, op.Success.Status, excerpt(a.body))
	}
	return o, nil
}

// identifiers are values seen in answers, by the path parameter name they
// would fill: "workflowId" from a field workflowId, or from the id of an
// object under a key workflow or workflows.
type identifiers map[string]string

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// fill returns the template with every parameter replaced by a known
// value; "" when the template has no parameter or one is unknown.
func (ids identifiers) fill(tmpl string) string {
	if !strings.Contains(tmpl, "{") {
		return ""
	}
	ok := true
	out := pathParam.ReplaceAllStringFunc(tmpl, func(m string) string {
		v, found := ids[m[1:len(m)-1]]
		ok = ok && found
		return url.PathEscape(v)
	})
	if !ok {
		return ""
	}
	return out
}

// collect remembers the first value seen for each identifier name.
func (ids identifiers) collect(body []byte) {
	v, err := decodeJSON(body)
	if err != nil {
		return
	}
	var walk func(parent string, v any)
	walk = func(parent string, v any) {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys) // the same answer always gives the same values
			for _, k := range keys {
				e := t[k]
				if isIDValue(e) && strings.HasSuffix(k, "Id") {
					ids.add(k, scalar(e))
				}
				if k == "id" && isIDValue(e) && parent != "" {
					ids.add(parent+"Id", scalar(e))
					ids.add(strings.TrimSuffix(parent, "s")+"Id", scalar(e))
				}
			}
			for _, k := range keys {
				walk(k, t[k])
			}
		case []any:
			for _, e := range t {
				walk(parent, e)
			}
		}
	}
	walk("", v)
}

func (ids identifiers) add(name, value string) {
	if _, ok := ids[name]; !ok && value != "" {
		ids[name] = value
	}
}

func isIDValue(v any) bool {
	switch v.(type) {
	case string, json.Number:
		return true
	}
	return false
}

func (w *world) sweepAllValid() error {
	if len(w.sweep) == 0 {
		return errors.New("no operation was called (the schema has no GET operation, or the sweep did not run)")
	}
	var bad []string
	ok, notHeld := 0, 0
	for _, o := range w.sweep {
		switch {
		case o.problem != "":
			bad = append(bad, fmt.Sprintf("%s %s (%s): %s", o.op.Method, o.op.Path, o.op.ID, o.problem))
		case o.notHeld:
			notHeld++
		default:
			ok++
		}
	}
	if len(bad) > 0 {
		shown := bad
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("and %d more", len(bad)-10))
		}
		return fmt.Errorf("%d of %d read-only operations gave a wrong answer:\n  %s", len(bad), len(w.sweep), strings.Join(shown, "\n  "))
	}
	if ok == 0 {
		return fmt.Errorf("none of %d read-only operations answered with a body (%d refused an identifier they do not hold)", len(w.sweep), notHeld)
	}
	return nil
}
