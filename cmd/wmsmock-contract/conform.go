package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/profile"
)

// suiteFlags are the flags of a conformance run, shared by conform and
// fidelity.
type suiteFlags struct {
	spec             string
	tags             string
	allowDestructive bool
	maxRate          float64
	timeout          time.Duration
	callTimeout      time.Duration
	profile          string
	strictSchema     bool
	loaded           *profile.Profile // profile, read by check
}

func (s *suiteFlags) register(fs *flag.FlagSet, getenv func(string) string, envErrs *[]string) {
	fs.StringVar(&s.spec, "spec", cliflag.EnvString(getenv, "WMSMOCK_SPEC", ""), "OpenAPI document `FILE` to validate answers against (default: the one the fake serves at /_mock/openapi.yaml; the real service needs a file) [WMSMOCK_SPEC]")
	fs.StringVar(&s.tags, "tags", cliflag.EnvString(getenv, "WMSMOCK_TAGS", ""), "godog tag `EXPR` choosing scenarios, e.g. @auth,@paging or ~@rate-limit [WMSMOCK_TAGS]")
	fs.BoolVar(&s.allowDestructive, "allow-destructive", cliflag.EnvBool(getenv, "WMSMOCK_ALLOW_DESTRUCTIVE", false, envErrs), "also run scenarios that create and delete data (what they create they delete) [WMSMOCK_ALLOW_DESTRUCTIVE]")
	fs.Float64Var(&s.maxRate, "max-rate", cliflag.EnvFloat(getenv, "WMSMOCK_MAX_RATE", conformance.DefaultMaxRate, envErrs), "ordinary calls per second (the rate-limit scenarios burst regardless) [WMSMOCK_MAX_RATE]")
	fs.DurationVar(&s.timeout, "timeout", cliflag.EnvDuration(getenv, "WMSMOCK_TIMEOUT", conformance.DefaultTimeout, envErrs), "bound on a whole run [WMSMOCK_TIMEOUT]")
	fs.DurationVar(&s.callTimeout, "call-timeout", cliflag.EnvDuration(getenv, "WMSMOCK_CALL_TIMEOUT", conformance.DefaultCallTimeout, envErrs), "bound on each call [WMSMOCK_CALL_TIMEOUT]")
	fs.StringVar(&s.profile, "profile", cliflag.EnvString(getenv, "WMSMOCK_PROFILE", ""), "behaviour profile `FILE` the @profile scenarios expect: the one the server runs with or was calibrated into (default: the embedded one) [WMSMOCK_PROFILE]")
	fs.BoolVar(&s.strictSchema, "strict-schema", cliflag.EnvBool(getenv, "WMSMOCK_STRICT_SCHEMA", false, envErrs), "fail answers for the service's habits too (a null where the schema has a non-nullable property), naming each; by default they are listed, not failed [WMSMOCK_STRICT_SCHEMA]")
}

// check validates the suite flags and reads the profile.
func (s *suiteFlags) check() []string {
	var errs []string
	if s.spec != "" {
		if st, err := os.Stat(s.spec); err != nil || st.IsDir() {
			errs = append(errs, fmt.Sprintf("--spec %q: not a readable file", s.spec))
		}
	}
	if err := conformance.CheckTags(s.tags); err != nil {
		errs = append(errs, "--tags: "+err.Error())
	}
	if s.maxRate <= 0 || s.maxRate > 20 {
		errs = append(errs, fmt.Sprintf("--max-rate %g: use more than 0 and at most 20 (the documented limit per second)", s.maxRate))
	}
	if s.timeout <= 0 {
		errs = append(errs, "--timeout must be positive")
	}
	if s.callTimeout <= 0 {
		errs = append(errs, "--call-timeout must be positive")
	}
	if s.profile != "" {
		p, err := profile.Load(s.profile)
		if err != nil {
			errs = append(errs, fmt.Sprintf("--profile: %v", err))
		}
		s.loaded = p
	}
	return errs
}

// conformConfig is everything `wmsmock conform` is told, before validation.
type conformConfig struct {
	suiteFlags
	baseURL       string
	token         string
	token2        string
	junit         string
	cucumberJSON  string
	format        string
	adminToken    string
	ping          bool
	listTags      bool
	strictProfile bool
	seed          int64
	caCert        cliflag.CACert // flags.go
}

func parseConform(args []string, getenv func(string) string, stderr io.Writer) (conformConfig, error) {
	var envErrs []string
	c := conformConfig{}
	fs := cliflag.NewFlagSet("conform", "Run the conformance scenarios against a server: the real service, or the fake started elsewhere.\n"+
		"Safe against the real service by default: scenarios that write data run only with --allow-destructive.")
	fs.SetOutput(stderr)
	c.suiteFlags.register(fs, getenv, &envErrs)
	fs.StringVar(&c.baseURL, "base-url", cliflag.EnvString(getenv, "WMSMOCK_BASE_URL", ""), "`URL` API paths are appended to, e.g. http://127.0.0.1:8080/api (required) [WMSMOCK_BASE_URL]")
	fs.StringVar(&c.token, "token", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN", ""), "a valid access `TOKEN` (required) [WMSMOCK_ACCESS_TOKEN]")
	fs.StringVar(&c.token2, "token2", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN2", ""), "a second valid access `TOKEN`, for the per-token rate limit (scenarios needing it are skipped without) [WMSMOCK_ACCESS_TOKEN2]")
	fs.StringVar(&c.junit, "junit", cliflag.EnvString(getenv, "WMSMOCK_JUNIT", ""), "also write a JUnit XML report to `FILE` [WMSMOCK_JUNIT]")
	fs.StringVar(&c.cucumberJSON, "cucumber-json", cliflag.EnvString(getenv, "WMSMOCK_CUCUMBER_JSON", ""), "also write a Cucumber JSON report to `FILE` [WMSMOCK_CUCUMBER_JSON]")
	fs.StringVar(&c.format, "format", cliflag.EnvString(getenv, "WMSMOCK_FORMAT", "progress"), "report on standard output: progress or pretty [WMSMOCK_FORMAT]")
	fs.StringVar(&c.adminToken, "admin-token", cliflag.EnvString(getenv, "WMSMOCK_ADMIN_TOKEN", ""), "the fake's admin `TOKEN`, to move its clock from another host (not needed on loopback) [WMSMOCK_ADMIN_TOKEN]")
	fs.BoolVar(&c.strictProfile, "strict-profile", cliflag.EnvBool(getenv, "WMSMOCK_STRICT_PROFILE", false, &envErrs), "fail the run when the server differs from the profile on a point the document leaves open (by default such differences are reported, not failed) [WMSMOCK_STRICT_PROFILE]")
	fs.Int64Var(&c.seed, "order-seed", cliflag.EnvInt(getenv, "WMSMOCK_ORDER_SEED", -1, &envErrs), "order of the scenarios: shuffled by this `N`, 0 for the files' order, -1 for a new shuffle each run (its seed is printed) [WMSMOCK_ORDER_SEED]")
	cliflag.Deprecate(fs, "seed", "order-seed", stderr) // serve's --seed seeds the data
	c.caCert.Register(fs, getenv)
	fs.BoolVar(&c.ping, "ping", false, "only check that the fake at --base-url is ready (GET /_mock/health) and exit 0 or 1; for container health checks")
	fs.BoolVar(&c.listTags, "list-tags", false, "print every tag of the scenarios, with how many scenarios carry it and what it means, and exit")
	if err := cliflag.ParseArgs(fs, args, envErrs); err != nil {
		return c, err
	}
	return c, cliflag.TokenHint(c.validate(), c.token, getenv)
}

// seedOrNew is the order's seed: a new one, never 0, when asked for (-1).
func (c *conformConfig) seedOrNew() int64 {
	if c.seed != -1 {
		return c.seed
	}
	return time.Now().UnixNano()%1_000_000_000 + 1
}

// validate checks what can be checked before any call is made, so that a
// typo is reported at once with the flag's name, and reads the profile.
func (c *conformConfig) validate() error {
	if c.listTags {
		return nil
	}
	errs := cliflag.TargetProblems(c.baseURL, c.token, c.token2, c.ping)
	errs = append(errs, c.caCert.Check()...)
	if c.ping {
		return cliflag.Problems(errs)
	}
	errs = append(errs, cliflag.TokenProblems([2]string{"--admin-token", c.adminToken})...)
	errs = append(errs, c.suiteFlags.check()...)
	for _, pair := range [][2]string{{"--junit", c.junit}, {"--cucumber-json", c.cucumberJSON}} {
		flagName, f := pair[0], pair[1]
		if f == "" {
			continue
		}
		if strings.ContainsAny(f, ",") {
			errs = append(errs, fmt.Sprintf("%s %q: the file name must not contain a comma", flagName, f))
		} else if st, err := os.Stat(filepath.Dir(f)); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Sprintf("%s %q: directory %s does not exist", flagName, f, filepath.Dir(f)))
		}
	}
	if c.format != "progress" && c.format != "pretty" {
		errs = append(errs, fmt.Sprintf("--format %q: use progress or pretty", c.format))
	}
	return cliflag.Problems(errs)
}

// conform runs the conformance suite against a server. It exits 1 when a
// scenario fails, 2 when the command line is wrong, and 3 to 6 when the
// run could not start (conformance.SetupKind: nothing listening, not the
// API at that URL, the token refused, no scenario to run), each with one
// line saying so.
func conform(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseConform(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("conform", err, stderr)
	}
	if cfg.ping {
		return ping(ctx, cfg, stderr)
	}
	if cfg.listTags {
		tags, err := conformance.Tags(nil)
		if err != nil {
			fmt.Fprintf(stderr, "wmsmock conform: %v\n", err)
			return 1
		}
		conformance.WriteTags(stdout, tags)
		return 0
	}
	target := conformance.Remote(conformance.RemoteOptions{
		BaseURL:     cfg.baseURL,
		Token:       cfg.token,
		Token2:      cfg.token2,
		SpecFile:    cfg.spec,
		MaxRate:     cfg.maxRate,
		CallTimeout: cfg.callTimeout,
		AdminToken:  cfg.adminToken,
		RootCAs:     cfg.caCert.Pool,
	})
	res, err := conformance.Run(ctx, conformance.Options{
		Target:           target,
		Tags:             cfg.tags,
		AllowDestructive: cfg.allowDestructive,
		Format:           cfg.format,
		Output:           stdout,
		JUnitFile:        cfg.junit,
		CucumberJSONFile: cfg.cucumberJSON,
		Timeout:          cfg.timeout,
		Profile:          cfg.loaded,
		StrictProfile:    cfg.strictProfile,
		StrictSchema:     cfg.strictSchema,
		Seed:             cfg.seedOrNew(),
	})
	if se, ok := conformance.AsSetupError(err); ok {
		fmt.Fprintf(stderr, "wmsmock conform: %s\n", se.Msg)
		return se.Kind.ExitCode()
	}
	if res != nil {
		res.WriteSummary(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock conform: %v\n", err)
		return 1
	}
	return 0
}

// ping asks the fake whether it is ready. Distroless images have no curl,
// so the binary itself serves as the container's health check.
func ping(ctx context.Context, cfg conformConfig, stderr io.Writer) int {
	u, _ := url.Parse(cfg.baseURL)
	health := u.Scheme + "://" + u.Host + "/_mock/health"
	ctx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, health, nil)
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock conform --ping: %v\n", err)
		return 1
	}
	resp, err := cfg.caCert.Client().Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock conform --ping: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	var h struct {
		Status string `json:"status"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h)
	if resp.StatusCode != http.StatusOK || h.Status != "ok" {
		fmt.Fprintf(stderr, "wmsmock conform --ping: %s answered %d (status %q)\n", health, resp.StatusCode, h.Status)
		return 1
	}
	return 0
}
