package main

import (
	"context"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/calibrate"
)

// calibrateConfig is everything `wmsmock calibrate` is told, before
// validation.
type calibrateConfig struct {
	baseURL          string
	token            string
	token2           string
	expiredToken     string
	out              string
	allowDestructive bool
	timeout          time.Duration
	callTimeout      time.Duration
	pace             time.Duration
	spec             string
	caCert           cliflag.CACert // flags.go
}

func parseCalibrate(args []string, getenv func(string) string, stderr io.Writer) (calibrateConfig, error) {
	var envErrs []string
	c := calibrateConfig{}
	fs := cliflag.NewFlagSet("calibrate", "Probe a server (the real service, or a fake) for what the service's document leaves open, and write\n"+
		"what it does as a behaviour profile for `wmsmock serve --profile` and `wmsmock conform --profile`.\n"+
		"Safe against the real service: calls are paced under the documented rate (one short burst measures the\n"+
		"limit), nothing is created without --allow-destructive, and token values are never printed or written.")
	fs.SetOutput(stderr)
	fs.StringVar(&c.baseURL, "base-url", cliflag.EnvString(getenv, "WMSMOCK_BASE_URL", ""), "`URL` API paths are appended to, e.g. https://api.cloud.seqera.io (required) [WMSMOCK_BASE_URL]")
	fs.StringVar(&c.token, "token", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN", ""), "a valid access `TOKEN` (required) [WMSMOCK_ACCESS_TOKEN]")
	fs.StringVar(&c.token2, "token2", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN2", ""), "a second `TOKEN` of the same user: shows whether the rate limit counts per token or per user [WMSMOCK_ACCESS_TOKEN2]")
	fs.StringVar(&c.expiredToken, "expired-token", cliflag.EnvString(getenv, "WMSMOCK_EXPIRED_TOKEN", ""), "a `TOKEN` that has expired: shows how one is refused [WMSMOCK_EXPIRED_TOKEN]")
	fs.StringVar(&c.out, "out", cliflag.EnvString(getenv, "WMSMOCK_CALIBRATE_OUT", "-"), "profile `FILE` to write, - for standard output [WMSMOCK_CALIBRATE_OUT]")
	fs.BoolVar(&c.allowDestructive, "allow-destructive", cliflag.EnvBool(getenv, "WMSMOCK_ALLOW_DESTRUCTIVE", false, &envErrs), "also create a token and delete it, to see how a deleted token is refused [WMSMOCK_ALLOW_DESTRUCTIVE]")
	fs.DurationVar(&c.timeout, "timeout", cliflag.EnvDuration(getenv, "WMSMOCK_TIMEOUT", calibrate.DefaultTimeout, &envErrs), "bound on the whole run [WMSMOCK_TIMEOUT]")
	fs.DurationVar(&c.callTimeout, "call-timeout", cliflag.EnvDuration(getenv, "WMSMOCK_CALL_TIMEOUT", calibrate.DefaultCallTimeout, &envErrs), "bound on each call [WMSMOCK_CALL_TIMEOUT]")
	fs.DurationVar(&c.pace, "pace", cliflag.EnvDuration(getenv, "WMSMOCK_PACE", calibrate.DefaultPace, &envErrs), "least time between two ordinary calls (at least 50ms: the documented limit is 20 a second) [WMSMOCK_PACE]")
	fs.StringVar(&c.spec, "spec", cliflag.EnvString(getenv, "WMSMOCK_SPEC", ""), "the server's OpenAPI document `FILE`: tells its nulls from those the schema allows (answers.nulls is left open without it) [WMSMOCK_SPEC]")
	c.caCert.Register(fs, getenv)
	if err := cliflag.ParseArgs(fs, args, envErrs); err != nil {
		return c, err
	}
	return c, cliflag.TokenHint(c.validate(), c.token, getenv)
}

// validate checks the flags before any call is made.
func (c *calibrateConfig) validate() error {
	errs := cliflag.TargetProblems(c.baseURL, c.token, c.token2, false)
	errs = append(errs, cliflag.TokenProblems([2]string{"--expired-token", c.expiredToken})...)
	errs = append(errs, c.caCert.Check()...)
	if c.out != "-" {
		if st, err := os.Stat(filepath.Dir(c.out)); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Sprintf("--out %q: directory %s does not exist", c.out, filepath.Dir(c.out)))
		}
	}
	if c.timeout <= 0 || c.callTimeout <= 0 {
		errs = append(errs, "--timeout and --call-timeout must be positive")
	}
	if c.spec != "" {
		if st, err := os.Stat(c.spec); err != nil || st.IsDir() {
			errs = append(errs, fmt.Sprintf("--spec %q: not a readable file", c.spec))
		}
	}
	if c.pace < 50*time.Millisecond {
		errs = append(errs, fmt.Sprintf("--pace %s: at least 50ms, or the probes alone would meet the rate limit", c.pace))
	}
	return cliflag.Problems(errs)
}

// calibrateCmd probes a server and writes the profile; it exits 2 when the
// command line is wrong, 3 to 5 as conform does when the server is not
// there, not the API, or refuses the token, and 1 when a probe fails.
func calibrateCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseCalibrate(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("calibrate", err, stderr)
	}
	var doc *conformance.Document
	if cfg.spec != "" {
		if doc, err = conformance.LoadDocumentFile(cfg.spec); err != nil {
			fmt.Fprintf(stderr, "wmsmock calibrate: --spec: %v\n", err)
			return 1
		}
	}
	res, err := calibrate.Run(ctx, calibrate.Options{
		BaseURL: cfg.baseURL, Token: cfg.token, Token2: cfg.token2, ExpiredToken: cfg.expiredToken,
		AllowDestructive: cfg.allowDestructive,
		Timeout:          cfg.timeout, CallTimeout: cfg.callTimeout, Pace: cfg.pace,
		Progress: stderr, RootCAs: cfg.caCert.Pool, Document: doc,
	})
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock %v\n", err)
		if se, ok := conformance.AsSetupError(err); ok {
			return se.Kind.ExitCode()
		}
		return 1
	}
	text, err := res.YAML()
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock %v\n", err)
		return 1
	}
	if cfg.out == "-" {
		_, _ = stdout.Write(text)
	} else if err := os.WriteFile(cfg.out, text, 0o644); err != nil {
		fmt.Fprintf(stderr, "wmsmock calibrate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "calibrate: %d values observed, %d points left open", len(res.Findings), len(res.Notes))
	if cfg.out != "-" {
		fmt.Fprintf(stderr, "; profile written to %s", cfg.out)
	}
	fmt.Fprintln(stderr)
	return 0
}
