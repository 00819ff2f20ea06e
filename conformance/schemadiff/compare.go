package schemadiff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

// Spec is one side of a comparison: an OpenAPI 3 document, read with
// references resolved (a change inside a component is then seen from every
// operation whose payload reaches it).
type Spec struct {
	// Name is where the document came from (a file name).
	Name string
	// Version is the document's info.version.
	Version string

	info *load.SpecInfo
}

// ErrNotOpenAPI is wrapped by Load when the bytes are not an OpenAPI 3
// document.
var ErrNotOpenAPI = errors.New("not an OpenAPI 3 document")

// Load reads an OpenAPI 3.0 or 3.1 document (YAML or JSON) named name.
// References must stay inside the document: none is fetched from the
// network or the file system. Bytes that are not an OpenAPI 3 document
// (empty, another format, a Swagger 2 document) are refused with
// ErrNotOpenAPI: the loader would read some of them as an empty document,
// and a comparison would then report no changes, the one answer that must
// never be wrong.
func Load(name string, b []byte) (*Spec, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: %w: the file is empty", name, ErrNotOpenAPI)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	info, err := load.NewSpecInfoFromData(loader, b, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrNotOpenAPI, err)
	}
	doc := info.Spec
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		if swagger2(b) {
			return nil, fmt.Errorf("%s: %w: it is a Swagger 2 document; convert it to OpenAPI 3 first", name, ErrNotOpenAPI)
		}
		return nil, fmt.Errorf("%s: %w: no \"openapi: 3.x\" field", name, ErrNotOpenAPI)
	}
	v := ""
	if doc.Info != nil {
		v = doc.Info.Version
	}
	return &Spec{Name: name, Version: v, info: info}, nil
}

// LoadFile is Load on a file.
func LoadFile(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, b)
}

// swagger2 reports whether a text has a top-level swagger key, so that the
// refusal can say what the file is.
func swagger2(b []byte) bool {
	if bytes.Contains(b, []byte(`"swagger"`)) {
		return true
	}
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "swagger:") {
			return true
		}
	}
	return false
}

// LoadPair reads two files at once; each side's loader is its own.
func LoadPair(oldPath, newPath string) (*Spec, *Spec, error) {
	var specs [2]*Spec
	var errs [2]error
	var wg sync.WaitGroup
	for i, p := range []string{oldPath, newPath} {
		wg.Go(func() { specs[i], errs[i] = LoadFile(p) })
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return nil, nil, err
	}
	return specs[0], specs[1], nil
}

// Operation names the operation a change touches.
type Operation struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	ID     string `json:"operationId,omitempty"`
}

// Key is "METHOD path", the way conformance results name operations.
func (o Operation) Key() string { return o.Method + " " + o.Path }

func (o Operation) String() string {
	if o.Method == "" {
		return "(document)"
	}
	if o.ID != "" {
		return o.Key() + " (" + o.ID + ")"
	}
	return o.Key()
}

// Change is one difference between the documents that a rule recognised.
type Change struct {
	// Rule is oasdiff's rule id, which a rules file sets the severity of.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Level is oasdiff's own verdict: error, warning or info.
	Level string `json:"level"`
	// Direction is "request" for what a client sends, "response" for what
	// it reads, "" for the document as a whole.
	Direction string `json:"direction,omitempty"`
	// Operation is empty (no method) for a change to the document as a
	// whole, such as its version.
	Operation Operation `json:"operation"`
	// Text says what changed and where: the parameter, or the property path
	// below the request or response body and the response status.
	Text string `json:"text"`
	// Component is the components.schemas entry the change is in, when
	// oasdiff saw it reached from several places of the payload.
	Component string `json:"component,omitempty"`
}

// Counts is how many changes have each severity.
type Counts struct {
	Breaking int `json:"breaking"`
	Review   int `json:"review"`
	Safe     int `json:"safe"`
}

// Side says which document a report's side is.
type Side struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Report is the outcome of a comparison.
type Report struct {
	Old     Side     `json:"old"`
	New     Side     `json:"new"`
	Changes []Change `json:"changes"`
	Counts  Counts   `json:"counts"`
	// Scenarios and Calls are set when an impact was asked for.
	Scenarios *Impact `json:"scenarios,omitempty"`
	Calls     *Impact `json:"calls,omitempty"`
}

// diffConfig leaves out what cannot change a payload's validity or how a
// call is made (prose and examples), which also saves most of the work on
// a document of the published schema's size.
func diffConfig() *diff.Config {
	return diff.NewConfig(diff.WithExcludeElements([]string{
		diff.ExcludeExamplesOption, diff.ExcludeDescriptionOption,
		diff.ExcludeTitleOption, diff.ExcludeSummaryOption,
	}))
}

// Compare lists every change from old to new that one of oasdiff's rules
// recognises, with the severity p gives it, most serious first, then by
// path and method. A change below a shared component is listed once for
// each operation whose request or response reaches it.
func Compare(old, new *Spec, p *Policy) (*Report, error) {
	if p == nil {
		p = DefaultPolicy()
	}
	d, sources, err := diff.GetWithOperationsSourcesMap(diffConfig(), old.info, new.info)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with %s: %w", old.Name, new.Name, err)
	}
	found := checker.CheckBackwardCompatibilityUntilLevel(checker.NewConfig(checker.GetAllChecks()), d, sources, checker.INFO)
	rules := ruleIndex()
	loc := checker.NewDefaultLocalizer()
	rep := &Report{
		Old:     Side{Name: old.Name, Version: old.Version},
		New:     Side{Name: new.Name, Version: new.Version},
		Changes: make([]Change, 0, len(found)),
	}
	for _, c := range found {
		ch := Change{
			Rule:      c.GetId(),
			Severity:  p.severity(c.GetId(), c.GetLevel()),
			Level:     c.GetLevel().String(),
			Direction: direction(rules[c.GetId()].Direction),
			Operation: Operation{Method: c.GetOperation(), Path: c.GetPath(), ID: c.GetOperationId()},
			Text:      c.GetUncolorizedText(loc),
		}
		if a, ok := c.(checker.ApiChange); ok && a.GetSharedSchema() != nil {
			ch.Component = a.GetSharedSchema().Name
		}
		switch ch.Severity {
		case Breaking:
			rep.Counts.Breaking++
		case Review:
			rep.Counts.Review++
		default:
			rep.Counts.Safe++
		}
		rep.Changes = append(rep.Changes, ch)
	}
	slices.SortStableFunc(rep.Changes, func(a, b Change) int {
		if d := b.Severity.rank() - a.Severity.rank(); d != 0 {
			return d
		}
		if c := strings.Compare(a.Operation.Path, b.Operation.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Operation.Method, b.Operation.Method); c != 0 {
			return c
		}
		return strings.Compare(a.Text, b.Text)
	})
	return rep, nil
}

// Worst is the most serious severity among the changes, "" when there are
// none.
func (r *Report) Worst() Severity {
	switch {
	case r.Counts.Breaking > 0:
		return Breaking
	case r.Counts.Review > 0:
		return Review
	case r.Counts.Safe > 0:
		return Safe
	}
	return ""
}

// byOperation indexes the changes at or above min by "METHOD path".
func (r *Report) byOperation(min Severity) map[string][]Change {
	m := map[string][]Change{}
	for _, c := range r.Changes {
		if c.Operation.Method != "" && c.Severity.AtLeast(min) {
			m[c.Operation.Key()] = append(m[c.Operation.Key()], c)
		}
	}
	return m
}
