package mock

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
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
	"github.com/wmsmock/wmsmock/mock/https"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// Building a Server: New reads the options, then sets up each part in
// turn, the served documents first and the state last, so that a part is
// built from the parts it needs and none is filled in afterwards.

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
		versions:      served{apis: map[string]*api{}, def: s.profile.Versions.Default},
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
	var err error
	if srv.replay, err = loadReplay(s.replayFile, srv.versions.defaultAPI(), s.logger); err != nil { // replay.go
		return nil, err
	}
	if err := srv.openBackend(s); err != nil {
		return nil, err
	}
	if err := srv.setupParts(s); err != nil {
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

// loadVersions loads each served document and builds its api (api.go).
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
		if _, dup := s.versions.apis[version]; dup {
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
		s.versions.apis[version] = newAPI(version, doc, s.basePath, cfg.seed, s.caches, s.profile.Answers, requestPolicy(s.profile))
		s.startup.Lap("validator")
		s.versions.names = append(s.versions.names, version)
	}
	// A version the profile serves without a document of its own is
	// answered by the default version's document.
	def, ok := s.versions.apis[s.profile.Versions.Default]
	if !ok {
		return fmt.Errorf("no document is served as the default API version %q (served: %s)",
			s.profile.Versions.Default, strings.Join(s.versions.names, ", "))
	}
	for _, v := range s.profile.Versions.Served {
		if _, ok := s.versions.apis[v]; !ok {
			s.versions.apis[v] = def
			s.versions.names = append(s.versions.names, v)
		}
	}
	sort.Strings(s.versions.names)
	return nil
}

// installHandlers puts caller-given handlers in front of the fake's own.
func (s *Server) installHandlers(handlers map[string]handler.Func) error {
	for id, h := range handlers {
		found := false
		for _, a := range s.versions.apis {
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
	open := cfg.state.where // WithState (state_options.go)
	if open == nil {
		open = InMemory()
	}
	b, err := open(
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

// setupParts builds, over the open backend, the parts a call reaches
// besides the state: the calls beyond the schema, the fault rules and the
// certificate.
func (s *Server) setupParts(cfg settings) error {
	var err error
	if s.ext, err = newExtensions(cfg.seed, s.backend.Tokens(), s.profile.Extensions); err != nil { // extensions.go
		return err
	}
	s.authOptions = append(s.authOptions, auth.WithSessions(s.ext.sessions))
	s.checker = auth.NewChecker(s.authOptions...)
	s.faultRules, err = pinFaults(s.backend.Faults(), cfg.seed, s.profile, cfg.faults, cfg.overrides, &s.versions, s.clock.Now()) // faults.go
	if err != nil {
		return err
	}
	s.listening.tls, err = https.Setup(cfg.tls, s.listening.addr)
	return err
}
