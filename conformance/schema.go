package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// document returns the run's document and the base path of the
// scenario's connection, which the document's paths are relative to.
func (w *world) document() (*Document, string, error) {
	doc := w.r.info.Document
	if doc == nil {
		return nil, "", errors.New("no schema to validate against: " + w.r.info.DocumentSource)
	}
	u, err := url.Parse(w.conn.BaseURL)
	if err != nil {
		return nil, "", err
	}
	return doc, strings.TrimSuffix(u.Path, "/"), nil
}

// check validates one answer against the document; no problems means it
// conforms. The service's habits it shows are returned apart (habits.go).
func (d *Document) check(basePath string, a *answer, strict bool) (*Operation, []string, []Habit) {
	rel := strings.TrimPrefix(a.req.URL.EscapedPath(), basePath)
	op := d.find(a.req.Method, rel)
	if op == nil {
		return nil, []string{fmt.Sprintf("the schema has no operation %s %s", a.req.Method, rel)}, nil
	}
	problems, habits := d.checkResponse(op, a.req, rel, a, strict)
	return op, problems, habits
}

// checkAnswer is check for a scenario: the habits are kept for its result.
func (w *world) checkAnswer(doc *Document, basePath string, a *answer) (*Operation, []string) {
	op, problems, habits := doc.check(basePath, a, w.r.opts.StrictSchema)
	w.habits = mergeHabits(w.habits, habits...)
	return op, problems
}

func (w *world) matchesSchema() error {
	a, err := w.response()
	if err != nil {
		return err
	}
	doc, basePath, err := w.document()
	if err != nil {
		return err
	}
	op, problems := w.checkAnswer(doc, basePath, a)
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
	op      *Operation
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
	doc, basePath, err := w.document()
	if err != nil {
		return err
	}
	w.sweep = nil
	ids := identifiers{}
	var pending []*Operation
	for _, op := range doc.Operations {
		if op.Method == http.MethodGet {
			pending = append(pending, op)
		}
	}
	for len(pending) > 0 {
		// Each round calls the operations whose parameters are all known;
		// when none is, the rest go with made-up values.
		var ready, later []*Operation
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
			o, err := w.sweepOne(ctx, doc, basePath, ids, op)
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

func (w *world) sweepOne(ctx context.Context, doc *Document, basePath string, ids identifiers, op *Operation) (sweepOutcome, error) {
	path, header := readCall(op, ids)
	a, err := w.call(ctx, op.Method, path, nil, header, w.authorization, true)
	if err != nil {
		return sweepOutcome{}, err
	}
	o := sweepOutcome{op: op, answer: a}
	switch {
	case a.status == op.Success:
		if _, problems := w.checkAnswer(doc, basePath, a); problems != nil {
			o.problem = "the answer does not match the schema: " + strings.Join(problems, "; ")
		}
	case strings.Contains(op.Path, "{") && (a.status == http.StatusForbidden || a.status == http.StatusNotFound ||
		a.status == w.r.opts.Profile.MissingResource.Status):
		// A made-up or stale identifier: refused as not held, with 403 (A4),
		// 404, or the profile's missing-resource status. Which one is the
		// profile's business, not this contract scenario's.
		o.notHeld = true
	default:
		o.problem = fmt.Sprintf("status %d, want %d: %s", a.status, op.Success, excerpt(a.body))
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
