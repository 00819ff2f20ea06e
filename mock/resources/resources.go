// Package resources is the kernel of the fake's own behaviour where the
// service has state: access tokens that really authenticate, and
// create/list/describe/update/delete for every collection a document
// describes (pipelines, compute environments, credentials, organizations,
// and any /things + /things/{thingId} pair), with the references between
// the records they hold. Behaviour with more to it than a collection (runs,
// Data Studios, datasets) lives in parts of its own packages, which reach
// the kernel through its Kit (kit.go) and are named by whoever builds the
// service.
//
// Register reads a loaded document and returns one handler.Func per
// operation it takes over; the server puts them in front of synthesis. The
// handlers keep their records in a store.Store, so they do not care whether
// state lives in this process or in a shared store. Every answer is built
// with mock/fit: a synthesized value valid for the answer's schema with the
// record's values laid over it where they fit, so answers stay valid
// against whichever document is served.
package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
	"github.com/wmsmock/wmsmock/profile"
)

// Deps is what the handlers need from the server.
type Deps struct {
	// Store keeps the records of the collections and of the parts.
	Store store.Store
	// Tokens is the server's token store: the one its pipeline checks
	// calls against, so a token created here authenticates at once.
	Tokens  auth.Store
	Clock   clock.Clock
	Profile *profile.Profile
	// Gen synthesizes the values answers are built on.
	Gen *synth.Generator
	// Caches owns the package's caches (the server's set, so they share
	// its budget and are reported with the rest). Nil makes a set of the
	// service's own.
	Caches *memo.Set
	// Check validates a JSON value against a schema as part of an answer:
	// the served document's validator (validate.Validator.Answer), so that
	// stored values are judged by the same compiled schemas as answers. It
	// is asked only about values Gen's own check (synth.Generator.Fits)
	// does not accept, which spares most first calls its compilation.
	// Nil builds a validator for the document, which takes the service's
	// nulls when the profile sends them (answers.nulls).
	Check func(schema *base.Schema, body []byte) []string
	// Refs is the index of the ids answers refer to (mock/refs), shared
	// with the synthesizer, which points its answers' ids through it. The
	// service fills it and tells it of every write. Nil makes an index of
	// the service's own.
	Refs   *refs.Index
	Logger *slog.Logger
	// Parts are the behaviours kept in packages of their own (mock/runs,
	// mock/studios, mock/datasets), which register through the Kit
	// (kit.go). The kernel imports none: without a part its operations go
	// to the generic collections or to synthesis.
	Parts []Part
}

// Service is the stateful behaviour of one document.
type Service struct {
	doc      *spec.Document
	d        Deps
	fit      *fit.Fitter
	bases    *fit.Bases
	handlers map[*spec.Operation]handler.Func
	colls    []*Collection
	ids      *idSource
	// seed fingerprints records for the caches' keys (fingerprint).
	seed maphash.Seed
	// heads holds the decoded heads of items that launches name
	// (launchrefs.go).
	heads *memo.Map[headKey, *Item]
	// users holds the decoded seeded user (user.go).
	users *memo.Map[headKey, seeded]
	// refs holds the ids answers refer to (refs.go).
	refs *refs.Index
	// copies holds the records' views that copies of them show (copies.go).
	copies copies
	// What the parts (Deps.Parts) hooked in through the Kit: the checks
	// of the ids they hold, by path parameter (held.go), what they tell
	// the reference index (refs.go), their seeding (seed.go), and what
	// they do once the collections are found.
	holds      map[string]func(req *handler.Request, id string) error
	refFills   []func(b *refs.Build) error
	seeders    []func(sd *Seed, now time.Time) error
	afterColls []func() error
	// nameMu serializes creates and renames in collections that refuse a
	// duplicate name, so two concurrent creates cannot both pass the check.
	nameMu sync.Mutex
}

// Register builds the service's behaviour for doc. It never fails on a
// document it cannot make sense of: operations it does not recognize are
// simply left to synthesis.
func Register(doc *spec.Document, d Deps) (*Service, error) {
	if d.Store == nil || d.Tokens == nil || d.Clock == nil || d.Profile == nil || d.Gen == nil {
		return nil, errors.New("resources: Store, Tokens, Clock, Profile and Gen are required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Caches == nil {
		d.Caches = memo.NewSet(0)
	}
	nulls := d.Profile.Answers.WithNulls()
	if d.Check == nil {
		opts := []validate.Option{validate.WithRegexpEngine(synth.RegexpEngine)}
		if nulls {
			opts = append(opts, validate.WithNulls())
		}
		if d.Profile.Answers.ObjectsAsAny {
			opts = append(opts, validate.WithAnyObjects())
		}
		d.Check = validate.New(doc, "", opts...).Answer
	}
	ft := fit.New(doc, d.Check, fit.WithNulls(nulls),
		fit.WithMatch(func(s *base.Schema, v any) bool { return d.Gen.Fits(s, v, synth.Response) }))
	s := &Service{
		doc:      doc,
		d:        d,
		fit:      ft,
		bases:    fit.NewBases(d.Caches, d.Gen, ft),
		seed:     maphash.MakeSeed(),
		heads:    memo.NewIn[headKey, *Item](d.Caches, "item heads", 2),
		users:    memo.NewIn[headKey, seeded](d.Caches, "seeded user", 1),
		copies:   newCopies(d.Caches),
		handlers: map[*spec.Operation]handler.Func{},
		holds:    map[string]func(*handler.Request, string) error{},
		ids:      &idSource{r: d.Gen.Rand(fmt.Sprintf("record ids %d", d.Clock.Now().UnixNano()))},
	}
	if d.Refs == nil {
		d.Refs = refs.New(d.Store, refs.WithLogger(d.Logger))
	}
	s.refs, s.d.Refs = d.Refs, d.Refs
	s.d.Store = d.Refs.Watch(d.Store, refWrites) // the reference index follows every write (refs.go)
	// Which behaviour answers an operation: the first to claim it (handle
	// never takes an operation already claimed). The specific behaviours
	// come first, the parts' among them; generic collections take what is
	// left of the document's list/describe/create shapes, and
	// sub-resources (a run's log) keep their synthesized answers behind an
	// existence check.
	s.registerTokens()
	k := s.kit()
	for _, part := range d.Parts {
		if err := part(k); err != nil {
			return nil, err
		}
	}
	for _, register := range []func(){
		s.registerUser,
		s.registerCatalogue,
		s.registerCollections,
	} {
		register()
	}
	for _, after := range s.afterColls {
		if err := after(); err != nil {
			return nil, err
		}
	}
	for _, register := range []func(){
		s.registerAdds,
		s.registerSwitches, // switches.go
		s.registerVersions,
		s.registerViews,
		s.registerSubresources,
	} {
		register()
	}
	// The environments a launch may run on are filed per context (see
	// fileByContext).
	if ce := s.namedBy("computeEnvId"); ce != nil && !ce.Indexed() {
		if err := d.Store.Index(ce.listPath, fileByContext); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fingerprint hashes a record's content for a cache key, so that a
// changed record is read again. The hashes are never stored, nor compared
// across services.
func (s *Service) fingerprint(b []byte) uint64 { return maphash.Bytes(s.seed, b) }

// Handlers returns the operations the service answers, for the server's
// handler table.
func (s *Service) Handlers() map[*spec.Operation]handler.Func { return s.handlers }

// Collections lists the list paths handled as generic collections, for
// logs and tests.
func (s *Service) Collections() []string {
	out := make([]string, 0, len(s.colls))
	for _, c := range s.colls {
		out = append(out, c.listPath)
	}
	return out
}

// op finds the operation for a method and path template.
func (s *Service) op(method, path string) *spec.Operation {
	for _, o := range s.doc.Operations {
		if o.Method == method && o.Path == path {
			return o
		}
	}
	return nil
}

// handle claims an operation unless a handler is already registered for
// it; the handler's errors leave through reply.
func (s *Service) handle(op *spec.Operation, h handler.Func) {
	if op == nil {
		return
	}
	if _, taken := s.handlers[op]; !taken {
		s.handlers[op] = s.replying(h)
	}
}

// RequestObject is a call's JSON object body: the value decoded once for
// the call (handler.Request.Decoded) where there is one, else the body
// decoded here. The handler owns it: nothing else reads it after the
// validator has.
func RequestObject(req *handler.Request) (map[string]any, error) {
	if m, ok := req.Decoded.Value().(map[string]any); ok {
		return m, nil
	}
	return DecodeObject(req.Body)
}

// DecodeObject reads a JSON object body, keeping numbers exact.
func DecodeObject(body []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, Fail(ErrBadInput, "request body is not a JSON object: %v", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// WorkspaceOf reads the workspaceId query parameter; ok is false when the
// call acts in the caller's personal context.
func WorkspaceOf(q url.Values) (id int64, ok bool, err error) {
	v := q.Get("workspaceId")
	if v == "" {
		return 0, false, nil
	}
	id, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil {
		return 0, false, Fail(ErrBadInput, "query parameter workspaceId=%q is not a number", v)
	}
	return id, true, nil
}

// Success encodes v as the operation's success answer (no content when
// the operation answers none or v is nil).
func Success(op *spec.Operation, v any) *handler.Response {
	if op.Success.MediaType == "" || v == nil {
		return handler.NoContent(op.Success.Status)
	}
	return &handler.Response{Status: op.Success.Status, Body: v, MediaType: op.Success.MediaType}
}

func SuccessSchema(op *spec.Operation) *spec.Schema {
	if op == nil || !spec.IsJSON(op.Success.MediaType) {
		return nil
	}
	return op.SchemaOf(op.Success.Schema)
}

func RequestSchema(op *spec.Operation) *spec.Schema {
	if op == nil || op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Content == nil {
		return nil
	}
	for m := op.Op.RequestBody.Content.First(); m != nil; m = m.Next() {
		if spec.IsJSON(m.Key()) && m.Value() != nil {
			return op.SchemaOf(m.Value().Schema)
		}
	}
	return nil
}

// hasBody reports whether the operation takes a request body of any media
// type.
func hasBody(op *spec.Operation) bool {
	return op != nil && op.Op != nil && op.Op.RequestBody != nil &&
		op.Op.RequestBody.Content != nil && op.Op.RequestBody.Content.Len() > 0
}

// declares reports whether the operation documents an answer status.
func declares(op *spec.Operation, status string) bool {
	if op == nil || op.Op == nil || op.Op.Responses == nil || op.Op.Responses.Codes == nil {
		return false
	}
	_, ok := op.Op.Responses.Codes.Get(status)
	return ok
}

// idSource hands out record ids: random base62 for string ids, so ids do
// not reveal counts, from a stream seeded by the generator so a test run is
// repeatable.
type idSource struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (g *idSource) next(n int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return synth.IDN(g.r, n)
}

// InsertRecord inserts the record build makes for a fresh id from newID,
// trying again on the (rare) collision with an existing record. The record
// is complete when it is inserted, so no reader ever sees half of it.
func InsertRecord(st store.Store, coll string, newID func() (string, error), build func(id string) (store.Record, error)) (store.Record, error) {
	for range 64 {
		id, err := newID()
		if err != nil {
			return store.Record{}, err
		}
		r, err := build(id)
		if err != nil {
			return store.Record{}, err
		}
		r.ID = id
		out, err := st.Insert(coll, r)
		if errors.Is(err, store.ErrExists) {
			continue
		}
		return out, err
	}
	return store.Record{}, errors.New("resources: could not find a free record id")
}

// upsert is store.Upsert, under the name the package's writers use.
var upsert = store.Upsert
