package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/gcpause"
	"github.com/wmsmock/wmsmock/internal/pretouch"
	"github.com/wmsmock/wmsmock/internal/ratewindow"
	"github.com/wmsmock/wmsmock/internal/token68"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
	"github.com/wmsmock/wmsmock/profile"
)

// serveConfig is everything `wmsmock serve` is told, before validation.
type serveConfig struct {
	addr      string
	specs     []string // FILE or VERSION=FILE
	basePath  string
	seed      int64
	tokens    []string
	profile   string
	rateLimit string
	log       cliflag.LogFlags // flags.go
	// State: where it is saved, how often, what a fresh fake starts with,
	// and the token that opens the admin endpoints beyond loopback.
	stateFile     string
	stateInterval time.Duration
	fixtures      string
	adminToken    string
	// requestTimeout bounds every API call (0: unbounded).
	requestTimeout time.Duration
	// replay is a session recorded by `wmsmock proxy --record`.
	replay string
	tls    tlsConfig // serve_tls.go
	// store is where records live: "" (this process) or a redis:// URL.
	store string
	// strictRequests refuses request bodies that differ from the document
	// where the service would read them anyway (profile requests.strict).
	strictRequests bool
	// warmUp compiles every operation in the background once serving, so
	// first calls made later are as fast as any other.
	warmUp bool
}

func parseServe(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	var envErrs []string
	c := serveConfig{}
	fs := cliflag.NewFlagSet("serve", "Start the fake Workflow Management Service.")
	fs.SetOutput(stderr)
	specs := cliflag.EnvList(getenv, "WMSMOCK_SPEC")
	tokens := cliflag.EnvList(getenv, "WMSMOCK_TOKEN")
	fs.StringVar(&c.addr, "addr", cliflag.EnvString(getenv, "WMSMOCK_ADDR", "127.0.0.1:8080"), "`host:port` to listen on [WMSMOCK_ADDR]")
	fs.Var(specs, "spec", "OpenAPI document to serve, as `FILE` or VERSION=FILE; repeat to serve several API versions side by side (default: the embedded description) [WMSMOCK_SPEC, comma-separated]")
	fs.StringVar(&c.basePath, "base-path", cliflag.EnvString(getenv, "WMSMOCK_BASE_PATH", mock.DefaultBasePath), "path the API is mounted under [WMSMOCK_BASE_PATH]")
	fs.Int64Var(&c.seed, "seed", cliflag.EnvInt(getenv, "WMSMOCK_SEED", 1, &envErrs), "seed for generated data: the same seed and request give the same body [WMSMOCK_SEED]")
	fs.Var(tokens, "token", "an access `VALUE` the fake accepts besides the development token; repeatable [WMSMOCK_TOKEN, comma-separated]")
	fs.StringVar(&c.profile, "profile", cliflag.EnvString(getenv, "WMSMOCK_PROFILE", ""), "behaviour profile `FILE` overriding the embedded defaults [WMSMOCK_PROFILE]")
	fs.StringVar(&c.rateLimit, "rate-limit", cliflag.EnvString(getenv, "WMSMOCK_RATE_LIMIT", ""), "per-token rate windows, e.g. 20/s,72000/h, or off (default: the profile's) [WMSMOCK_RATE_LIMIT]")
	c.log.Register(fs, getenv, "debug (logs every request), info, warn or error")
	fs.StringVar(&c.stateFile, "state-file", cliflag.EnvString(getenv, "WMSMOCK_STATE_FILE", ""), "keep state in `FILE`: loaded at start (an unreadable file stops the start), saved atomically on shutdown and every --state-interval [WMSMOCK_STATE_FILE]")
	fs.DurationVar(&c.stateInterval, "state-interval", cliflag.EnvDuration(getenv, "WMSMOCK_STATE_INTERVAL", 30*time.Second, &envErrs), "how often to save the state file while serving; 0 saves only on shutdown [WMSMOCK_STATE_INTERVAL]")
	fs.StringVar(&c.fixtures, "fixtures", cliflag.EnvString(getenv, "WMSMOCK_FIXTURES", ""), "seed a fresh fake from the seed files in `DIR` instead of the built-in ones [WMSMOCK_FIXTURES]")
	fs.DurationVar(&c.requestTimeout, "request-timeout", cliflag.EnvDuration(getenv, "WMSMOCK_REQUEST_TIMEOUT", mock.DefaultRequestTimeout, &envErrs), "longest one API call may take; past it the call ends with a 500 and an Error ID naming the operation and stage; 0 for no limit [WMSMOCK_REQUEST_TIMEOUT]")
	fs.StringVar(&c.adminToken, "admin-token", cliflag.EnvString(getenv, "WMSMOCK_ADMIN_TOKEN", ""), "open /_mock/admin/ to any caller sending this bearer `TOKEN` (default: loopback callers only) [WMSMOCK_ADMIN_TOKEN]")
	fs.StringVar(&c.replay, "replay", cliflag.EnvString(getenv, "WMSMOCK_REPLAY", ""), "answer the calls recorded in `FILE` (by wmsmock proxy --record) as the service answered them [WMSMOCK_REPLAY]")
	tlsHosts := c.tls.declare(fs, getenv, &envErrs) // serve_tls.go
	fs.StringVar(&c.store, "store", cliflag.EnvString(getenv, "WMSMOCK_STORE", ""), "keep records, tokens, rate counters and the clock in Redis, `redis://HOST:PORT/DB`, so several replicas serve one state (default: this process's memory) [WMSMOCK_STORE]")
	fs.BoolVar(&c.strictRequests, "strict-requests", cliflag.EnvBool(getenv, "WMSMOCK_STRICT_REQUESTS", false, &envErrs), "refuse, with a 400 naming each, request bodies that differ from the document where the service would read them anyway (nulls, numbers for strings, a missing discriminator...): the profile's requests.strict [WMSMOCK_STRICT_REQUESTS]")
	fs.BoolVar(&c.warmUp, "warm-up", cliflag.EnvBool(getenv, "WMSMOCK_WARM_UP", true, &envErrs), "once serving, compile in the background what each operation's first call would, reads first, so later first calls are fast; false leaves each to its first call [WMSMOCK_WARM_UP]")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	c.specs, c.tokens, c.tls.hosts = specs.Values(), tokens.Values(), tlsHosts.Values()
	if len(envErrs) > 0 {
		return c, errors.New(strings.Join(envErrs, "; "))
	}
	return c, c.validate()
}

// validate checks what can be checked before anything starts, so a typo is
// reported at once with the flag's name.
func (c serveConfig) validate() error {
	var errs []string
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		errs = append(errs, fmt.Sprintf("--addr %q: %v", c.addr, err))
	}
	for _, s := range c.specs {
		v, file := splitSpec(s)
		if file == "" {
			errs = append(errs, fmt.Sprintf("--spec %q: no file given", s))
		}
		if strings.ContainsAny(v, " \t") {
			errs = append(errs, fmt.Sprintf("--spec %q: version must not contain spaces", s))
		}
	}
	for _, t := range c.tokens {
		if !token68.Valid(t) {
			errs = append(errs, fmt.Sprintf("--token: %q is not a valid bearer token (letters, digits and -._~+/ only)", t))
		}
	}
	if c.store != "" {
		if _, err := redisstore.ParseURL(c.store); err != nil {
			errs = append(errs, fmt.Sprintf("--store %q: %v", c.store, err))
		} else if c.stateFile != "" {
			errs = append(errs, "--store and --state-file do not go together: Redis keeps the state")
		}
	}
	if c.rateLimit != "" && c.rateLimit != "off" {
		if _, err := ratewindow.Parse(c.rateLimit); err != nil {
			errs = append(errs, fmt.Sprintf("--rate-limit %q: %v", c.rateLimit, err))
		}
	}
	errs = append(errs, c.log.Check()...)
	if c.stateInterval < 0 {
		errs = append(errs, fmt.Sprintf("--state-interval %s: must not be negative", c.stateInterval))
	}
	if c.requestTimeout < 0 {
		errs = append(errs, fmt.Sprintf("--request-timeout %s: must not be negative", c.requestTimeout))
	}
	if c.fixtures != "" {
		if info, err := os.Stat(c.fixtures); err != nil || !info.IsDir() {
			errs = append(errs, fmt.Sprintf("--fixtures %q: not a directory", c.fixtures))
		}
	}
	if c.replay != "" {
		if info, err := os.Stat(c.replay); err != nil || info.IsDir() {
			errs = append(errs, fmt.Sprintf("--replay %q: not a readable file", c.replay))
		}
	}
	if c.adminToken != "" && !token68.Valid(c.adminToken) {
		errs = append(errs, "--admin-token: not a valid bearer token (letters, digits and -._~+/ only)")
	}
	errs = append(errs, c.tls.problems()...)
	return cliflag.Problems(errs)
}

// splitSpec reads VERSION=FILE; a plain FILE serves the default version.
// A path that itself contains '=' can be given as "1=path".
func splitSpec(s string) (version, file string) {
	if v, f, ok := strings.Cut(s, "="); ok && !strings.ContainsAny(v, "/\\.") {
		return v, f
	}
	return "", s
}

func (c serveConfig) options(logger *slog.Logger) ([]mock.Option, error) {
	opts := []mock.Option{
		mock.WithAddr(c.addr),
		mock.WithBasePath(c.basePath),
		mock.WithSeed(c.seed),
		mock.WithTokens(c.tokens...),
		mock.WithLogger(logger),
		mock.WithRequestTimeout(c.requestTimeout),
	}
	for _, s := range c.specs {
		v, file := splitSpec(s)
		opts = append(opts, mock.WithSpecFile(v, file))
	}
	if c.profile != "" {
		p, err := profile.Load(c.profile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, mock.WithProfile(p))
	}
	if c.fixtures != "" {
		opts = append(opts, mock.WithFixturesDir(c.fixtures))
	}
	if c.adminToken != "" {
		opts = append(opts, mock.WithAdminToken(c.adminToken))
	}
	if c.replay != "" {
		opts = append(opts, mock.WithReplay(c.replay))
	}
	if c.strictRequests {
		opts = append(opts, mock.WithStrictRequests())
	}
	if c.warmUp {
		opts = append(opts, mock.WithWarmUp())
	}
	opts = append(opts, c.tls.options()...)
	// Where the state lives: one of --store and --state-file (parse
	// refuses both), else this process's memory.
	switch {
	case c.store != "":
		// Records, tokens, rate counters and the clock's advance, all in
		// the one Redis the replicas share.
		client, err := redisstore.Dial(c.store, 2*time.Second)
		if err != nil {
			return nil, err
		}
		opts = append(opts, mock.WithState(mock.InRedis(client, "wmsmock")))
	case c.stateFile != "":
		opts = append(opts, mock.WithState(mock.InFile(c.stateFile, c.stateInterval)))
	}
	switch c.rateLimit {
	case "":
	case "off":
		opts = append(opts, mock.WithRateLimit(nil))
	default:
		w, err := ratewindow.Parse(c.rateLimit)
		if err != nil {
			return nil, err
		}
		opts = append(opts, mock.WithRateLimit(w))
	}
	return opts, nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseServe(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("serve", err, stderr)
	}
	// Loading fills tens of megabytes the process has never touched; the
	// kernel makes them resident beside it, not one fault at a time in its
	// way (internal/pretouch).
	pretouch.Heap(cfg.loadingHeap())
	logger := cfg.log.Logger(stderr)
	cleanup, err := cfg.tls.prepare() // serve_tls.go
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock serve: %v\n", err)
		return 1
	}
	defer cleanup()
	opts, err := cfg.options(logger)
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock serve: %v\n", err)
		return 1
	}
	started := time.Now()
	var startup []mock.StartupPhase
	opts = append(opts, mock.WithStartupReport(func(p []mock.StartupPhase) { startup = p }))
	resumeGC := gcpause.Pause(gcpause.StartupBound)
	srv, err := mock.New(opts...)
	resumeGC()
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock serve: %v\n", err)
		return 1
	}
	if err := srv.Start(); err != nil {
		fmt.Fprintf(stderr, "wmsmock serve: listening on %s: %v\n", cfg.addr, err)
		return 1
	}
	took := time.Since(started)
	printBanner(stdout, srv, took)
	logger.Info("serving", "url", srv.BaseURL(), "versions", strings.Join(srv.Versions(), ","),
		"ready_in", took, slog.Group("startup", startupAttrs(startup)...))
	<-ctx.Done()
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Shutdown also writes the state file one last time.
	if err := srv.Shutdown(shutdownCtx); err != nil {
		fmt.Fprintf(stderr, "wmsmock serve: shutdown: %v\n", err)
		return 1
	}
	if cfg.stateFile != "" {
		logger.Info("state saved", "file", cfg.stateFile)
	}
	return 0
}

// startupAttrs renders the start-up breakdown as log attributes, one per
// step, so a JSON log line carries it as an object of nanosecond counts.
func startupAttrs(phases []mock.StartupPhase) []any {
	attrs := make([]any, 0, len(phases))
	for _, p := range phases {
		attrs = append(attrs, slog.Duration(p.Name, p.Duration))
	}
	return attrs
}

// loadingHeap estimates what the fake allocates while it starts: about 64
// bytes for each byte of each document it loads, and 4 MiB besides
// (measured: 13.4 MiB for the embedded document of 161 KB, 35.4 MiB for
// the published schema of 570 KB). A document that cannot be read counts
// nothing; loading reports it.
func (c serveConfig) loadingHeap() int {
	const perByte, fixed = 64, 4 << 20
	if len(c.specs) == 0 {
		return fixed + perByte*len(fixtures.OpenAPI())
	}
	n := fixed
	for _, s := range c.specs {
		_, file := splitSpec(s)
		if fi, err := os.Stat(file); err == nil {
			n += perByte * int(fi.Size())
		}
	}
	return n
}

func printBanner(w io.Writer, srv *mock.Server, took time.Duration) {
	for _, v := range srv.Versions() {
		doc, _ := srv.Document(v)
		fmt.Fprintf(w, "wmsmock: serving %q %s as API version %s (%d operations)\n", doc.Title, doc.Version, v, len(doc.Operations))
	}
	fmt.Fprintf(w, "wmsmock: ready in %s at %s\n", took.Round(time.Millisecond), srv.BaseURL())
	curlTLS := printTLS(w, srv) // serve_tls.go
	fmt.Fprintf(w, "wmsmock: try   curl %s-H 'Authorization: Bearer %s' %s/workflow\n", curlTLS, mock.DevToken, srv.BaseURL())
	fmt.Fprintf(w, "wmsmock: every operation, with examples and \"Try it out\": %s/_mock/docs\n", srv.URL())
	fmt.Fprintf(w, "wmsmock: the served document is at %s/_mock/openapi.yaml; stop with Ctrl-C\n", srv.URL())
}
