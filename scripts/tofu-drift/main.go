// Command tofu-drift holds the fake to what the service's own Terraform
// provider expects of the service, one kind at a time. For every resource
// kind and data source the provider has (read from `tofu providers schema
// -json`, so a kind added to the provider shows up here as missing), it takes
// the small configuration in kinds/<kind>.tf, starts a new `wmsmock serve`
// on a free loopback port, and runs:
//
//  1. apply;
//  2. plan -detailed-exitcode, which must find nothing to change: every
//     resource reads back as written;
//  3. for a resource kind the provider can import: every resource of the
//     configuration is dropped from a copy of the state and imported again
//     by the id format the provider documents, then planned; the kind's own
//     resources must plan no change but for write-only values (a secret the
//     service never returns);
//  4. destroy.
//
// It prints each kind as it goes and ends with a table, then the first lines
// of each failure: the attributes that differ, with what the fake answered
// and what was written, or the error tofu printed. It exits 1 when a kind
// fails. Every log (the fake's, each tofu step's) stays under -logs.
//
// scripts/tofu-drift.sh builds OpenTofu, the provider and the fake, and runs
// this with the right flags; see docs/tofu-drift.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// token is the fake's development token (mock/auth).
const token = "wmsmock-dev-token"

type config struct {
	tofu        string
	wmsmock     string
	spec        string
	kindsDir    string
	logs        string
	kinds       []string // shell patterns; empty selects every kind
	stepTimeout time.Duration
}

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tofu-drift: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tofu-drift: %v\n", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var c config
	var kinds, timeout string
	fs := flag.NewFlagSet("tofu-drift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.tofu, "tofu", env("TOFU", ""), "the OpenTofu `binary` [TOFU]")
	fs.StringVar(&c.wmsmock, "wmsmock", env("WMSMOCK_BIN", ""), "the wmsmock `binary` to serve each fake [WMSMOCK_BIN]")
	fs.StringVar(&c.spec, "spec", env("SPEC", ""), "the OpenAPI `document` each fake serves: the service's published schema [SPEC]")
	fs.StringVar(&c.kindsDir, "kinds-dir", env("KINDS_DIR", "scripts/tofu-drift/kinds"), "the `directory` holding one configuration per kind [KINDS_DIR]")
	fs.StringVar(&c.logs, "logs", env("LOGS", ""), "the `directory` where each kind's work directory and logs are kept; emptied first [LOGS]")
	fs.StringVar(&kinds, "kinds", env("KINDS", ""), "comma-separated shell `patterns` of the kinds to run, e.g. 'seqera_*_credential,data.*'; all when empty [KINDS]")
	fs.StringVar(&timeout, "step-timeout", env("STEP_TIMEOUT", "15m"), "the longest one tofu step may take [STEP_TIMEOUT]")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, p := range strings.Split(kinds, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.kinds = append(c.kinds, p)
		}
	}
	var errs []string
	d, err := time.ParseDuration(timeout)
	if err != nil || d <= 0 {
		errs = append(errs, fmt.Sprintf("-step-timeout %q: want a positive duration such as 15m", timeout))
	}
	c.stepTimeout = d
	for _, f := range []struct{ flag, val string }{{"-tofu", c.tofu}, {"-wmsmock", c.wmsmock}, {"-spec", c.spec}} {
		if f.val == "" {
			errs = append(errs, f.flag+" is required")
		} else if _, err := os.Stat(f.val); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", f.flag, err))
		}
	}
	if st, err := os.Stat(c.kindsDir); err != nil || !st.IsDir() {
		errs = append(errs, fmt.Sprintf("-kinds-dir %q is not a directory", c.kindsDir))
	}
	for _, p := range c.kinds {
		if _, err := filepath.Match(p, ""); err != nil {
			errs = append(errs, fmt.Sprintf("-kinds: pattern %q: %v", p, err))
		}
	}
	if len(errs) > 0 {
		return c, errors.New(strings.Join(errs, "; "))
	}
	if c.logs == "" {
		dir, err := os.MkdirTemp("", "tofu-drift-")
		if err != nil {
			return c, err
		}
		c.logs = dir
	}
	for _, p := range []*string{&c.tofu, &c.wmsmock, &c.spec, &c.kindsDir, &c.logs} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return c, err
		}
		*p = abs
	}
	return c, nil
}

// run sweeps the selected kinds and prints the table; ok is false when any
// kind failed. An error means the sweep itself could not run.
func run(ctx context.Context, cfg config, out io.Writer) (ok bool, err error) {
	if err := os.RemoveAll(cfg.logs); err != nil {
		return false, err
	}
	if err := os.MkdirAll(cfg.logs, 0o755); err != nil {
		return false, err
	}
	fmt.Fprintf(out, "== reading the provider's schema (logs in %s)\n", cfg.logs)
	schema, err := loadSchema(ctx, cfg)
	if err != nil {
		return false, err
	}
	j, err := loadJudge(schema, cfg.spec)
	if err != nil {
		return false, err
	}
	kinds, err := listKinds(schema, cfg.kindsDir)
	if err != nil {
		return false, err
	}
	kinds = selectKinds(kinds, cfg.kinds)
	if len(kinds) == 0 {
		return false, fmt.Errorf("no kind matches %q", cfg.kinds)
	}
	results := make([]result, 0, len(kinds))
	for i, k := range kinds {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(out, "== [%d/%d] %s\n", i+1, len(kinds), k.name)
		r := runKind(ctx, cfg, j, k, out)
		results = append(results, r)
	}
	fmt.Fprintln(out)
	writeTable(out, results)
	if ctx.Err() != nil {
		return false, fmt.Errorf("interrupted after %d of %d kinds", len(results), len(kinds))
	}
	for _, r := range results {
		if r.failed() {
			return false, nil
		}
	}
	return true, nil
}
