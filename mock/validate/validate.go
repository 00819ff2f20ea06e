// Package validate checks calls and answers against the OpenAPI document the
// fake serves, using libopenapi-validator.
//
// The validator is built so that start-up stays fast: libopenapi-validator
// normally compiles every schema of the document when it is created (6-7 s
// and ~80 MiB for the published schema). Here compilation is deferred to the
// first call that needs a schema and cached from then on, so the fake is
// ready at once and each operation pays its compile cost once.
package validate

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"
	"sync"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Validator validates requests and responses of one document.
type Validator struct {
	v        validator.Validator
	guard    func(func()) // the document's model lock
	basePath string
	// options and version are what the library compiles with, kept so Warm
	// can compile into the same cache.
	options *config.ValidationOptions
	version float32
	warmed  sync.Map // *spec.Operation -> *opInfo, once its request's schemas are compiled
	// responsesWarmed holds the operations whose response schemas are
	// compiled (*spec.Operation -> true).
	responsesWarmed sync.Map
	// verdicts remembers the outcome of recent calls (see verdictKey).
	verdicts *memo.Map[verdictKey, []string]
	// relax adjusts request body schemas as they are compiled (see
	// WithRequestRelaxation); nil: none.
	relax Relaxation
	// nulls judges answers with the service's nulls (WithNulls).
	nulls bool
	// anyObjects judges answers with the service's Objects (WithAnyObjects).
	anyObjects bool
	// parts are the schemas compiled inside others, reused (parts.go).
	parts parts
	// model and vopts are what the library validator was built from, kept
	// for the one that judges parameters only (decoded.go).
	model *v3.Document
	vopts []config.Option
	paramsValidator
}

// opInfo is what Request needs to know about an operation besides its
// schemas.
type opInfo struct {
	// plain reports whether a call with no query and no body can only be
	// valid (see plain).
	plain bool
	// headers names the header and cookie parameters the operation declares:
	// with the path, query, content type and body, all the library reads.
	headers []string
	// ints are the parameters declared as sized integers (bounds.go).
	ints []intParam
}

// verdictKey identifies a call by everything the validator looks at. The
// library's verdict is a pure function of these, so a repeated call (a
// client polling a list, a test suite launching the same run) is answered
// from the cache rather than validated again, which is most of the cost of
// a call that carries a query or a body.
type verdictKey struct {
	op   *spec.Operation
	call string
}

// Calls whose key would be longer than this (large bodies, mostly) are
// always validated afresh, so each entry of the cache is at most this size.
const verdictKeyMax = 4 << 10

// Option configures a Validator.
type Option func(*settings)

type settings struct {
	regex      jsonschema.RegexpEngine
	caches     *memo.Set
	relax      Relaxation
	nulls      bool
	anyObjects bool
}

// Relaxation adjusts a copy of a request body schema before it is
// compiled. node is a schema mapping the validator owns; component names
// the component it was inlined from, "" for any other schema.
type Relaxation func(node *yaml.Node, component string)

// WithRequestRelaxation has request body schemas adjusted by relax before
// they are compiled: how the fake accepts what the service's JSON layer
// accepts and its document does not say (mock/leniency). It applies where
// a schema is compiled inline (compileInline); one compiled by the
// library's own path, which keeps references, is checked as written.
func WithRequestRelaxation(relax Relaxation) Option {
	return func(s *settings) { s.relax = relax }
}

// WithNulls judges answers (Response, Answer) as the service sends them: a
// property the schema declares and does not require may be null although
// its schema does not say nullable (see allowNulls). Requests are judged
// as the document says. The answers' schemas are compiled once, already
// rewritten, so a check costs what it costs without the option.
func WithNulls() Option {
	return func(s *settings) { s.nulls = true }
}

// WithAnyObjects judges answers as the service writes a property whose
// schema says only "type: object" (the document's rendering of a Java
// Object, such as a run's params): any JSON value (see anyObjects).
// Requests are judged as the document says (their own relaxation is
// WithRequestRelaxation's).
func WithAnyObjects() Option {
	return func(s *settings) { s.anyObjects = true }
}

// WithCaches puts the validator's verdict cache in the server's set, so it
// shares the server's budget and is reported with the others. Without it
// the validator keeps a set of its own.
func WithCaches(set *memo.Set) Option {
	return func(s *settings) { s.caches = set }
}

// WithRegexpEngine sets the engine for schema `pattern`s. Published schemas
// use ECMAScript look-around that Go's regexp cannot compile.
func WithRegexpEngine(e jsonschema.RegexpEngine) Option {
	return func(s *settings) { s.regex = e }
}

// New builds a validator for doc, whose paths are served under basePath.
func New(doc *spec.Document, basePath string, opts ...Option) *Validator {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	if s.caches == nil {
		s.caches = memo.NewSet(0)
	}
	vopts := []config.Option{
		config.WithSchemaCache(cache.NewDefaultCache()),
		config.WithSchemaResourceCache(cache.NewDefaultSchemaResourceCache()),
		config.WithRegexCache(&sync.Map{}),
		// The fake's own pipeline checks the token before validation runs,
		// with the service's rules rather than the document's.
		config.WithoutSecurityValidation(),
	}
	if s.regex != nil {
		vopts = append(vopts, config.WithRegexEngine(s.regex))
	}
	// The library is given the model without its paths. On creation it
	// walks every operation of the paths it is given: to compile every
	// schema (the warm-up Warm replaces, per operation), and to build a
	// router and a media-type table, which the fake does not need (the
	// calls it validates come with their path item, see Request, and body
	// decoders are found by media type on use). For the published schema
	// that walk was a sixth of start-up, because it forces the lazily built
	// parts of the model for every schema. Nothing else it reads (the
	// version, the components) is dropped.
	model := *doc.Model
	model.Paths = nil
	v := validator.NewValidatorFromV3Model(&model, vopts...)
	return &Validator{
		model:      &model,
		vopts:      vopts,
		v:          v,
		guard:      doc.Guard,
		basePath:   strings.TrimSuffix(basePath, "/"),
		options:    config.NewValidationOptions(vopts...),
		version:    helpers.VersionToFloat(doc.OpenAPI),
		verdicts:   memo.NewIn[verdictKey, []string](s.caches, "validation verdicts", 16),
		relax:      s.relax,
		nulls:      s.nulls,
		anyObjects: s.anyObjects,
		parts:      parts{},
	}
}

// Warm compiles the schemas a call to an operation is checked against (its
// parameters and request bodies) into the cache, once, under the
// document's Guard. The server calls it before the first validation of an
// operation, so validations that run concurrently afterwards only read
// compiled schemas. Response schemas are compiled apart (warmResponses),
// only where answers are checked: each costs a first call as much as the
// request's, and a fake that does not check its answers never needs them.
func (v *Validator) Warm(op *spec.Operation) {
	if _, ok := v.warmed.Load(op); ok {
		// Every call after the first: no closure made.
		return
	}
	v.once(&v.warmed, op, func() any {
		for _, p := range append(append([]*v3.Parameter{}, op.PathItem.Parameters...), op.Op.Parameters...) {
			if p != nil && p.Schema != nil {
				// The library looks a parameter's schema up as 3.1 whatever
				// the document, and compiles it so when it is not cached,
				// which refuses a 3.0 document's nullable (16 query
				// parameters of the published schema, search among them):
				// compiled here as the document's version, under the key
				// the library reads.
				v.compileKeyed(p.Schema.Schema(), schema_validation.SchemaValidationPurposeGeneric, v.version, 3.1)
			}
		}
		if rb := op.Op.RequestBody; rb != nil && rb.Content != nil {
			for m := rb.Content.First(); m != nil; m = m.Next() {
				if m.Value().Schema != nil {
					v.compile(m.Value().Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody, v.version)
				}
			}
		}
		return &opInfo{plain: plain(op), headers: headerParams(op), ints: intParams(op)}
	})
}

// warmResponses compiles every response schema of op, once, under the
// document's Guard, for Response.
func (v *Validator) warmResponses(op *spec.Operation) {
	v.once(&v.responsesWarmed, op, func() any {
		if op.Op.Responses != nil && op.Op.Responses.Codes != nil {
			for c := op.Op.Responses.Codes.First(); c != nil; c = c.Next() {
				if r := c.Value(); r != nil && r.Content != nil {
					for m := r.Content.First(); m != nil; m = m.Next() {
						if m.Value().Schema != nil {
							v.compile(m.Value().Schema.Schema(), schema_validation.SchemaValidationPurposeResponseBody, v.version)
						}
					}
				}
			}
		}
		return true
	})
}

// once runs compile for op the first time it is asked to for done, under
// the document's Guard, and records what it returns in done.
func (v *Validator) once(done *sync.Map, op *spec.Operation, compile func() any) {
	if _, ok := done.Load(op); ok {
		return
	}
	v.guard(func() {
		if _, ok := done.Load(op); !ok {
			done.Store(op, compile())
		}
	})
}

// plain reports whether a call to op that has no query string and no body
// can only be valid: every path parameter is a free string (a value mux
// matched is always acceptable), and there are no required query, header or
// cookie parameters, nor any optional header or cookie parameter other than
// Accept-Version, which the server has already checked. Such calls are most
// reads of a single record, and skipping the validator for them saves a
// third of their cost.
func plain(op *spec.Operation) bool {
	for _, p := range append(append([]*v3.Parameter{}, op.PathItem.Parameters...), op.Op.Parameters...) {
		if p == nil {
			continue
		}
		switch p.In {
		case "path":
			if p.Schema == nil || !freeString(p.Schema.Schema()) {
				return false
			}
		case "query":
			if p.Required != nil && *p.Required {
				return false
			}
		default:
			if !strings.EqualFold(p.Name, "Accept-Version") {
				return false
			}
		}
	}
	return true
}

// freeString reports whether schema accepts any non-empty string.
func freeString(s *base.Schema) bool {
	if s == nil || len(s.Type) != 1 || s.Type[0] != "string" {
		return false
	}
	return s.Pattern == "" && s.Format == "" && len(s.Enum) == 0 && s.Const == nil &&
		(s.MinLength == nil || *s.MinLength <= 1) && s.MaxLength == nil &&
		len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 && s.Not == nil
}

// compile puts one schema in the cache under the key the library looks it
// up by. A schema the library cannot compile is left out; the library then
// reports it when a call needs it.
func (v *Validator) compile(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose, version float32) {
	v.compileKeyed(schema, purpose, version, version)
}

// compileKeyed is compile for a schema the library looks up under another
// version (keyVersion) than the one it is to be read as (version).
func (v *Validator) compileKeyed(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose, version, keyVersion float32) {
	if schema == nil || schema.GoLow() == nil {
		return
	}
	key := schema_validation.SchemaCacheKey(schema.GoLow().Hash(), keyVersion, purpose)
	if _, ok := v.options.SchemaCache.Load(key); ok {
		return
	}
	var relax Relaxation
	if purpose == schema_validation.SchemaValidationPurposeRequestBody {
		relax = v.relax
	}
	var edits []func(*yaml.Node)
	if v.nulls && purpose == schema_validation.SchemaValidationPurposeResponseBody {
		edits = append(edits, allowNulls)
	}
	if v.anyObjects && purpose == schema_validation.SchemaValidationPurposeResponseBody {
		edits = append(edits, anyObjects)
	}
	// A schema already compiled inside another is taken from there, as
	// long as compiling it alone would rewrite it the same way: a request
	// body's relaxation names the component at the root only when the
	// schema is reached through its reference.
	node := schema.GoLow().GetRootNode()
	if p := schema.ParentProxy; relax == nil || p != nil && p.IsReference() {
		if part, ok := v.parts[partKey{node, purpose, version}]; ok {
			v.options.SchemaCache.Store(key, part.ToCacheEntry(schema))
			return
		}
	}
	compiled, defs := compileInlineParts(schema, purpose, v.options, version, relax, edits...)
	v.parts.keep(compiled, defs, purpose, version)
	if compiled == nil {
		var err error
		compiled, err = schema_validation.CompileSchemaForValidation(schema, purpose, v.options, version)
		if err != nil || compiled == nil || compiled.CompiledSchema == nil {
			return
		}
	}
	v.options.SchemaCache.Store(key, compiled.ToCacheEntry(schema))
}

// Answer judges a JSON value as the document's response validator judges
// an answer's body: the document's OpenAPI version (nullable means what it
// says in 3.0), writeOnly properties not required, and the service's nulls
// accepted when the validator was made WithNulls. The compiled schema is
// the one response checks use, from the same cache, so the fake has one
// authority on whether a value fits a schema (the resources check stored
// values with it before serving them). It returns one line per problem, or
// nil when the value fits.
func (v *Validator) Answer(schema *base.Schema, body []byte) []string {
	if schema == nil {
		return nil
	}
	if schema.GoLow() == nil {
		return []string{"the schema has no source to compile"}
	}
	key := schema_validation.SchemaCacheKey(schema.GoLow().Hash(), v.version, schema_validation.SchemaValidationPurposeResponseBody)
	e, ok := v.options.SchemaCache.Load(key)
	if !ok || e == nil || e.CompiledSchema == nil {
		// Rendering writes to the model: see spec.Document.Guard.
		v.guard(func() { v.compile(schema, schema_validation.SchemaValidationPurposeResponseBody, v.version) })
		if e, ok = v.options.SchemaCache.Load(key); !ok || e == nil || e.CompiledSchema == nil {
			return []string{"the schema does not compile"}
		}
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	if err := e.CompiledSchema.Validate(value); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// Request validates a routed call: path, query and header parameters and the
// body. body is the already-read request body. It returns one line per
// problem, or nil when the call is valid.
func (v *Validator) Request(r *http.Request, op *spec.Operation, body []byte) []string {
	return v.RequestDecoded(r, op, body, nil)
}

// RequestDecoded is Request for a call whose JSON body is decoded once
// for all the stages that need it (decoded wraps body), so the library
// judges that value rather than decoding the body again (see judge). A nil
// decoded means the body is judged from its bytes, as Request does; the
// verdict is the same either way.
func (v *Validator) RequestDecoded(r *http.Request, op *spec.Operation, body []byte, decoded *jsonvalue.Lazy) []string {
	v.Warm(op)
	// A path parameter sent with an escaped slash ("%2F") routes as one
	// segment, but the library reads the decoded path, finds more segments
	// than the template has, and panics. Such a call is left unjudged here:
	// the id names nothing the fake holds, which the handlers answer as a
	// missing resource (TestEncodedSlashIsNotASeparator).
	if strings.Count(strings.TrimPrefix(r.URL.Path, v.basePath), "/") != strings.Count(op.Path, "/") {
		return nil
	}
	// The library reports a missing body as an unknown content type, which
	// says little to the developer who reads the error journal.
	if rb := op.Op.RequestBody; len(body) == 0 && rb != nil && rb.Required != nil && *rb.Required {
		return []string{"the request body is required but the request has none"}
	}
	// A media type without a subtype ("application") is refused here: the
	// library matches a request's media type against the document's by
	// type, then subtype, and fails with an index out of range on one that
	// has none (libopenapi-validator v0.14.0, requests/validate_body.go).
	// The media type nearly every client sends is let through as it is,
	// without parsing it again (ParseMediaType makes a map per call).
	if ct := r.Header.Get("Content-Type"); ct != "" && ct != "application/json" && op.Op.RequestBody != nil {
		if mt, _, _ := mime.ParseMediaType(ct); !strings.Contains(mt, "/") {
			return []string{fmt.Sprintf("the request's content type %q is not a media type (type/subtype)", ct)}
		}
	}
	info := v.info(op)
	if info.plain && r.URL.RawQuery == "" && len(body) == 0 {
		return nil
	}
	key, cacheable := callKey(r, op, info, body)
	if cacheable {
		if problems, ok := v.verdicts.Get(key); ok {
			return problems
		}
	}
	req := v.docRequest(r, body)
	problems := outOfRange(info.ints, req, req.URL.Path)
	if errs := v.judge(req, op, body, decoded); len(errs) > 0 {
		problems = append(problems, reasons(errs)...)
	}
	if cacheable {
		v.verdicts.Put(key, problems)
	}
	return problems
}

func (v *Validator) info(op *spec.Operation) *opInfo {
	i, _ := v.warmed.Load(op)
	return i.(*opInfo)
}

// callKey builds the verdict cache key of a call, and reports whether the
// call is small enough to cache.
func callKey(r *http.Request, op *spec.Operation, info *opInfo, body []byte) (verdictKey, bool) {
	size := len(r.URL.Path) + len(r.URL.RawQuery) + len(body) + 64
	if size > verdictKeyMax {
		return verdictKey{}, false
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(r.URL.Path)
	b.WriteByte(0)
	b.WriteString(r.URL.RawQuery)
	b.WriteByte(0)
	b.WriteString(r.Header.Get("Content-Type"))
	for _, h := range info.headers {
		for _, val := range r.Header.Values(h) {
			b.WriteByte(0)
			b.WriteString(val)
		}
		b.WriteByte(1)
	}
	b.WriteByte(0)
	b.Write(body)
	if b.Len() > verdictKeyMax {
		return verdictKey{}, false
	}
	return verdictKey{op, b.String()}, true
}

// headerParams lists the header names a call's verdict depends on besides
// Content-Type: declared header parameters, and Cookie when the operation
// declares a cookie parameter.
func headerParams(op *spec.Operation) []string {
	var out []string
	cookies := false
	for _, p := range append(append([]*v3.Parameter{}, op.PathItem.Parameters...), op.Op.Parameters...) {
		switch {
		case p == nil:
		case p.In == "header":
			out = append(out, http.CanonicalHeaderKey(p.Name))
		case p.In == "cookie":
			cookies = true
		}
	}
	if cookies {
		out = append(out, "Cookie")
	}
	return out
}

// Response validates an answer to a routed call. It returns one line per
// problem, or nil when the answer matches the document.
func (v *Validator) Response(r *http.Request, op *spec.Operation, resp *http.Response) []string {
	v.warmResponses(op)
	req := v.docRequest(r, nil)
	ok, errs := v.v.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(req, resp, op.PathItem, op.Path)
	if ok {
		return nil
	}
	return reasons(errs)
}

// docRequest returns a shallow copy of r whose path is the one the document
// knows (without the fake's base path) and whose body can be read again.
func (v *Validator) docRequest(r *http.Request, body []byte) *http.Request {
	req := *r
	u := *r.URL
	u.Path = strings.TrimPrefix(u.Path, v.basePath)
	u.RawPath = ""
	if u.Path == "" {
		u.Path = "/"
	}
	req.URL = &u
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	} else {
		req.Body = http.NoBody
	}
	return &req
}

// reasons turns validator errors into short, stable, sorted lines.
func reasons(errs []*verrors.ValidationError) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		if e == nil {
			continue
		}
		line := e.Message
		if e.Reason != "" && e.Reason != e.Message {
			line += ": " + e.Reason
		}
		for _, se := range e.SchemaValidationErrors {
			if se == nil {
				continue
			}
			loc := se.FieldPath
			if loc == "" {
				loc = se.KeywordLocation
			}
			line += fmt.Sprintf(" [%s: %s]", loc, se.Reason)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = append(out, "the request does not match the document")
	}
	return out
}
