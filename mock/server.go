// Package mock is the fake Workflow Management Service as a Go library.
//
// A Server answers every operation of an OpenAPI document the way the real
// service does (CONTRACT.md): it wants a Bearer token on every call, counts
// calls per token, answers bad input with a Bad Request carrying an Error
// ID, and serves schema-valid bodies. It has the shape of httptest.Server,
// so an integrator can run it inside their own tests:
//
//	srv, err := mock.New()
//	...
//	if err := srv.Start(); err != nil { ... }
//	defer srv.Close()
//	req, _ := http.NewRequest("GET", srv.URL()+"/api/workflow", nil)
//	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
//
// The files, from the bottom up: the parts a Server holds each have a file
// of their own (versions.go and api.go, faults.go, replay.go,
// extensions.go, downloads.go, reference.go, warm.go, listen.go); server.go
// is the Server and what it holds. A request is a call (call.go) that
// pipeline.go takes through the stages, one stage_*.go file each, in the
// order the service makes its checks; write.go writes the answer and
// journal.go records the call. build.go (New), options.go and the files of
// the options (state_options.go, tls.go, rules.go...) make a Server;
// lifecycle.go starts and stops it, and admin.go is the control API's view
// of it. docs/architecture.md lists the stages (a test holds it to the
// pipeline table).
package mock

import (
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/stopwatch"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/profile"
)

// DevToken is a token every Server accepts, so a developer can call the fake
// without creating one first.
const DevToken = auth.DevToken

// Server is a running (or ready to run) fake.
type Server struct {
	basePath string
	versions served
	profile  *profile.Profile
	// backend holds the state: records, tokens, rate counters and the
	// clock's advance, wherever the options keep them (state_options.go
	// chooses).
	backend *backend.Backend
	clock   *clock.Offset // the backend's: the control API can move a live server's time
	// authOptions widen the token check as the profile says (Basic
	// "@token:" credentials, the extensions' session tokens); checker
	// has them applied, for every call.
	authOptions []auth.CheckOption
	checker     auth.Checker
	errors      *apierror.Writer
	logger      *slog.Logger
	control     http.Handler
	strict      bool
	timeout     time.Duration // per API call; 0: none
	bodyLimit   int64
	ready       atomic.Bool
	requests    *control.RequestJournal
	// caches owns every cache the server's parts keep, within one budget.
	caches *memo.Set
	// startup times the steps of New and Start, for startupReport
	// (WithStartupReport).
	startup       *stopwatch.Watch
	startupReport func([]StartupPhase)
	// replay holds a recorded session's answers (WithReplay); nil: none.
	replay *replay
	// listening is the server Start runs.
	listening listening
	// references are the reference page's documents.
	references referenceCache
	// faultRules inject the faults and overrides asked for.
	faultRules *faultState
	// downloads serves the data links' download URLs.
	downloads downloads
	// ext answers the calls beyond the schema.
	ext extensions
	// warmUp and warming: the background warm-up after Start.
	warmUp  bool
	warming warming
}

// strictAny reports either strict mode: answers checked against the
// document, or requests held to it.
func (s *Server) strictAny() bool { return s.strict || s.profile.Requests.Strict }
