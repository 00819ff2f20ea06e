package mock

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/https"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// DefaultBasePath is where the API is mounted unless told otherwise: the
// service's documented examples put everything under /api.
const DefaultBasePath = "/api"

// DefaultVersion is the API version served when a call sends no
// Accept-Version header (CONTRACT V1).
const DefaultVersion = "1"

// Option configures a Server.
type Option func(*settings) error

// settings is everything New needs; options fill it, New validates it.
type settings struct {
	specs       []specSource
	basePath    string
	seed        int64
	tokens      []string
	clock       clock.Clock
	logger      *slog.Logger
	profile     *profile.Profile
	rateWindows []ratelimit.Window
	rateSet     bool
	addr        string
	strict      bool
	timeout     time.Duration
	cacheBudget int
	handlers    map[string]handler.Func
	state       stateSettings
	replayFile  string         // WithReplay (replay.go)
	tls         https.Settings // WithTLS (tls.go)
	// faults and overrides are the rules pinned from the start
	// (WithFault, WithOverride: rules.go).
	faults    []faults.Fault
	overrides []faults.Override

	startupReport func([]StartupPhase) // WithStartupReport (lifecycle.go)

	// strictRequests turns the profile's requests.strict on.
	strictRequests bool
	// warmUp compiles every operation in the background after Start
	// (warm.go).
	warmUp bool
}

// stateSettings are the options about the fake's state: where it is kept
// (state_options.go), what it starts with, and who may change it through
// the control API.
type stateSettings struct {
	// where opens the backend (WithState); nil: InMemory.
	where       func(opts ...backend.Option) (*backend.Backend, error)
	fixturesDir string
	adminToken  string
	noSeed      bool
}

// StartupPhase is one step of a server's start-up and the time it took
// (WithStartupReport).
type StartupPhase struct {
	Name     string
	Duration time.Duration
}

type specSource struct {
	version string
	path    string
	bytes   []byte
	doc     *spec.Document
}

// WithSpecFile serves the OpenAPI document at path as the given API version
// ("" means version 1). Several versions can be served side by side.
func WithSpecFile(version, path string) Option {
	return func(s *settings) error {
		s.specs = append(s.specs, specSource{version: version, path: path})
		return nil
	}
}

// WithDocument serves an already loaded document. Tests that start many
// servers on one large document use it to parse the document once.
func WithDocument(version string, doc *spec.Document) Option {
	return func(s *settings) error {
		s.specs = append(s.specs, specSource{version: version, doc: doc})
		return nil
	}
}

// WithBasePath mounts the API under p (default /api; "/" for the root).
func WithBasePath(p string) Option {
	return func(s *settings) error {
		s.basePath = p
		return nil
	}
}

// WithSeed makes synthesized bodies depend on seed: the same seed and the
// same request always give the same body.
func WithSeed(seed int64) Option {
	return func(s *settings) error {
		s.seed = seed
		return nil
	}
}

// WithTokens adds access tokens the fake accepts, besides the built-in
// development tokens.
func WithTokens(values ...string) Option {
	return func(s *settings) error {
		s.tokens = append(s.tokens, values...)
		return nil
	}
}

// WithClock sets the clock behind token expiry, rate limits, timestamps and
// lifecycles. Tests pass a clock.Fake and move it instead of sleeping.
func WithClock(c clock.Clock) Option {
	return func(s *settings) error {
		s.clock = c
		return nil
	}
}

// WithLogger sets where the fake logs; by default it is silent.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error {
		s.logger = l
		return nil
	}
}

// WithProfile replaces the embedded behaviour profile.
func WithProfile(p *profile.Profile) Option {
	return func(s *settings) error {
		s.profile = p
		return nil
	}
}

// WithRateLimit overrides the profile's rate windows; nil or empty turns
// rate limiting off.
func WithRateLimit(windows []ratelimit.Window) Option {
	return func(s *settings) error {
		s.rateWindows, s.rateSet = windows, true
		return nil
	}
}

// WithAddr sets the address Start listens on (default 127.0.0.1:0, a free
// port on loopback).
func WithAddr(addr string) Option {
	return func(s *settings) error {
		s.addr = addr
		return nil
	}
}

// WithStrictResponses checks every answer against the document before it is
// sent; an answer the document rejects becomes a 500 with an Error ID. It
// costs time on every call, so it is meant for tests.
func WithStrictResponses() Option {
	return func(s *settings) error {
		s.strict = true
		return nil
	}
}

// WithStrictRequests refuses every request body that differs from the
// document, even where the service reads it anyway (a null for an
// optional property, a number for a string, a discriminator left to its
// sibling...): the profile's requests.strict, set over whatever profile
// the server has. The refusal is the usual Bad Request, and its Error ID
// names each deviation. For integrators who want their client held to the
// published schema itself.
func WithStrictRequests() Option {
	return func(s *settings) error {
		s.strictRequests = true
		return nil
	}
}

// DefaultRequestTimeout bounds every API call unless WithRequestTimeout says
// otherwise: far above what any answer takes, far below what a client waits
// before it gives up.
const DefaultRequestTimeout = 5 * time.Second

// WithRequestTimeout bounds the time the fake spends on one API call. Past
// it the call is answered with the profile's internal-error reply and an
// Error ID whose journal entry names the operation and the stage it was in,
// and the work for it is told to stop. 0 or less turns the bound off.
func WithRequestTimeout(d time.Duration) Option {
	return func(s *settings) error {
		s.timeout = d
		return nil
	}
}

// WithCacheBudget bounds the entries the server's caches (validation
// verdicts, synthesized and rendered answers) hold together; 0 means
// memo.DefaultBudget. A smaller budget trades speed on repeated calls for
// memory.
func WithCacheBudget(entries int) Option {
	return func(s *settings) error {
		if entries < 0 {
			return errors.New("WithCacheBudget: negative budget")
		}
		s.cacheBudget = entries
		return nil
	}
}

func normalizeBasePath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || p == "/" {
		return ""
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return strings.TrimSuffix(p, "/")
}

// WithHandler answers the operation with the given operationId (or "METHOD
// /path" for operations without one) with h instead of the fake's own
// behaviour, in every served version that has it. The call still goes
// through authentication, rate limiting and validation first. Go tests use
// it to stage an answer the fake would not give by itself.
func WithHandler(operationID string, h handler.Func) Option {
	return func(s *settings) error {
		if s.handlers == nil {
			s.handlers = map[string]handler.Func{}
		}
		s.handlers[operationID] = h
		return nil
	}
}
