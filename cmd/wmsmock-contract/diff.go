package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/conformance/schemadiff"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// embeddedName stands for the fake's own document on the command line.
const embeddedName = "@embedded"

// diffConfig is everything `wmsmock diff` is told, before validation.
type diffConfig struct {
	old, new      string
	format, out   string
	failOn        string
	rules         string
	scenarios     bool
	scenariosFrom string
	tags          string
	journal       string
	listRules     bool

	failOnSev schemadiff.Severity
}

func parseDiff(args []string, getenv func(string) string, stderr io.Writer) (diffConfig, error) {
	var envErrs []string
	c := diffConfig{}
	fs := cliflag.NewFlagSet("diff", "Compare two OpenAPI documents: every change, breaking / needs review / safe by the service's\n"+
		"compatibility policy, with its operation and direction; and which scenarios or calls a change reaches.\n\n"+
		"Arguments: OLD NEW, two files (YAML or JSON); "+embeddedName+" is the fake's embedded document.\n"+
		"Exit status: 0; 1 when a change is at least --fail-on, or a scenario of --scenarios failed against OLD;\n"+
		"2 for a bad command line or input.", "OLD NEW")
	fs.SetOutput(stderr)
	fs.StringVar(&c.format, "format", cliflag.EnvString(getenv, "WMSMOCK_DIFF_FORMAT", "text"), "report `FORMAT`: "+strings.Join(schemadiff.Formats, ", ")+" [WMSMOCK_DIFF_FORMAT]")
	fs.StringVar(&c.out, "out", cliflag.EnvString(getenv, "WMSMOCK_DIFF_OUT", "-"), "write the report to `FILE`, - for standard output [WMSMOCK_DIFF_OUT]")
	fs.StringVar(&c.failOn, "fail-on", cliflag.EnvString(getenv, "WMSMOCK_DIFF_FAIL_ON", ""), "exit 1 when a change is at least `SEVERITY`: breaking or review (default: never) [WMSMOCK_DIFF_FAIL_ON]")
	fs.StringVar(&c.rules, "rules", cliflag.EnvString(getenv, "WMSMOCK_DIFF_RULES", ""), "YAML `FILE` mapping rule ids to breaking, review or safe, laid over the service's policy [WMSMOCK_DIFF_RULES]")
	fs.BoolVar(&c.scenarios, "scenarios", cliflag.EnvBool(getenv, "WMSMOCK_DIFF_SCENARIOS", false, &envErrs), "run the conformance scenarios against the fake serving OLD and list those a change reaches [WMSMOCK_DIFF_SCENARIOS]")
	fs.StringVar(&c.scenariosFrom, "scenarios-from", cliflag.EnvString(getenv, "WMSMOCK_DIFF_SCENARIOS_FROM", ""), "take the scenarios' operations from a saved conformance result (JSON) `FILE` instead of a run [WMSMOCK_DIFF_SCENARIOS_FROM]")
	fs.StringVar(&c.tags, "tags", cliflag.EnvString(getenv, "WMSMOCK_TAGS", ""), "with --scenarios, a tag `EXPR`ession choosing the scenarios to run [WMSMOCK_TAGS]")
	fs.StringVar(&c.journal, "journal", cliflag.EnvString(getenv, "WMSMOCK_DIFF_JOURNAL", ""), "list the calls a change reaches from the fake's request journal (`FILE`: JSON of GET /_mock/admin/requests) [WMSMOCK_DIFF_JOURNAL]")
	fs.BoolVar(&c.listRules, "list-rules", false, "list every rule id with its default severity, and exit")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return c, err
	}
	if len(envErrs) > 0 {
		return c, cliflag.Problems(envErrs)
	}
	if c.listRules {
		return c, nil
	}
	if len(pos) != 2 {
		return c, fmt.Errorf("want two documents, OLD and NEW; got %d argument(s)", len(pos))
	}
	c.old, c.new = pos[0], pos[1]
	return c, c.validate()
}

// parseInterleaved parses flags wherever they stand among the positional
// arguments (the flag package stops at the first of these) and returns the
// positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func (c *diffConfig) validate() error {
	var errs []string
	if !slices.Contains(schemadiff.Formats, c.format) {
		errs = append(errs, fmt.Sprintf("--format %q: want one of %s", c.format, strings.Join(schemadiff.Formats, ", ")))
	}
	switch c.failOn {
	case "":
	case "breaking", "review":
		c.failOnSev = schemadiff.Severity(c.failOn)
	default:
		errs = append(errs, fmt.Sprintf("--fail-on %q: want breaking or review", c.failOn))
	}
	if c.scenarios && c.scenariosFrom != "" {
		errs = append(errs, "--scenarios and --scenarios-from: give one")
	}
	if c.tags != "" && !c.scenarios {
		errs = append(errs, "--tags chooses the scenarios of a --scenarios run")
	} else if c.tags != "" {
		if err := conformance.CheckTags(c.tags); err != nil {
			errs = append(errs, fmt.Sprintf("--tags: %v", err))
		}
	}
	for _, f := range [][2]string{{"OLD", c.old}, {"NEW", c.new}, {"--rules", c.rules}, {"--scenarios-from", c.scenariosFrom}, {"--journal", c.journal}} {
		if f[1] == "" || (f[1] == embeddedName && (f[0] == "OLD" || f[0] == "NEW")) {
			continue
		}
		if st, err := os.Stat(f[1]); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", f[0], err))
		} else if st.IsDir() {
			errs = append(errs, fmt.Sprintf("%s %s: is a directory", f[0], f[1]))
		}
	}
	if c.out != "-" {
		if st, err := os.Stat(filepath.Dir(c.out)); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Sprintf("--out %q: directory %s does not exist", c.out, filepath.Dir(c.out)))
		}
	}
	return cliflag.Problems(errs)
}

// diffCmd compares the two documents and writes the report; see the
// summary in parseDiff for its exit status.
func diffCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseDiff(args, getenv, stderr)
	if err != nil {
		return cliflag.ParseFailed("diff", err, stderr)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "wmsmock diff: %v\n", err)
		return 2
	}
	policy := schemadiff.DefaultPolicy()
	if cfg.rules != "" {
		if policy, err = policy.WithRulesFile(cfg.rules); err != nil {
			return fail(err)
		}
	}
	if cfg.listRules {
		for _, r := range policy.Rules() {
			dir := r.Direction
			if dir == "" {
				dir = "-"
			}
			fmt.Fprintf(stdout, "%-70s %-9s %-8s %s\n", r.ID, dir, r.Severity, r.Description)
		}
		return 0
	}
	old, next, err := loadSides(cfg.old, cfg.new)
	if err != nil {
		return fail(err)
	}
	rep, err := schemadiff.Compare(old, next, policy)
	if err != nil {
		return fail(err)
	}
	if cfg.scenarios || cfg.scenariosFrom != "" {
		res, source, err := scenarioRun(ctx, cfg, stderr)
		if err != nil {
			return fail(err)
		}
		rep.Scenarios = rep.Affect(source, schemadiff.Scenarios(res), schemadiff.Review)
		rep.Scenarios.Failed = schemadiff.FailedScenarios(res)
	}
	if cfg.journal != "" {
		reqs, err := schemadiff.ReadJournalFile(cfg.journal)
		if err != nil {
			return fail(err)
		}
		users, unmatched := old.Requests(reqs)
		rep.Calls = rep.Affect(cfg.journal, users, schemadiff.Review)
		rep.Calls.Unmatched = unmatched
	}
	if err := writeTo(cfg.out, stdout, func(w io.Writer) error { return rep.Write(w, cfg.format, cfg.failOnSev) }); err != nil {
		fmt.Fprintf(stderr, "wmsmock diff: %v\n", err)
		return 2
	}
	code := 0
	if cfg.failOnSev != "" && rep.Worst().AtLeast(cfg.failOnSev) {
		fmt.Fprintf(stderr, "wmsmock diff: changes at least %s (--fail-on %s)\n", cfg.failOnSev.Label(), cfg.failOn)
		code = 1
	}
	if rep.Scenarios != nil && len(rep.Scenarios.Failed) > 0 {
		fmt.Fprintf(stderr, "wmsmock diff: %d scenarios failed against %s (named in the report)\n", len(rep.Scenarios.Failed), cfg.old)
		code = 1
	}
	return code
}

// loadSides reads both documents at once; @embedded is the fake's own.
func loadSides(oldPath, newPath string) (*schemadiff.Spec, *schemadiff.Spec, error) {
	if oldPath != embeddedName && newPath != embeddedName {
		return schemadiff.LoadPair(oldPath, newPath)
	}
	read := func(p string) (*schemadiff.Spec, error) {
		if p == embeddedName {
			return schemadiff.Load(embeddedName, fixtures.OpenAPI())
		}
		return schemadiff.LoadFile(p)
	}
	o, err := read(oldPath)
	if err != nil {
		return nil, nil, err
	}
	n, err := read(newPath)
	return o, n, err
}

// scenarioRun gives the conformance result whose scenarios' operations
// are mapped: read from a file, or made now by running the scenarios
// against the fake serving OLD (so the operations they record are OLD's).
// Scenarios failing against OLD still called their operations, so a
// failed run is reported and used.
func scenarioRun(ctx context.Context, cfg diffConfig, stderr io.Writer) (*conformance.Result, string, error) {
	if cfg.scenariosFrom != "" {
		f, err := os.Open(cfg.scenariosFrom)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		res, err := schemadiff.ReadResult(f)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", cfg.scenariosFrom, err)
		}
		return res, cfg.scenariosFrom, nil
	}
	var doc *spec.Document // nil: the in-process fake serves the embedded one
	if cfg.old != embeddedName {
		var err error
		if doc, err = spec.LoadFile(cfg.old); err != nil {
			return nil, "", fmt.Errorf("serving %s: %w", cfg.old, err)
		}
	}
	fmt.Fprintf(stderr, "diff: running the scenarios against the fake serving %s\n", cfg.old)
	res, err := conformance.Run(ctx, conformance.Options{
		Target: inprocess.New(inprocess.Options{Document: doc}),
		Tags:   cfg.tags,
		Output: stderr,
	})
	fmt.Fprintln(stderr)
	if res == nil {
		return nil, "", fmt.Errorf("the scenarios did not run: %w", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "diff: %d scenarios failed against %s; their calls are still counted, and the report names them\n", res.Count(conformance.Failed), cfg.old)
	}
	return res, "a run against the fake serving " + cfg.old, nil
}
