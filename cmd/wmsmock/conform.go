package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
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
	fs.StringVar(&s.spec, "spec", envString(getenv, "WMSMOCK_SPEC", ""), "OpenAPI document `FILE` to validate answers against (default: the one the fake serves at /_mock/openapi.yaml; the real service needs a file) [WMSMOCK_SPEC]")
	fs.StringVar(&s.tags, "tags", envString(getenv, "WMSMOCK_TAGS", ""), "godog tag `EXPR` choosing scenarios, e.g. @auth,@paging or ~@rate-limit [WMSMOCK_TAGS]")
	fs.BoolVar(&s.allowDestructive, "allow-destructive", envBool(getenv, "WMSMOCK_ALLOW_DESTRUCTIVE", false, envErrs), "also run scenarios that create and delete data (what they create they delete) [WMSMOCK_ALLOW_DESTRUCTIVE]")
	fs.Float64Var(&s.maxRate, "max-rate", envFloat(getenv, "WMSMOCK_MAX_RATE", conformance.DefaultMaxRate, envErrs), "ordinary calls per second (the rate-limit scenarios burst regardless) [WMSMOCK_MAX_RATE]")
	fs.DurationVar(&s.timeout, "timeout", envDuration(getenv, "WMSMOCK_TIMEOUT", conformance.DefaultTimeout, envErrs), "bound on a whole run [WMSMOCK_TIMEOUT]")
	fs.DurationVar(&s.callTimeout, "call-timeout", envDuration(getenv, "WMSMOCK_CALL_TIMEOUT", conformance.DefaultCallTimeout, envErrs), "bound on each call [WMSMOCK_CALL_TIMEOUT]")
	fs.StringVar(&s.profile, "profile", envString(getenv, "WMSMOCK_PROFILE", ""), "behaviour profile `FILE` the @profile scenarios expect: the one the server runs with or was calibrated into (default: the embedded one) [WMSMOCK_PROFILE]")
	fs.BoolVar(&s.strictSchema, "strict-schema", envBool(getenv, "WMSMOCK_STRICT_SCHEMA", false, envErrs), "fail answers for the service's habits too (a null where the schema has a non-nullable property), naming each; by default they are listed, not failed [WMSMOCK_STRICT_SCHEMA]")
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
	strictProfile bool
	seed          int64
	caCert        caCertFlag // flags.go
}

func parseConform(args []string, getenv func(string) string, stderr io.Writer) (conformConfig, error) {
	var envErrs []string
	c := conformConfig{}
	fs := newFlagSet("conform", "Run the conformance scenarios against a server: the real service, or the fake started elsewhere.\n"+
		"Safe against the real service by default: scenarios that write data run only with --allow-destructive.")
	fs.SetOutput(stderr)
	c.suiteFlags.register(fs, getenv, &envErrs)
	fs.StringVar(&c.baseURL, "base-url", envString(getenv, "WMSMOCK_BASE_URL", ""), "`URL` API paths are appended to, e.g. http://127.0.0.1:8080/api (required) [WMSMOCK_BASE_URL]")
	fs.StringVar(&c.token, "token", envString(getenv, "WMSMOCK_TOKEN", ""), "a valid access `TOKEN` (required) [WMSMOCK_TOKEN]")
	fs.StringVar(&c.token2, "token2", envString(getenv, "WMSMOCK_TOKEN2", ""), "a second valid access `TOKEN`, for the per-token rate limit (scenarios needing it are skipped without) [WMSMOCK_TOKEN2]")
	fs.StringVar(&c.junit, "junit", envString(getenv, "WMSMOCK_JUNIT", ""), "also write a JUnit XML report to `FILE` [WMSMOCK_JUNIT]")
	fs.StringVar(&c.cucumberJSON, "cucumber-json", envString(getenv, "WMSMOCK_CUCUMBER_JSON", ""), "also write a Cucumber JSON report to `FILE` [WMSMOCK_CUCUMBER_JSON]")
	fs.StringVar(&c.format, "format", envString(getenv, "WMSMOCK_FORMAT", "progress"), "report on standard output: progress or pretty [WMSMOCK_FORMAT]")
	fs.StringVar(&c.adminToken, "admin-token", envString(getenv, "WMSMOCK_ADMIN_TOKEN", ""), "the fake's admin `TOKEN`, to move its clock from another host (not needed on loopback) [WMSMOCK_ADMIN_TOKEN]")
	fs.BoolVar(&c.strictProfile, "strict-profile", envBool(getenv, "WMSMOCK_STRICT_PROFILE", false, &envErrs), "fail the run when the server differs from the profile on a point the document leaves open (by default such differences are reported, not failed) [WMSMOCK_STRICT_PROFILE]")
	fs.Int64Var(&c.seed, "seed", envInt(getenv, "WMSMOCK_SEED", -1, &envErrs), "order of the scenarios: shuffled by this `N`, 0 for the files' order, -1 for a new shuffle each run (its seed is printed) [WMSMOCK_SEED]")
	c.caCert.register(fs, getenv)
	fs.BoolVar(&c.ping, "ping", false, "only check that the fake at --base-url is ready (GET /_mock/health) and exit 0 or 1; for container health checks")
	if err := parseArgs(fs, args, envErrs); err != nil {
		return c, err
	}
	return c, c.validate()
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
	errs := targetProblems(c.baseURL, c.token, c.token2, c.ping)
	errs = append(errs, c.caCert.check()...)
	if c.ping {
		return problems(errs)
	}
	errs = append(errs, tokenProblems([2]string{"--admin-token", c.adminToken})...)
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
	return problems(errs)
}

func envFloat(getenv func(string) string, key string, def float64, errs *[]string) float64 {
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

// conform runs the conformance suite against a server and exits non-zero
// when a scenario fails (1) or the command line is wrong (2).
func conform(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseConform(args, getenv, stderr)
	if err != nil {
		return parseFailed("conform", err, stderr)
	}
	if cfg.ping {
		return ping(ctx, cfg, stderr)
	}
	target := conformance.Remote(conformance.RemoteOptions{
		BaseURL:     cfg.baseURL,
		Token:       cfg.token,
		Token2:      cfg.token2,
		SpecFile:    cfg.spec,
		MaxRate:     cfg.maxRate,
		CallTimeout: cfg.callTimeout,
		AdminToken:  cfg.adminToken,
		RootCAs:     cfg.caCert.pool,
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
	resp, err := cfg.caCert.client().Do(req)
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
