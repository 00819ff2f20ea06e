package mock

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
)

// synthesizer answers operations that have no behaviour of their own: the
// operation's example when the document gives a valid one, otherwise a body
// generated from the response schema. Answers are deterministic for a seed
// and a request, so they are cached (bounded) by request.
type synthesizer struct {
	// validator checks the document's examples before one is served.
	validator *validate.Validator
	gen       *synth.Generator
	cache     *memo.Map[string, []byte]

	// refs points the identifiers in a generated answer at items the
	// fake holds; nil leaves them as made. Its generation keys the cache:
	// an answer cached under an older one may name an item deleted since.
	refs *refs.Index
	// held is the state refs indexes: it brings the index up to date
	// before a call, and makes every copy of a held record in an answer
	// show the record. Set with refs.
	held heldRecords

	examples *examples
}

// heldRecords is what the synthesizer asks of the stateful behaviour
// (resources.Service).
type heldRecords interface {
	// SyncRefs brings the reference index up to date with the store.
	SyncRefs()
	// CopyRecords makes every object in v, an answer of schema sch, that
	// names a held record show that record's values.
	CopyRecords(sch *base.Schema, v any, now time.Time)
}

// examples holds each operation's valid example, found once.
type examples struct {
	mu sync.Mutex
	of map[*spec.Operation][]byte // nil when the operation has none
}

func newSynthesizer(v *validate.Validator, gen *synth.Generator, caches *memo.Set) *synthesizer {
	return &synthesizer{validator: v, gen: gen, cache: memo.NewIn[string, []byte](caches, "synthesized answers", 16),
		examples: &examples{of: map[*spec.Operation][]byte{}}}
}

// withState is a synthesizer like s (its generator, cache and examples)
// whose answers name the items held, as the index idx of held's records
// says.
func (s *synthesizer) withState(idx *refs.Index, held heldRecords) *synthesizer {
	return &synthesizer{validator: s.validator, gen: s.gen, cache: s.cache, examples: s.examples, refs: idx, held: held}
}

// fixRefs points the ids in v, a generated answer of schema sch in
// workspace ws (0: the personal context), at held items, and makes its
// copies of held records show them; it does nothing without state.
func (s *synthesizer) fixRefs(sch *base.Schema, v any, ws int64, now time.Time) {
	if s.refs == nil {
		return
	}
	s.refs.Fix(v, ws)
	s.held.CopyRecords(sch, v, now)
}

// synthesize is the synthesized answer to req, from the cache when the
// same call was answered before.
func (s *synthesizer) synthesize(req *handler.Request) (*handler.Response, error) {
	succ := req.Op.Success
	if succ.MediaType == "" {
		return handler.NoContent(succ.Status), nil
	}
	key := req.Key
	if s.refs != nil {
		s.held.SyncRefs()
		key = strconv.FormatUint(s.refs.Generation(), 36) + " " + key
	}
	if b, ok := s.cache.Get(key); ok {
		return &handler.Response{Status: succ.Status, Raw: b, MediaType: succ.MediaType}, nil
	}
	body, timed, err := s.body(req)
	if err != nil {
		return nil, err
	}
	if !timed {
		s.cache.Put(key, body)
	}
	return &handler.Response{Status: succ.Status, Raw: body, MediaType: succ.MediaType}, nil
}

// body builds the answer for req. timed reports a body that holds the
// current time, which must not be cached by request: the next call would
// get the first call's time.
func (s *synthesizer) body(req *handler.Request) (body []byte, timed bool, err error) {
	succ := req.Op.Success
	if spec.IsJSON(succ.MediaType) {
		if ex := s.example(req.Op); ex != nil {
			return ex, false, nil
		}
		v, err := s.gen.ValueContext(req.HTTP.Context(), succ.Schema.Schema(), req.Key, synth.Response)
		if err != nil {
			return nil, false, fmt.Errorf("generating the answer of %s: %w", req.Op.ID, err)
		}
		ws, _ := strconv.ParseInt(req.Query.Get("workspaceId"), 10, 64)
		s.fixRefs(succ.Schema.Schema(), v, ws, req.Now)
		b, err := json.Marshal(v)
		return b, false, err
	}
	b, timed := s.nonJSON(req)
	return b, timed, nil
}

// nonJSON gives a plausible body for text and file answers: the schema's
// string when it describes one, a short log for text, a small file otherwise.
func (s *synthesizer) nonJSON(req *handler.Request) (body []byte, timed bool) {
	succ := req.Op.Success
	mt := strings.ToLower(succ.MediaType)
	if strings.HasPrefix(mt, "text/") {
		if succ.Schema != nil {
			if str, ok := s.gen.Value(succ.Schema.Schema(), req.Key, synth.Response).(string); ok && str != "" {
				return []byte(str), false
			}
		}
		return []byte(fmt.Sprintf("N E X T F L O W  ~  version %s\nLaunching `%s` [wmsmock]\nCompleted at: %s\n",
			workflow.NextflowVersion, req.Op.Path, req.Now.UTC().Format("2006-01-02T15:04:05Z"))), true
	}
	return []byte(fmt.Sprintf("wmsmock sample file for %s\n", req.Op.Path)), false
}

// example finds an operation's example once: the media type's, else the
// response schema's own when it gives a whole answer. Published documents
// sometimes carry examples their own schema rejects; those are never
// served.
func (s *synthesizer) example(op *spec.Operation) []byte {
	s.examples.mu.Lock()
	defer s.examples.mu.Unlock()
	if ex, seen := s.examples.of[op]; seen {
		return ex
	}
	var found []byte
	candidates := [][]byte{op.Success.Example}
	if op.Success.Schema != nil {
		candidates = append(candidates, spec.SchemaExample(op.Success.Schema.Schema()))
	}
	for _, ex := range candidates {
		// Checked as an answer, with the compiled schemas answers use.
		if ex != nil && (op.Success.Schema == nil || s.validator.Answer(op.Success.Schema.Schema(), ex) == nil) {
			found = ex
			break
		}
	}
	s.examples.of[op] = found
	return found
}
