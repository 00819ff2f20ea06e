// Package synth makes up JSON values for OpenAPI schemas: deterministic for
// a seed and a request key, valid against the schema (including oneOf,
// discriminators and ECMAScript patterns), and plausible to a human reading
// them (run names like "happy_turing", repository URLs, timestamps in the
// recent past). The fake server uses it for every response body it has no
// stored state for, so the same request always gets the same answer and a
// client's schema checks pass.
package synth

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/fnv1a"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Mode says which direction a value travels, because OpenAPI hides
// readOnly properties from requests and writeOnly ones from responses.
type Mode int

const (
	// Response values omit writeOnly properties.
	Response Mode = iota
	// Request values omit readOnly properties.
	Request
)

// withNulls is set in a run's mode, beside Response, when its generator
// sends the service's nulls (WithNulls): the generation and the checks it
// makes of its own values (that a oneOf value matches one branch only)
// then take a null for an optional property as the service's way of
// saying "no value", which is how the fake's answer check judges it too.
const withNulls Mode = 1 << 4

// dir is the direction of a mode, without withNulls.
func (m Mode) dir() Mode { return m &^ withNulls }

// nulls reports whether optional properties may be null (withNulls).
func (m Mode) nulls() bool { return m&withNulls != 0 }

// Option configures a Generator.
type Option func(*Generator)

// WithSeed sets the seed mixed into every value (default 1). Two
// generators with the same seed produce the same values.
func WithSeed(seed int64) Option { return func(g *Generator) { g.seed = seed } }

// WithGuard makes the generator read libopenapi's schemas (compiling its
// own model of them, spec.Detached) only under guard: the lock of the
// document the schemas come from (spec.Document.Guard), which the
// validator holds too while it compiles. Without it the generator only
// serializes its own reads, which is enough unless something else (a
// server, a validator) uses the same document at the same time. A caller
// that has the document gives WithDocument instead.
func WithGuard(guard func(func())) Option { return func(g *Generator) { g.guard = guard } }

// WithDocument names the document the schemas come from: the generator
// builds on its compiled model (spec.Document.Schema), which the fake's
// other readers share, and takes its lock (as WithGuard does). Without
// it the generator compiles the schemas it is handed on a model of its
// own (spec.Detached).
func WithDocument(d *spec.Document) Option {
	return func(g *Generator) {
		if d != nil {
			g.doc, g.guard = d, d.Guard
		}
	}
}

// WithNulls makes Response values carry every property their schema
// declares, as the service's answers do: an optional property the value
// has no content for is null instead of absent. Required properties always
// get a value and writeOnly ones are still left out; a map
// (additionalProperties) gets no invented keys, and a oneOf value carries
// only the properties of its own branch. Which optional properties get a
// value is drawn as without the option, so the other values are alike.
func WithNulls() Option { return func(g *Generator) { g.nulls = true } }

// WithMaxDepth bounds object nesting (default 6). Beyond it optional
// properties are left out (null with WithNulls) and arrays get their
// minimum length, which is what stops recursive schemas; required
// properties still get the smallest value that satisfies them.
func WithMaxDepth(n int) Option {
	return func(g *Generator) {
		if n >= 0 {
			g.maxDepth = n
		}
	}
}

// WithEpoch sets "now" for generated timestamps (default
// 2026-01-01T00:00:00Z). Values are never read from the wall clock, so
// output does not drift from one day to the next.
func WithEpoch(t time.Time) Option { return func(g *Generator) { g.epoch = t.UTC() } }

// defaultEpoch is the reference time used when WithEpoch is not given;
// it is never modified.
var defaultEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Generator makes values for schemas. It is safe for concurrent use: the
// per-schema preparation is cached behind a mutex and is immutable once
// published, and every call gets its own random source.
type Generator struct {
	seed      int64
	nulls     bool
	maxDepth  int
	epoch     time.Time
	epochUnix int64

	mu    sync.Mutex // guards comp
	guard func(func())
	doc   *spec.Document
	comp  *compiler
	roots sync.Map // *base.Schema -> *node (flattened)
}

// New returns a Generator configured by opts.
func New(opts ...Option) *Generator {
	g := &Generator{seed: 1, maxDepth: 6, epoch: defaultEpoch}
	for _, o := range opts {
		if o != nil {
			o(g)
		}
	}
	g.epochUnix = g.epoch.Unix()
	if g.doc == nil {
		g.doc = spec.Detached(g.guard) // nil: the detached model's own lock
	}
	if g.guard == nil {
		g.guard = func(fn func()) { fn() } // g.mu is held already
	}
	g.comp = newCompiler(g.doc, g.guard)
	return g
}

// Value returns a JSON-encodable value (map[string]any, []any, string,
// int64, float64, json.Number, bool or nil) valid for schema. key names the
// request the value answers (e.g. "GET /workflow/abc?max=5"): the same
// seed, key and schema always give the same value, and another seed or key
// gives another. A nil schema gives an empty object. Value never panics; a
// schema that trips an internal error also gives an empty object.
func (g *Generator) Value(schema *base.Schema, key string, mode Mode) any {
	v, _ := g.ValueContext(context.Background(), schema, key, mode)
	return v
}

// ValueContext is Value for a caller with a deadline: generation checks ctx
// as it goes and gives up with ctx's error once it is done, so a request
// that has run out of time stops using the CPU too.
func (g *Generator) ValueContext(ctx context.Context, schema *base.Schema, key string, mode Mode) (v any, err error) {
	if schema == nil {
		return map[string]any{}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(cancelled); ok {
				v, err = nil, c.err
				return
			}
			v = map[string]any{}
		}
	}()
	return g.value(ctx, schema, key, mode), nil
}

// Fits reports whether v is a valid value for schema in mode, judged by
// the checker the generator proves its own values with. It works on the
// schema as prepared for generation, so checking a value against a schema
// the generator has already made values for costs no compilation: the
// fake's answers use it to accept a synthesized or stored value without
// compiling a validator for the schema on the call that first needs it.
// A false is not a verdict of invalid (on a schema it cannot prepare the
// checker declines), so a caller that must be sure asks a validator then;
// a true is the validator's verdict too, except that parts of a value
// nested deeper than 48 levels are taken as matching. With WithNulls, a
// null for an optional property fits, as in the values the generator makes.
func (g *Generator) Fits(schema *base.Schema, v any, mode Mode) (ok bool) {
	if schema == nil {
		return true
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if g.nulls && mode == Response {
		mode |= withNulls
	}
	return matches(g.node(schema), v, mode, 0)
}

// value is ValueContext without the panic guard, so tests see internal
// errors.
func (g *Generator) value(ctx context.Context, schema *base.Schema, key string, mode Mode) any {
	n := g.node(schema)
	c := &run{g: g, r: g.Rand(key), mode: mode, ctx: ctx}
	if mode != Response {
		c.full = -1
	} else if g.nulls {
		c.mode |= withNulls
	}
	return c.value(n, field{}, 0, nil, true)
}

// node returns the prepared node for schema, compiling it on first use.
func (g *Generator) node(schema *base.Schema) *node {
	if n, ok := g.roots.Load(schema); ok {
		return n.(*node)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if n, ok := g.roots.Load(schema); ok {
		return n.(*node)
	}
	n := g.comp.root(schema) // takes the document's lock where it reads the model
	g.roots.Store(schema, n)
	return n
}

// Rand returns the random source Value uses for key: a PCG seeded from a
// hash of the generator's seed and key. The server can use it to derive
// other per-request values (ids, error ids) the same reproducible way.
func (g *Generator) Rand(key string) *rand.Rand {
	// FNV-1a of the seed's eight bytes, little end first, then the key's:
	// a call allocates only the source itself.
	a := fnv1a.New().Uint64(uint64(g.seed)).String(key).Sum()
	return rand.New(rand.NewPCG(a, splitmix(a^0x9e3779b97f4a7c15)))
}

// splitmix scrambles a 64-bit value; it makes the PCG's second seed word
// independent-looking from the first.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ID returns a 14-character base62 id shaped like the service's workflow
// ids (e.g. "4Bi5xBK6E2Nbhj").
func ID(r *rand.Rand) string { return IDN(r, 14) }

// IDN returns an n-character base62 id; 22 characters is the shape of the
// service's error ids.
func IDN(r *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = base62[r.IntN(len(base62))]
	}
	return string(b)
}
