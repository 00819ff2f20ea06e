package mock

import (
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// call is one API call on its way through the pipeline (pipeline.go):
// what the stages found out about it so far, each stage reading what the
// stages before it wrote. A stage is a method of call in a stage_*.go file
// of its own; the server is reached through s for what outlives the call.
type call struct {
	s   *Server
	r   *http.Request
	rec *recorder // where the answer goes (recorder.go)
	now time.Time // the fake's clock, read once per call

	// own and deadline are the call's recorder (rec, unless a fault
	// holds the answer) and its deadline context (pipeline.go:
	// runWithin), kept in the call so that a call is one allocation,
	// not three.
	own      recorder
	deadline deadlineCtx

	// Found up front (pipeline.go: run), refused at their own stage.
	api        *api // the version the call selected
	versionErr error
	matched    *spec.Operation // the operation the path and method name
	vars       map[string]string
	ext        *extension.Route // a call beyond the schema

	// op is the operation once the route stage let the call through; with
	// phase, it is read when the call runs out of time, from another
	// goroutine while a handler runs apart, hence the atomics.
	op    atomic.Pointer[spec.Operation]
	phase atomic.Int32

	tok      auth.Token  // authentication
	result   auth.Result // authentication
	decision ratelimit.Decision

	query   url.Values      // reading the request
	body    []byte          // reading the request; as read by leniency
	decoded *jsonvalue.Lazy // validation: the body decoded once

	// replayed: the answer is a recorded one, served as recorded.
	replayed bool
	// rules, fault, injected and pinned are the fault rules of the call,
	// what they select on, the fault acting on it and the override that
	// answers it (stage_faults.go); nil when none.
	rules    *faults.Rules
	fault    *faults.Call
	injected *faults.Injection
	pinned   *faults.Pinned
	// extension names the route beyond the schema the call addressed, for
	// the journal.
	extension string
	// deviations are where the body differed from the document, refused
	// ones first (stage_leniency.go); moreDeviations counts those not
	// listed.
	deviations     []leniency.Deviation
	moreDeviations int
}

// at records that the call has reached stage i.
func (c *call) at(i int32) { c.phase.Store(i) }

// operation names the operation the call was routed to.
func (c *call) operation() string {
	if op := c.op.Load(); op != nil {
		return op.ID
	}
	return "not routed yet"
}

// The stages, in order, as phase counts them; pipeline.go's table gives
// each its name and its method.
const (
	stageAuth int32 = iota
	stageRateLimit
	stageVersion
	stageRoute
	stageFaults
	stageInput
	stageReplay
	stageLeniency
	stageValidation
	stageAnswer
)
