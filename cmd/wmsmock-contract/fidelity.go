package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/fidelity"
)

// fidelityConfig is everything `wmsmock fidelity` is told, before
// validation.
type fidelityConfig struct {
	suiteFlags
	a, b             side
	out, json, junit string
}

// side is one server of the comparison.
type side struct{ baseURL, token, token2 string }

func parseFidelity(args []string, getenv func(string) string, stderr io.Writer) (fidelityConfig, error) {
	var envErrs []string
	c := fidelityConfig{}
	fs := cliflag.NewFlagSet("fidelity", "Run the same conformance scenarios against two servers (typically the fake on a profile, and the real\n"+
		"service) and report, scenario by scenario, whether they behave alike and what each did where they do not.")
	fs.SetOutput(stderr)
	c.suiteFlags.register(fs, getenv, &envErrs)
	fs.StringVar(&c.a.baseURL, "base-url", cliflag.EnvString(getenv, "WMSMOCK_BASE_URL", ""), "`URL` of the first server's API (required) [WMSMOCK_BASE_URL]")
	fs.StringVar(&c.a.token, "token", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN", ""), "a valid access `TOKEN` of the first server (required) [WMSMOCK_ACCESS_TOKEN]")
	fs.StringVar(&c.a.token2, "token2", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN2", ""), "a second `TOKEN` of the first server [WMSMOCK_ACCESS_TOKEN2]")
	// The second server's flags are the first's with -b, as its tokens'
	// always were; --compare-url is the old name of --base-url-b.
	fs.StringVar(&c.b.baseURL, "base-url-b", cliflag.EnvString(getenv, "WMSMOCK_BASE_URL_B", cliflag.EnvString(getenv, "WMSMOCK_COMPARE_URL", "")), "`URL` of the second server's API (required) [WMSMOCK_BASE_URL_B]")
	fs.StringVar(&c.b.token, "token-b", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN_B", ""), "a valid access `TOKEN` of the second server (required) [WMSMOCK_ACCESS_TOKEN_B]")
	fs.StringVar(&c.b.token2, "token2-b", cliflag.EnvString(getenv, "WMSMOCK_ACCESS_TOKEN2_B", ""), "a second `TOKEN` of the second server [WMSMOCK_ACCESS_TOKEN2_B]")
	cliflag.Deprecate(fs, "compare-url", "base-url-b", stderr)
	fs.StringVar(&c.out, "out", cliflag.EnvString(getenv, "WMSMOCK_FIDELITY_OUT", "-"), "markdown report `FILE`, - for standard output [WMSMOCK_FIDELITY_OUT]")
	fs.StringVar(&c.json, "json", cliflag.EnvString(getenv, "WMSMOCK_FIDELITY_JSON", ""), "also write the report as JSON to `FILE` [WMSMOCK_FIDELITY_JSON]")
	fs.StringVar(&c.junit, "junit", cliflag.EnvString(getenv, "WMSMOCK_JUNIT", ""), "also write the report as JUnit XML to `FILE` [WMSMOCK_JUNIT]")
	if err := cliflag.ParseArgs(fs, args, envErrs); err != nil {
		return c, err
	}
	return c, cliflag.TokenHint(c.validate(), c.a.token, getenv)
}

func (c *fidelityConfig) validate() error {
	errs := cliflag.TargetProblems(c.a.baseURL, c.a.token, c.a.token2, false)
	for _, e := range cliflag.TargetProblems(c.b.baseURL, c.b.token, c.b.token2, false) {
		e = strings.NewReplacer("--base-url", "--base-url-b", "--token2", "--token2-b", "--token", "--token-b").Replace(e)
		errs = append(errs, e)
	}
	errs = append(errs, c.suiteFlags.check()...)
	for _, pair := range [][2]string{{"--out", c.out}, {"--json", c.json}, {"--junit", c.junit}} {
		if pair[1] == "" || pair[1] == "-" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(pair[1])); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Sprintf("%s %q: directory %s does not exist", pair[0], pair[1], filepath.Dir(pair[1])))
		}
	}
	return cliflag.Problems(errs)
}

// fidelityCmd runs the scenarios against both servers and writes the
// report; it exits 1 when the servers disagree on a scenario or a run
// cannot be made, 2 when the command line is wrong.
func fidelityCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseFidelity(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("fidelity", err, stderr)
	}
	runs := make([]*conformance.Result, 2)
	for i, s := range []side{cfg.a, cfg.b} {
		fmt.Fprintf(stderr, "fidelity: running the scenarios against %s\n", s.baseURL)
		res, err := conformance.Run(ctx, conformance.Options{
			Target: conformance.Remote(conformance.RemoteOptions{
				BaseURL: s.baseURL, Token: s.token, Token2: s.token2, SpecFile: cfg.spec,
				MaxRate: cfg.maxRate, CallTimeout: cfg.callTimeout,
			}),
			Tags:             cfg.tags,
			AllowDestructive: cfg.allowDestructive,
			Output:           stderr, // progress; the report is the result
			Timeout:          cfg.timeout,
			Profile:          cfg.loaded,
			StrictSchema:     cfg.strictSchema,
		})
		fmt.Fprintln(stderr)
		if res == nil {
			fmt.Fprintf(stderr, "wmsmock fidelity: %s: %v\n", s.baseURL, err)
			if se, ok := conformance.AsSetupError(err); ok {
				return se.Kind.ExitCode()
			}
			return 1
		}
		runs[i] = res
	}
	rep := fidelity.Compare(runs[0], runs[1])
	var md bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		fmt.Fprintf(stderr, "wmsmock fidelity: %v\n", err)
		return 1
	}
	writes := []struct {
		file  string
		write func(io.Writer) error
	}{
		{cfg.out, func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }},
		{cfg.json, rep.JSON},
		{cfg.junit, rep.JUnit},
	}
	for _, wr := range writes {
		if err := writeTo(wr.file, stdout, wr.write); err != nil {
			fmt.Fprintf(stderr, "wmsmock fidelity: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "fidelity: %d of %d scenarios compared agree; %d not compared\n",
		rep.Total.Agreed, rep.Total.Agreed+rep.Total.Disagreed, rep.Total.NotCompared)
	if rep.Total.Disagreed > 0 {
		return 1
	}
	return 0
}

// writeTo writes to file, or to stdout for "-"; "" writes nothing.
func writeTo(file string, stdout io.Writer, write func(io.Writer) error) error {
	switch file {
	case "":
		return nil
	case "-":
		return write(stdout)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
