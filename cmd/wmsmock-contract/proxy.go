package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/conformance/proxy"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// proxyConfig is everything `wmsmock proxy` is told, before validation.
type proxyConfig struct {
	target   string
	addr     string
	spec     string
	basePath string
	record   string
	report   string
	timeout  time.Duration
	maxBody  int64
	progress time.Duration
	strict   bool
	log      cliflag.LogFlags // flags.go
}

func parseProxy(args []string, getenv func(string) string, stderr io.Writer) (proxyConfig, error) {
	var envErrs []string
	c := proxyConfig{}
	fs := cliflag.NewFlagSet("proxy", "Sit between a client and the service: forward every call unchanged, check calls and answers\n"+
		"against the document (drift is logged, counted per operation, served at "+proxy.ReportPath+" and written\n"+
		"on shutdown), and record the session, secrets redacted, for `wmsmock serve --replay`.")
	fs.SetOutput(stderr)
	fs.StringVar(&c.target, "target", cliflag.EnvString(getenv, "WMSMOCK_TARGET", ""), "the service's base `URL`, e.g. https://api.cloud.seqera.io (required) [WMSMOCK_TARGET]")
	fs.StringVar(&c.addr, "addr", cliflag.EnvString(getenv, "WMSMOCK_PROXY_ADDR", "127.0.0.1:8081"), "`host:port` the client calls [WMSMOCK_PROXY_ADDR]")
	fs.StringVar(&c.spec, "spec", cliflag.EnvString(getenv, "WMSMOCK_SPEC", ""), "OpenAPI document `FILE` to check against (default: the embedded description) [WMSMOCK_SPEC]")
	fs.StringVar(&c.basePath, "base-path", cliflag.EnvString(getenv, "WMSMOCK_PROXY_BASE_PATH", ""), "prefix of the client's paths that is not part of the document's paths [WMSMOCK_PROXY_BASE_PATH]")
	fs.StringVar(&c.record, "record", cliflag.EnvString(getenv, "WMSMOCK_RECORD", ""), "record the session to `FILE` (JSON Lines, secrets redacted); replaced if it exists [WMSMOCK_RECORD]")
	fs.StringVar(&c.report, "report", cliflag.EnvString(getenv, "WMSMOCK_PROXY_REPORT", "wmsmock-proxy-report"), "on shutdown write the drift report to `PREFIX`.md and PREFIX.json; - for none [WMSMOCK_PROXY_REPORT]")
	fs.DurationVar(&c.timeout, "timeout", cliflag.EnvDuration(getenv, "WMSMOCK_PROXY_TIMEOUT", proxy.DefaultTimeout, &envErrs), "longest one call may take at the target; past it the client gets a 504 [WMSMOCK_PROXY_TIMEOUT]")
	fs.Int64Var(&c.maxBody, "max-body", cliflag.EnvInt(getenv, "WMSMOCK_PROXY_MAX_BODY", proxy.DefaultMaxBody, &envErrs), "`BYTES` of each body kept for checking and recording; longer bodies pass whole, unchecked [WMSMOCK_PROXY_MAX_BODY]")
	fs.BoolVar(&c.strict, "strict-schema", cliflag.EnvBool(getenv, "WMSMOCK_STRICT_SCHEMA", false, &envErrs), "count the service's nulls in answers (null where the schema has a non-nullable property) as drift too [WMSMOCK_STRICT_SCHEMA]")
	fs.DurationVar(&c.progress, "progress", cliflag.EnvDuration(getenv, "WMSMOCK_PROXY_PROGRESS", 30*time.Second, &envErrs), "how often to log the counts so far; 0 for never [WMSMOCK_PROXY_PROGRESS]")
	c.log.Register(fs, getenv, "debug, info, warn (drift only) or error")
	if err := cliflag.ParseArgs(fs, args, envErrs); err != nil {
		return c, err
	}
	return c, c.validate()
}

// validate checks the flags before anything listens.
func (c proxyConfig) validate() error {
	var errs []string
	if c.target == "" {
		errs = append(errs, "--target is required")
	} else if u, err := url.Parse(c.target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("--target %q: want http(s)://host[:port][/path]", c.target))
	} else if u.RawQuery != "" || u.Fragment != "" {
		errs = append(errs, fmt.Sprintf("--target %q: no query or fragment, please", c.target))
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		errs = append(errs, fmt.Sprintf("--addr %q: %v", c.addr, err))
	}
	if c.spec != "" {
		if _, err := os.Stat(c.spec); err != nil {
			errs = append(errs, fmt.Sprintf("--spec %q: %v", c.spec, err))
		}
	}
	for flag, file := range map[string]string{"--record": c.record, "--report": c.report} {
		if file == "" || file == "-" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(file)); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Sprintf("%s %q: directory %s does not exist", flag, file, filepath.Dir(file)))
		}
	}
	if c.timeout <= 0 {
		errs = append(errs, fmt.Sprintf("--timeout %s: must be positive", c.timeout))
	}
	if c.maxBody <= 0 {
		errs = append(errs, fmt.Sprintf("--max-body %d: must be positive", c.maxBody))
	}
	if c.progress < 0 {
		errs = append(errs, fmt.Sprintf("--progress %s: must not be negative", c.progress))
	}
	errs = append(errs, c.log.Check()...)
	return cliflag.Problems(errs)
}

// proxyCmd runs the proxy until ctx ends; it exits 1 when it cannot start
// or its report cannot be written, 2 when the command line is wrong.
func proxyCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseProxy(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("proxy", err, stderr)
	}
	logger := cfg.log.Logger(stderr)
	var doc *spec.Document
	if cfg.spec != "" {
		doc, err = spec.LoadFile(cfg.spec)
	} else {
		doc, err = spec.Load(fixtures.OpenAPI())
	}
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock proxy: %v\n", err)
		return 1
	}
	target, _ := url.Parse(cfg.target) // validated
	p, err := proxy.New(proxy.Options{Target: target, Document: doc, BasePath: cfg.basePath, Record: cfg.record,
		Timeout: cfg.timeout, MaxBody: cfg.maxBody, Logger: logger, StrictSchema: cfg.strict})
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock %v\n", err)
		return 1
	}
	l, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		_ = p.Close()
		fmt.Fprintf(stderr, "wmsmock proxy: listening on %s: %v\n", cfg.addr, err)
		return 1
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	base := "http://" + l.Addr().String() + strings.TrimSuffix(cfg.basePath, "/")
	fmt.Fprintf(stdout, "wmsmock proxy: forwarding %s to %s, checking against %q %s\n", base, target.Redacted(), doc.Title, doc.Version)
	if cfg.record != "" {
		fmt.Fprintf(stdout, "wmsmock proxy: recording to %s (secrets redacted)\n", cfg.record)
	}
	fmt.Fprintf(stdout, "wmsmock proxy: drift so far at http://%s%s; stop with Ctrl-C\n", l.Addr(), proxy.ReportPath)

	var tick <-chan time.Time
	if cfg.progress > 0 {
		t := time.NewTicker(cfg.progress)
		defer t.Stop()
		tick = t.C
	}
	last := -1
	code := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err := <-served:
			fmt.Fprintf(stderr, "wmsmock proxy: %v\n", err)
			code = 1
			break loop
		case <-tick:
			if r := p.Report(); r.Calls != last {
				last = r.Calls
				logger.Info("progress", "calls", r.Calls, "drifted", r.Drifted, "not_answered", r.Failed, "recorded", p.Recorded())
			}
		}
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "wmsmock proxy: shutdown: %v\n", err)
		code = 1
	}
	// Every call has been answered: the checks and the recording catch up.
	if err := p.Close(); err != nil {
		fmt.Fprintf(stderr, "wmsmock proxy: recording: %v\n", err)
		code = 1
	}
	r := p.Report()
	fmt.Fprintf(stdout, "wmsmock proxy: %d calls, %d with drift, %d not answered by the target", r.Calls, r.Drifted, r.Failed)
	if cfg.record != "" {
		fmt.Fprintf(stdout, "; %d recorded to %s", p.Recorded(), cfg.record)
	}
	fmt.Fprintln(stdout)
	if cfg.report != "-" && cfg.report != "" {
		if err := r.WriteFiles(cfg.report); err != nil {
			fmt.Fprintf(stderr, "wmsmock proxy: report: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wmsmock proxy: report written to %s.md and %s.json\n", cfg.report, cfg.report)
	}
	return code
}
