package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/token68"
)

// listFlag is a repeatable string flag whose default comes from an
// environment variable holding a comma-separated list. The first use on the
// command line replaces the environment's values rather than adding to them.
type listFlag struct {
	values []string
	set    bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

func (l *listFlag) Set(v string) error {
	if !l.set {
		l.values, l.set = nil, true
	}
	l.values = append(l.values, v)
	return nil
}

func envList(getenv func(string) string, key string) *listFlag {
	l := &listFlag{}
	for _, v := range strings.Split(getenv(key), ",") {
		if v = strings.TrimSpace(v); v != "" {
			l.values = append(l.values, v)
		}
	}
	return l
}

func envString(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envInt reads an integer default; a malformed value is reported by the
// validate step rather than silently ignored.
func envInt(getenv func(string) string, key string, def int64, errs *[]string) int64 {
	v := getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not an integer", key, v))
		return def
	}
	return n
}

func envBool(getenv func(string) string, key string, def bool, errs *[]string) bool {
	v := getenv(key)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not a boolean", key, v))
		return def
	}
	return b
}

// envDuration reads a duration default such as 30s; like envInt, a
// malformed value is reported rather than ignored.
func envDuration(getenv func(string) string, key string, def time.Duration, errs *[]string) time.Duration {
	v := getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not a duration such as 30s or 10m", key, v))
		return def
	}
	return d
}

// newFlagSet returns a flag set that reports errors instead of exiting, and
// whose usage text names the environment variable behind each flag.
func newFlagSet(name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "%s\n\nUsage: wmsmock %s [flags]\n\nFlags (environment variable in brackets):\n", summary, name)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses a command's flags and refuses stray arguments and the
// malformed environment values found while the flags were declared.
func parseArgs(fs *flag.FlagSet, args []string, envErrs []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if len(envErrs) > 0 {
		return errors.New(strings.Join(envErrs, "; "))
	}
	return nil
}

// targetProblems checks the flags naming a server to call, shared by
// conform and calibrate: the base URL, the token (required unless
// tokenOptional) and a second token that must differ from it.
func targetProblems(baseURL, token, token2 string, tokenOptional bool) []string {
	var errs []string
	if baseURL == "" {
		errs = append(errs, "--base-url is required")
	} else if u, err := url.Parse(baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("--base-url %q: want http(s)://host[:port][/path]", baseURL))
	} else if u.RawQuery != "" || u.Fragment != "" {
		errs = append(errs, fmt.Sprintf("--base-url %q: no query or fragment, please", baseURL))
	}
	if tokenOptional {
		return errs
	}
	if token == "" {
		errs = append(errs, "--token is required")
	}
	errs = append(errs, tokenProblems([2]string{"--token", token}, [2]string{"--token2", token2})...)
	if token2 != "" && token2 == token {
		errs = append(errs, "--token2 must differ from --token, or the per-token rate limit cannot be told apart")
	}
	return errs
}

// tokenProblems checks that each given flag value (name, value) is a
// bearer token.
func tokenProblems(flags ...[2]string) []string {
	var errs []string
	for _, f := range flags {
		if f[1] != "" && !token68.Valid(f[1]) {
			errs = append(errs, fmt.Sprintf("%s: not a valid bearer token (one value of letters, digits and -._~+/=)", f[0]))
		}
	}
	return errs
}

// parseFailed is the exit code for a command line that did not parse: 0
// after --help (the flag package has printed the usage), 2 otherwise, with
// the reason.
func parseFailed(cmd string, err error, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "wmsmock %s: %v\n", cmd, err)
	return 2
}

// problems joins the problems a validate step found, one per line; nil
// when there are none.
func problems(errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "\n"))
}

// logFlags are --log-level and --log-format, shared by the commands that
// run until stopped (serve, proxy) and log as they go.
type logFlags struct {
	level, format string
}

// register adds both flags; levelHelp says what each level shows for the
// command.
func (l *logFlags) register(fs *flag.FlagSet, getenv func(string) string, levelHelp string) {
	fs.StringVar(&l.level, "log-level", envString(getenv, "WMSMOCK_LOG_LEVEL", "info"), levelHelp+" [WMSMOCK_LOG_LEVEL]")
	fs.StringVar(&l.format, "log-format", envString(getenv, "WMSMOCK_LOG_FORMAT", "text"), "text or json [WMSMOCK_LOG_FORMAT]")
}

func (l *logFlags) check() []string {
	var errs []string
	if _, err := parseLevel(l.level); err != nil {
		errs = append(errs, "--log-level: "+err.Error())
	}
	if l.format != "text" && l.format != "json" {
		errs = append(errs, fmt.Sprintf("--log-format %q: use text or json", l.format))
	}
	return errs
}

// logger is the logger the flags ask for, writing to w.
func (l *logFlags) logger(w io.Writer) *slog.Logger {
	level, _ := parseLevel(l.level)
	o := &slog.HandlerOptions{Level: level}
	if l.format == "json" {
		return slog.New(slog.NewJSONHandler(w, o))
	}
	return slog.New(slog.NewTextHandler(w, o))
}

// caCertFlag is --ca-cert: a PEM file of certificate authorities to trust
// besides the system's, so conform and calibrate can reach a fake serving
// HTTPS with its own CA (serve --tls) without turning verification off.
type caCertFlag struct {
	file string
	pool *x509.CertPool // read by check; nil without a file
}

func (c *caCertFlag) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&c.file, "ca-cert", envString(getenv, "WMSMOCK_CA_CERT", ""), "also trust the certificate authorities in PEM `FILE` for an HTTPS --base-url, e.g. the CA file `wmsmock serve --tls` names [WMSMOCK_CA_CERT]")
}

// check reads the file, so a wrong path is reported before any call.
func (c *caCertFlag) check() []string {
	if c.file == "" {
		return nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	b, err := os.ReadFile(c.file)
	if err != nil {
		return []string{fmt.Sprintf("--ca-cert: %v", err)}
	}
	if !pool.AppendCertsFromPEM(b) {
		return []string{fmt.Sprintf("--ca-cert %q: no PEM certificate in the file", c.file)}
	}
	c.pool = pool
	return nil
}

// client is a client trusting the pool (the default client without one).
func (c *caCertFlag) client() *http.Client {
	if c.pool == nil {
		return http.DefaultClient
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.pool}, ForceAttemptHTTP2: true}}
}
