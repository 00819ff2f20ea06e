// Package mock is the fake Workflow Management Service as a Go library.
//
// A Server answers every operation of an OpenAPI document the way the real
// service does (CONTRACT.md): it wants a Bearer token on every call, counts
// calls per token, answers bad input with a Bad Request carrying an Error ID,
// and serves schema-valid bodies. It has the shape of httptest.Server, so an
// integrator can run it inside their own tests:
//
//	srv, err := mock.New()
//	...
//	if err := srv.Start(); err != nil { ... }
//	defer srv.Close()
//	req, _ := http.NewRequest("GET", srv.URL()+"/api/workflow", nil)
//	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
//
// The files: server.go builds a Server (New and its set-up steps);
// pipeline.go is the request pipeline, serveHTTP (the handler Handler
// returns) then serveAPI, one stage after the other in the order the
// service makes its checks; answer.go writes what the pipeline decided and
// records the call. Each stage's own work lives in a file named for it
// (lenient.go, faults.go, extensions.go, replay.go...), and
// docs/architecture.md lists the stages (a test holds it to stageNames).
package mock

import (
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/ratewindow"
	"github.com/wmsmock/wmsmock/internal/stopwatch"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// DevToken is a token every Server accepts, so a developer can call the fake
// without creating one first.
const DevToken = auth.DevToken

// Server is a running (or ready to run) fake.
type Server struct {
	basePath string
	versions map[string]*api
	// versionList is the served versions, sorted, for messages and control.
	versionList []string
	profile     *profile.Profile
	// backend holds the state: records, tokens, rate counters and the
	// clock's advance, wherever the options keep them (state_options.go
	// chooses).
	backend *backend.Backend
	clock   *clock.Offset // the backend's: the control API can move a live server's time
	// authOptions widen the token check as the profile says (Basic
	// "@token:" credentials).
	authOptions []auth.CheckOption
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
	// listening is the server Start runs (lifecycle.go).
	listening listening
	// references are the reference page's documents (reference.go).
	references referenceCache
	// faultRules inject the faults and overrides asked for (faults.go).
	faultRules faultState
	// downloads serves the data links' download URLs (downloads.go).
	downloads downloads
	// ext answers the calls beyond the schema (extensions.go).
	ext extensions
	// warmUp and warming: the background warm-up after Start (warm.go).
	warmUp  bool
	warming warming
}

// New builds a Server from options. With none it serves the embedded
// description of the service, version 1, under /api.
func New(opts ...Option) (*Server, error) {
	watch := stopwatch.New()
	s := settings{basePath: DefaultBasePath, seed: 1, addr: "127.0.0.1:0", timeout: DefaultRequestTimeout}
	for _, o := range opts {
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.profile == nil {
		s.profile = profile.Default()
	}
	if s.strictRequests && !s.profile.Requests.Strict {
		s.profile = s.profile.Clone()
		s.profile.Requests.Strict = true
	}
	if err := s.profile.Validate(); err != nil {
		return nil, fmt.Errorf("behaviour profile: %w", err)
	}
	srv := &Server{
		basePath:      normalizeBasePath(s.basePath),
		versions:      map[string]*api{},
		profile:       s.profile,
		logger:        s.logger,
		requests:      control.NewRequestJournal(1000),
		caches:        memo.NewSet(s.cacheBudget),
		strict:        s.strict,
		timeout:       s.timeout,
		bodyLimit:     int64(s.profile.BodyLimit.Max),
		listening:     listening{addr: s.addr},
		startup:       watch,
		startupReport: s.startupReport,
		warmUp:        s.warmUp,
	}
	if s.profile.Auth.BasicToken {
		srv.authOptions = []auth.CheckOption{auth.BasicToken()}
	}
	srv.errors = apierror.NewWriter(apierror.PolicyFrom(s.profile), apierror.NewIDSource(nil),
		apierror.NewJournal(1000), s.logger, func() time.Time { return srv.clock.Now() })

	if err := srv.loadVersions(s); err != nil {
		return nil, err
	}
	if err := srv.installHandlers(s.handlers); err != nil {
		return nil, err
	}
	if err := srv.loadReplay(s.replay); err != nil { // replay.go
		return nil, err
	}
	if err := srv.openBackend(s); err != nil {
		return nil, err
	}
	if err := srv.setupExtensions(s); err != nil { // extensions.go
		return nil, err
	}
	if err := srv.setupFaults(s); err != nil { // faults.go
		return nil, err
	}
	if err := srv.setupTLS(s); err != nil { // tls.go
		return nil, err
	}
	watch.Lap("setup")
	if err := srv.setupState(s); err != nil { // state.go: the handlers over the backend, seeded
		return nil, err
	}
	srv.control = control.New(admin{s: srv, token: s.state.adminToken})
	watch.Lap("state")
	srv.ready.Store(true)
	return srv, nil
}

func (s *Server) loadVersions(cfg settings) error {
	sources := cfg.specs
	if len(sources) == 0 {
		sources = []specSource{{version: DefaultVersion, bytes: fixtures.OpenAPI()}}
	}
	for _, src := range sources {
		version := src.version
		if version == "" {
			version = s.profile.Versions.Default
		}
		if _, dup := s.versions[version]; dup {
			return fmt.Errorf("API version %q is given more than one document", version)
		}
		doc := src.doc
		var err error
		switch {
		case doc != nil:
		case src.path != "":
			doc, err = spec.LoadFile(src.path)
		default:
			doc, err = spec.Load(src.bytes)
		}
		if err != nil {
			return err
		}
		if src.doc == nil {
			s.startup.Merge(doc.LoadTimes)
		}
		s.startup.Reset()
		s.versions[version] = newAPI(version, doc, s.basePath, cfg.seed, s.caches, s.profile.Answers, requestPolicy(s.profile))
		s.startup.Lap("validator")
		s.versionList = append(s.versionList, version)
	}
	// A version the profile serves without a document of its own is
	// answered by the default version's document.
	def, ok := s.versions[s.profile.Versions.Default]
	if !ok {
		return fmt.Errorf("no document is served as the default API version %q (served: %s)",
			s.profile.Versions.Default, strings.Join(s.versionList, ", "))
	}
	for _, v := range s.profile.Versions.Served {
		if _, ok := s.versions[v]; !ok {
			s.versions[v] = def
			s.versionList = append(s.versionList, v)
		}
	}
	sort.Strings(s.versionList)
	return nil
}

// installHandlers puts caller-given handlers in front of the fake's own.
func (s *Server) installHandlers(handlers map[string]handler.Func) error {
	for id, h := range handlers {
		found := false
		for _, a := range s.versions {
			for _, op := range a.doc.Operations {
				if op.ID == id {
					a.handlers[op], a.external[op], found = h, true, true
				}
			}
		}
		if !found {
			return fmt.Errorf("WithHandler: no served document has an operation %q", id)
		}
	}
	return nil
}

// openBackend opens the state backend the options ask for, with the
// configured tokens and the rate windows the profile or WithRateLimit
// give.
func (s *Server) openBackend(cfg settings) error {
	fx := auth.Fixtures()
	for _, t := range s.profile.Tokens {
		fx = append(fx, auth.Fixture{Name: t.Name, Value: t.Value, Expires: t.Expires})
	}
	for i, v := range cfg.tokens {
		fx = append(fx, auth.Fixture{Name: fmt.Sprintf("token-%d", i+1), Value: v})
	}
	windows := cfg.rateWindows
	if !cfg.rateSet {
		windows = nil
		if s.profile.RateLimit.Enabled {
			var err error
			windows, err = ratewindow.Parse(strings.Join(s.profile.RateLimit.Windows, ","))
			if err != nil {
				return fmt.Errorf("behaviour profile: rate limit: %w", err)
			}
		}
	}
	b, err := cfg.state.openBackend( // state_options.go
		backend.WithClock(cfg.clock),
		backend.WithLogger(s.logger),
		backend.WithTokens(fx...),
		backend.WithRateLimit(windows,
			ratelimit.WithCountRejected(s.profile.RateLimit.CountRejected),
			ratelimit.WithFixedWindows(s.profile.RateLimit.Fixed)))
	if err != nil {
		return err
	}
	s.backend, s.clock = b, b.Clock()
	return nil
}

// Handler returns the fake as an http.Handler, for callers that run their
// own server (or none: httptest.NewRecorder works too).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }
