package mock

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// Warming up: each operation compiles what its calls need (its request's
// schemas for the validator, its answer's schema for the generator, its
// example's check) on its first call, and on the published schema a read
// can reach a hundred components that way: tens of milliseconds, more in
// a new process, whose memory the kernel has yet to supply. With
// WithWarmUp the server does that work itself once it is listening, for
// the reads (a client's first calls are reads): first every component
// their answers reach, one at a time and each after those it refers to
// (synth.ComponentRefs, synth.Generator.PrepareRef), then each read as
// its first call would (warm). It runs the functions a call runs, under
// the same locks and into the same caches, so a call that comes before
// the warm-up reached what it needs compiles it as it always did, and
// what is compiled does not depend on who compiled it first: nothing of
// it shows in an answer.
//
// Go gives goroutines no priorities, so the warm-up makes itself the
// lowest: one goroutine, small steps (a component, a read), and a step
// only begins when the server has answered and begun no call for a
// moment (warmSettle) since calls last came. A client's first calls, sent
// as soon as the health check says ready, thus run alone, as they would
// without a warm-up; calls that come while a step runs wait at most for
// that step. It never delays readiness (it starts after the listener),
// and it stops when the server shuts down.

// WithWarmUp has Start compile, in the background, what each operation's
// first call would compile, so first calls made later in a process's life
// are as fast as any other. `wmsmock serve` turns it on; a test suite that
// starts many short-lived fakes is better off without it.
func WithWarmUp() Option {
	return func(s *settings) error {
		s.warmUp = true
		return nil
	}
}

// warming is the background warm-up's handle, and the count of calls
// being answered that it waits on.
type warming struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	// running is set while the warm-up runs: only then are calls counted.
	running atomic.Bool
	// calls is the number of calls being answered, and started the
	// number begun, counted by serving.
	calls, started atomic.Int64
	// quiet is signalled when calls falls to zero.
	quiet chan struct{}
	// seen is started as the last step found it (waitQuiet's own).
	seen int64
	// settle is warmSettle, shorter in tests.
	settle time.Duration
}

// warmSettle is how long the server must have begun no call before the
// warm-up takes a step after calls came: a client that polls the health
// check and then calls at once, or a suite making its calls one after the
// other, is not made to wait for a step begun between two of its calls.
const warmSettle = 50 * time.Millisecond

// serving counts the calls h answers while the warm-up runs, so that it
// can wait for a moment without any. Past the warm-up a call costs one
// atomic load here.
func (w *warming) serving(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if !w.running.Load() {
			h.ServeHTTP(rw, r)
			return
		}
		w.started.Add(1)
		w.calls.Add(1)
		defer func() {
			if w.calls.Add(-1) == 0 {
				select {
				case w.quiet <- struct{}{}:
				default:
				}
			}
		}()
		h.ServeHTTP(rw, r)
	})
}

// waitQuiet returns when the warm-up may take its next step: at once when
// no call has begun since the last step, else once none has been answered
// or begun for warmSettle; false when ctx ends first.
func (w *warming) waitQuiet(ctx context.Context) bool {
	for ctx.Err() == nil {
		for w.calls.Load() > 0 {
			select {
			case <-w.quiet:
			case <-ctx.Done():
				return false
			}
		}
		n := w.started.Load()
		if n == w.seen {
			return true
		}
		t := time.NewTimer(w.settle)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
		if w.started.Load() == n && w.calls.Load() == 0 {
			w.seen = n
			return true
		}
	}
	return false
}

// start starts the warm-up of apis once.
func (w *warming) start(apis []*api) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done, w.quiet = cancel, make(chan struct{}), make(chan struct{}, 1)
	w.seen = -1 // the first step waits for a settled moment too
	w.settle = warmSettle
	w.running.Store(true)
	go func() {
		defer close(w.done)
		defer w.running.Store(false)
		warmUpAll(ctx, apis, w.waitQuiet)
	}()
}

// stop stops the warm-up and waits for the operation it is on.
func (w *warming) stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.mu.Unlock()
	if done == nil {
		return
	}
	cancel()
	<-done
}

// warmUpAll warms the reads of each of apis in turn (each served document
// once, the default version's first): the components their answers reach,
// then each read. Before each step it calls ready, which waits for its
// turn and says whether to go on.
func warmUpAll(ctx context.Context, apis []*api, ready func(context.Context) bool) {
	for _, a := range apis {
		reads := a.reads()
		var refs []string
		var idx *index.SpecIndex
		if !ready(ctx) {
			return
		}
		a.doc.Guard(func() { refs, idx = answerComponents(a.doc, reads), a.doc.Model.Index })
		for _, ref := range refs {
			if !ready(ctx) {
				return
			}
			a.synth.gen.PrepareRef(idx, ref)
		}
		for _, op := range reads {
			if !ready(ctx) {
				return
			}
			a.warm(op)
		}
	}
}

// reads are the document's GET operations, in route order.
func (a *api) reads() []*spec.Operation {
	var out []*spec.Operation
	for _, op := range a.doc.Operations {
		if op.Method == http.MethodGet {
			out = append(out, op)
		}
	}
	return out
}

// answerComponents lists the components the JSON answers of ops reach,
// each after those it refers to (synth.ComponentRefs). The caller holds
// the document's lock.
func answerComponents(doc *spec.Document, ops []*spec.Operation) []string {
	var roots []*yaml.Node
	for _, op := range ops {
		if sp := op.Success.Schema; sp != nil && spec.IsJSON(op.Success.MediaType) {
			if lp := sp.GoLow(); lp != nil {
				roots = append(roots, lp.GetValueNode())
			}
		}
	}
	components := map[string]*yaml.Node{}
	if c := doc.Model.Components; c != nil && c.Schemas != nil {
		for name, sp := range c.Schemas.FromOldest() {
			if lp := sp.GoLow(); lp != nil {
				components[name] = lp.GetValueNode()
			}
		}
	}
	return synth.ComponentRefs(roots, components)
}

// warm does what the first call to op compiles, through the functions
// that call runs: the validator's compile of its parameters and request
// body (Validator.Warm, which Request calls first), and for its answer
// either the example check and the generator's compile of the schema (an
// operation the synthesizer answers) or the generator's compile of the
// answer's schema alone, whose components the service's own handlers
// generate their records from.
func (a *api) warm(op *spec.Operation) {
	a.validator.Warm(op)
	succ := op.Success
	if succ.Schema == nil || !spec.IsJSON(succ.MediaType) {
		return
	}
	if _, handled := a.handlers[op]; !handled && a.synth.example(op) != nil {
		return
	}
	// Resolved under the document's lock, as every first use of the model
	// is; the proxy keeps what it resolved, so the call reads the same
	// schema.
	var schema *base.Schema
	a.doc.Guard(func() { schema = succ.Schema.Schema() })
	a.synth.gen.Prepare(schema)
}
