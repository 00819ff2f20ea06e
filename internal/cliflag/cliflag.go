// Package cliflag holds what the wmsmock commands share in reading their
// command lines: flags whose defaults come from environment variables, a
// usage text that names each variable and shows flags as --name, the
// checks of a target's base URL and tokens, the log flags, --ca-cert, and
// deprecated names for renamed flags. Both binaries (wmsmock, the fake;
// wmsmock-contract, the tools that face the real service) use it, so a
// flag reads the same in every command.
package cliflag

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
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/token68"
)

// ListFlag is a repeatable string flag whose default comes from an
// environment variable holding a comma-separated list. The first use on the
// command line replaces the environment's values rather than adding to them.
type ListFlag struct {
	values []string
	set    bool
}

// String is the values joined by commas.
func (l *ListFlag) String() string { return strings.Join(l.values, ",") }

// Values are the list's values: the command line's, else the
// environment's.
func (l *ListFlag) Values() []string { return l.values }

// Set adds a value; the first replaces the environment's.
func (l *ListFlag) Set(v string) error {
	if !l.set {
		l.values, l.set = nil, true
	}
	l.values = append(l.values, v)
	return nil
}

// EnvList is a ListFlag whose default is the comma-separated list in the
// environment variable key.
func EnvList(getenv func(string) string, key string) *ListFlag {
	l := &ListFlag{}
	for _, v := range strings.Split(getenv(key), ",") {
		if v = strings.TrimSpace(v); v != "" {
			l.values = append(l.values, v)
		}
	}
	return l
}

// EnvString is the environment variable key, or def when it is unset.
func EnvString(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// EnvInt reads an integer default; a malformed value is reported by the
// validate step rather than silently ignored.
func EnvInt(getenv func(string) string, key string, def int64, errs *[]string) int64 {
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

// EnvBool reads a boolean default; like EnvInt, a malformed value is
// reported rather than ignored.
func EnvBool(getenv func(string) string, key string, def bool, errs *[]string) bool {
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

// EnvDuration reads a duration default such as 30s; like EnvInt, a
// malformed value is reported rather than ignored.
func EnvDuration(getenv func(string) string, key string, def time.Duration, errs *[]string) time.Duration {
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

// NewFlagSet returns a flag set that reports errors instead of exiting, and
// whose usage text shows each flag as --name (as the docs write them, and
// as the flag package accepts them) with the environment variable behind
// it. operands name what follows the command besides flags ("OLD NEW").
func NewFlagSet(name, summary string, operands ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		out := fs.Output()
		synopsis := strings.Join(append([]string{"wmsmock", name}, operands...), " ")
		fmt.Fprintf(out, "%s\n\nUsage: %s [flags]\n\nFlags (environment variable in brackets):\n", summary, synopsis)
		PrintDefaults(fs)
	}
	return fs
}

// PrintDefaults writes the flags of fs as flag.PrintDefaults does, but
// with two dashes, and deprecated names last.
func PrintDefaults(fs *flag.FlagSet) {
	out := fs.Output()
	var deprecated []string
	fs.VisitAll(func(f *flag.Flag) {
		if a, ok := f.Value.(*alias); ok {
			deprecated = append(deprecated, fmt.Sprintf("  --%s: deprecated, use --%s\n", f.Name, a.name))
			return
		}
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if !isZeroValue(f) {
			if reflect.TypeOf(f.Value).String() == "*flag.stringValue" {
				line += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				line += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintln(out, line)
	})
	for _, d := range deprecated {
		fmt.Fprint(out, d)
	}
}

// isZeroValue reports whether the flag's default is its type's zero
// value, which the usage does not show (as the flag package does).
func isZeroValue(f *flag.Flag) bool {
	t := reflect.TypeOf(f.Value)
	if t.Kind() != reflect.Pointer {
		return f.DefValue == ""
	}
	zero, ok := reflect.New(t.Elem()).Interface().(flag.Value)
	return ok && f.DefValue == zero.String()
}

// Deprecate keeps old as another name of the flag now called name: a
// value given to it sets that flag, with a line on warn saying the new
// name. Command lines and scripts written for the old name keep working.
func Deprecate(fs *flag.FlagSet, old, name string, warn io.Writer) {
	target := fs.Lookup(name)
	if target == nil {
		panic("cliflag: no flag --" + name + " to deprecate --" + old + " for")
	}
	fs.Var(&alias{Value: target.Value, old: old, name: name, warn: warn}, old, "deprecated: use --"+name)
}

// alias is a deprecated flag name.
type alias struct {
	flag.Value
	old, name string
	warn      io.Writer
}

func (a *alias) Set(v string) error {
	fmt.Fprintf(a.warn, "wmsmock: --%s is deprecated; use --%s\n", a.old, a.name)
	return a.Value.Set(v)
}

// IsBoolFlag lets a deprecated boolean flag be given without a value.
func (a *alias) IsBoolFlag() bool {
	b, ok := a.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// ParseArgs parses a command's flags and refuses stray arguments and the
// malformed environment values found while the flags were declared.
func ParseArgs(fs *flag.FlagSet, args []string, envErrs []string) error {
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

// TargetProblems checks the flags naming a server to call, shared by
// conform and calibrate: the base URL, the token (required unless
// tokenOptional) and a second token that must differ from it.
func TargetProblems(baseURL, token, token2 string, tokenOptional bool) []string {
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
	errs = append(errs, TokenProblems([2]string{"--token", token}, [2]string{"--token2", token2})...)
	if token2 != "" && token2 == token {
		errs = append(errs, "--token2 must differ from --token, or the per-token rate limit cannot be told apart")
	}
	return errs
}

// TokenProblems checks that each given flag value (name, value) is a
// bearer token.
func TokenProblems(flags ...[2]string) []string {
	var errs []string
	for _, f := range flags {
		if f[1] != "" && !token68.Valid(f[1]) {
			errs = append(errs, fmt.Sprintf("%s: not a valid bearer token (one value of letters, digits and -._~+/=)", f[0]))
		}
	}
	return errs
}

// ParseFailed is the exit code for a command line that did not parse: 0
// after --help (the flag package has printed the usage), 2 otherwise, with
// the reason.
func ParseFailed(cmd string, err error, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "wmsmock %s: %v\n", cmd, err)
	return 2
}

// Problems joins the problems a validate step found, one per line; nil
// when there are none.
func Problems(errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "\n"))
}

// LogFlags are --log-level and --log-format, shared by the commands that
// run until stopped (serve, proxy) and log as they go.
type LogFlags struct {
	Level, Format string
}

// Register adds both flags; levelHelp says what each level shows for the
// command.
func (l *LogFlags) Register(fs *flag.FlagSet, getenv func(string) string, levelHelp string) {
	fs.StringVar(&l.Level, "log-level", EnvString(getenv, "WMSMOCK_LOG_LEVEL", "info"), levelHelp+" [WMSMOCK_LOG_LEVEL]")
	fs.StringVar(&l.Format, "log-format", EnvString(getenv, "WMSMOCK_LOG_FORMAT", "text"), "text or json [WMSMOCK_LOG_FORMAT]")
}

func (l *LogFlags) Check() []string {
	var errs []string
	if _, err := ParseLevel(l.Level); err != nil {
		errs = append(errs, "--log-level: "+err.Error())
	}
	if l.Format != "text" && l.Format != "json" {
		errs = append(errs, fmt.Sprintf("--log-format %q: use text or json", l.Format))
	}
	return errs
}

// Logger is the logger the flags ask for, writing to w.
func (l *LogFlags) Logger(w io.Writer) *slog.Logger {
	level, _ := ParseLevel(l.Level)
	o := &slog.HandlerOptions{Level: level}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, o))
	}
	return slog.New(slog.NewTextHandler(w, o))
}

// CACert is --ca-cert: a PEM file of certificate authorities to trust
// besides the system's, so conform and calibrate can reach a fake serving
// HTTPS with its own CA (serve --tls) without turning verification off.
type CACert struct {
	File string
	Pool *x509.CertPool // read by Check; nil without a file
}

func (c *CACert) Register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&c.File, "ca-cert", EnvString(getenv, "WMSMOCK_CA_CERT", ""), "also trust the certificate authorities in PEM `FILE` for an HTTPS --base-url, e.g. the CA file `wmsmock serve --tls` names [WMSMOCK_CA_CERT]")
}

// Check reads the file, so a wrong path is reported before any call.
func (c *CACert) Check() []string {
	if c.File == "" {
		return nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	b, err := os.ReadFile(c.File)
	if err != nil {
		return []string{fmt.Sprintf("--ca-cert: %v", err)}
	}
	if !pool.AppendCertsFromPEM(b) {
		return []string{fmt.Sprintf("--ca-cert %q: no PEM certificate in the file", c.File)}
	}
	c.Pool = pool
	return nil
}

// Client is a client trusting the pool (the default client without one).
func (c *CACert) Client() *http.Client {
	if c.Pool == nil {
		return http.DefaultClient
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.Pool}, ForceAttemptHTTP2: true}}
}

// EnvFloat reads a number default, reporting a malformed value like EnvInt.
func EnvFloat(getenv func(string) string, key string, def float64, errs *[]string) float64 {
	v := getenv(key)
	if v == "" {
		return def
	}
	var f float64
	if _, err := fmt.Sscan(v, &f); err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not a number", key, v))
		return def
	}
	return f
}

// ParseLevel reads a log level: debug, info, warn or error.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	return l, err
}

// TokenHint adds to err (a command line's problems) why a token may be
// missing: WMSMOCK_TOKEN is set, but it is serve's (tokens the fake
// accepts), not the token a client command calls with
// (WMSMOCK_ACCESS_TOKEN).
func TokenHint(err error, token string, getenv func(string) string) error {
	if err == nil || token != "" || getenv("WMSMOCK_TOKEN") == "" {
		return err
	}
	return fmt.Errorf("%w\n(WMSMOCK_TOKEN is set, but it lists tokens for wmsmock serve to accept; the token to call with is --token or WMSMOCK_ACCESS_TOKEN)", err)
}
