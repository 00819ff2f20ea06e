package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/testenv"
)

// sharedSpec returns the path of a schema in the workspace's shared specs
// folder, found from the repository root (the directory holding go.mod),
// or skips the test when the folder is not there (outside the wmsmock
// development workspace).
func sharedSpec(t testing.TB, name string) string {
	return testenv.PublishedSpec(t, name)
}

// docCache keeps parsed documents for the whole test binary: building the
// published model takes a noticeable fraction of a second.
var docCache sync.Map // string -> *v3.Document

func loadSpecFile(t testing.TB, path string) *v3.Document {
	t.Helper()
	if d, ok := docCache.Load(path); ok {
		return d.(*v3.Document)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := loadSpec(t, b)
	docCache.Store(path, d)
	return d
}

func loadSpec(t testing.TB, spec []byte) *v3.Document {
	t.Helper()
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		t.Fatal(err)
	}
	m, err := doc.BuildV3Model()
	if m == nil {
		t.Fatalf("building model: %v", err)
	}
	return &m.Model
}

func specVersion(d *v3.Document) float32 {
	if strings.HasPrefix(d.Version, "3.0") {
		return 3.0
	}
	return 3.1
}

func componentSchema(t testing.TB, d *v3.Document, name string) *base.Schema {
	t.Helper()
	p := d.Components.Schemas.GetOrZero(name)
	if p == nil {
		t.Fatalf("no component schema %q", name)
	}
	s := p.Schema()
	if s == nil {
		t.Fatalf("component schema %q does not build: %v", name, p.GetBuildError())
	}
	return s
}

// validator checks values the way the server will: libopenapi-validator's
// schema compilation with our regexp engine, format assertions on, plus
// range checks for the OpenAPI numeric formats, in the request or response
// direction (readOnly/writeOnly prune `required` accordingly).
type validator struct {
	opts *config.ValidationOptions
	mu   sync.Mutex
	seen map[validatorKey]*jsonschema.Schema
}

type validatorKey struct {
	s    *base.Schema
	mode Mode
}

func newValidator() *validator {
	rangeFormat := func(lo, hi float64) func(any) error {
		return func(v any) error {
			f, ok := jsonvalue.Number(v)
			if ok && (f < lo || f > hi) {
				return errors.New("out of range")
			}
			return nil
		}
	}
	opts := config.NewValidationOptions(
		config.WithRegexEngine(RegexpEngine),
		config.WithFormatAssertions(),
		config.WithCustomFormat("int32", rangeFormat(math.MinInt32, math.MaxInt32)),
		config.WithCustomFormat("int64", rangeFormat(-(1<<53-1), 1<<53-1)),
		config.WithCustomFormat("float", rangeFormat(-math.MaxFloat32, math.MaxFloat32)),
	)
	return &validator{opts: opts, seen: map[validatorKey]*jsonschema.Schema{}}
}

// check validates v (after a JSON round trip, so the validator sees what a
// client would decode) and returns the validator's complaint, or nil.
func (vl *validator) check(s *base.Schema, v any, mode Mode, version float32) error {
	vl.mu.Lock()
	compiled, ok := vl.seen[validatorKey{s, mode}]
	vl.mu.Unlock()
	if !ok {
		purpose := schema_validation.SchemaValidationPurposeResponseBody
		if mode == Request {
			purpose = schema_validation.SchemaValidationPurposeRequestBody
		}
		c, err := schema_validation.CompileSchemaForValidation(s, purpose, vl.opts, version)
		if err != nil {
			return err
		}
		compiled = c.CompiledSchema
		vl.mu.Lock()
		vl.seen[validatorKey{s, mode}] = compiled
		vl.mu.Unlock()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var decoded any
	if err := dec.Decode(&decoded); err != nil {
		return err
	}
	return compiled.Validate(decoded)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("value does not encode as JSON: %v", err)
	}
	return string(b)
}
