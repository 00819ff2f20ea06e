// Package conformance runs the Gherkin scenarios of package features
// against a target: the fake inside this process (what go test does) or any
// server given by base URL, such as the real service or the fake started
// elsewhere. The same scenarios, unchanged, judge both.
//
// The step definitions speak only HTTP to the target. What a target cannot
// support (fake-only control, a second token, a schema, or permission to
// write data) is known before the run starts, and the scenarios that need it
// are left out and reported as skipped with the reason, so a run against the
// real service is safe by default.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/wmsmock/wmsmock/features"
	"github.com/wmsmock/wmsmock/profile"
)

// Options configures a run.
type Options struct {
	// Target is the server under test (required).
	Target Target
	// Tags is a godog tag expression choosing scenarios, e.g. "@auth" or
	// "~@rate-limit && ~@paging". Empty means all.
	Tags string
	// AllowDestructive lets scenarios that create or delete data run on a
	// target that is not disposable.
	AllowDestructive bool
	// Format is the godog formatter written to Output (default "progress").
	Format string
	// Output receives the formatter's report (default os.Stdout).
	Output io.Writer
	// JUnitFile and CucumberJSONFile, when set, also get the report in
	// those formats, for CI.
	JUnitFile, CucumberJSONFile string
	// Timeout bounds the whole run (default DefaultTimeout).
	Timeout time.Duration
	// TestingT, when set, runs each scenario as a subtest of it.
	TestingT *testing.T
	// Profile is the behaviour profile @profile scenarios take their
	// expected values from: the one the target was started or calibrated
	// with. Nil means the embedded default.
	Profile *profile.Profile
	// StrictProfile counts a @profile scenario the target does not pass as
	// a failure; by default it is reported as a difference (Differs).
	StrictProfile bool
	// StrictSchema fails an answer for the service's habits (a null where
	// the schema has a non-nullable property), naming each; by default
	// they are counted and listed (Habits), not failed.
	StrictSchema bool
	// Seed, when not 0, runs the scenarios in an order shuffled by it, so
	// that a scenario leaning on what another left behind shows up; the
	// same seed gives the same order. 0 keeps the files' order.
	Seed int64
	// Features is where the .feature files are read from (default
	// features.FS); Paths within it (default ".").
	Features fs.FS
	Paths    []string
}

// DefaultTimeout bounds a whole run unless told otherwise.
const DefaultTimeout = 10 * time.Minute

// Status is the outcome of one scenario.
type Status string

// Scenario outcomes.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	NotRun  Status = "not run"
	// Differs is a @profile scenario the target did not pass: it answers a
	// point the document leaves open otherwise than the profile in use.
	// That is a difference to report, not a broken contract, unless
	// Options.StrictProfile says so.
	Differs Status = "differs"
)

// ScenarioResult is what happened to one scenario.
type ScenarioResult struct {
	Feature string
	Name    string
	URI     string // the feature file
	Line    int64
	Tags    []string
	Status  Status
	// Reason says why a scenario failed (the first failing step's error)
	// or was skipped.
	Reason string
	// Warnings are problems met while cleaning up after the scenario.
	Warnings []string
	// Calls are the calls the scenario's steps made, in order (a burst's
	// in the order they were answered).
	Calls []Call `json:",omitempty"`
	// Operations are the document's operations those calls addressed
	// ("GET /workflow"), when the run had a document.
	Operations []string `json:",omitempty"`
	// Habits are the places the scenario's answers departed from the
	// document the way the service's own do (habits.go).
	Habits []Habit `json:",omitempty"`
}

// Result is the outcome of a run.
type Result struct {
	Target    string
	Scenarios []ScenarioResult
	Duration  time.Duration
	// DocumentOperations is how many operations the run's document has
	// (0 without a document): the whole a coverage figure is taken of.
	DocumentOperations int
	// Seed is the order's seed (Options.Seed): 0 for the files' order.
	Seed int64
	// StrictSchema is Options.StrictSchema: the habits were failed.
	StrictSchema bool
	// Nulls is the profile's answers.nulls the run expected: "service"
	// (a property without a value is sent as null) or "omit" (it is left
	// out, so left out and null are the same answer).
	Nulls string `json:",omitempty"`
}

// Count returns how many scenarios ended with status s.
func (r *Result) Count(s Status) int {
	n := 0
	for _, sc := range r.Scenarios {
		if sc.Status == s {
			n++
		}
	}
	return n
}

// FailedNames returns the names of the scenarios that failed, sorted.
func (r *Result) FailedNames() []string { return r.names(Failed) }

// DifferingNames returns the names of the @profile scenarios whose target
// differs from the profile, sorted.
func (r *Result) DifferingNames() []string { return r.names(Differs) }

func (r *Result) names(s Status) []string {
	var out []string
	for _, sc := range r.Scenarios {
		if sc.Status == s {
			out = append(out, sc.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ErrScenariosFailed is returned (wrapped) by Run when the suite ran but at
// least one scenario failed.
var ErrScenariosFailed = errors.New("conformance: scenarios failed")

// Run runs the scenarios against the target. The error is nil only when
// every selected scenario passed, was skipped for a stated reason, or (a
// @profile scenario, without StrictProfile) found a difference from the
// profile; it wraps ErrScenariosFailed when the run itself worked but
// scenarios failed.
func Run(ctx context.Context, o Options) (*Result, error) {
	started := time.Now()
	if o.Target == nil {
		return nil, errors.New("conformance: no target")
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(o.Timeout, DefaultTimeout))
	defer cancel()

	fsys := o.Features
	if fsys == nil {
		fsys = features.FS
	}
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if err := CheckTags(o.Tags); err != nil {
		return nil, err
	}
	// What the tags select is known before the target is called, so a
	// typo in them is reported even when the server is down.
	sel, err := selectScenarios(fsys, paths, o.Tags)
	if err != nil {
		return nil, err
	}

	info, err := o.Target.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("conformance: starting the target: %w", err)
	}
	defer o.Target.Close()

	if o.Profile == nil {
		o.Profile = profile.Default()
	}
	r := &runner{opts: o, info: info, results: map[string]*ScenarioResult{}}
	plan := r.plan(sel)
	if r.toRun == 0 {
		return nil, allSkipped(plan)
	}

	format := formatFor(o.Format)
	if o.JUnitFile != "" {
		format += ",junit:" + o.JUnitFile
	}
	if o.CucumberJSONFile != "" {
		format += ",cucumber:" + o.CucumberJSONFile
	}
	out := o.Output
	if out == nil {
		out = os.Stdout
	}
	suite := godog.TestSuite{
		Name:                "wmsmock conformance",
		ScenarioInitializer: r.initScenario,
		Options: &godog.Options{
			Format:         format,
			Output:         out,
			NoColors:       true,
			Strict:         true,
			Randomize:      o.Seed,
			Concurrency:    1,
			Tags:           r.runTags(),
			FS:             fsys,
			Paths:          paths,
			DefaultContext: ctx,
			TestingT:       o.TestingT,
		},
	}
	code := suite.Run()

	res := &Result{Target: info.Name, Seed: o.Seed, StrictSchema: o.StrictSchema, Nulls: o.Profile.Answers.Nulls}
	for _, p := range plan {
		if got, ok := r.results[p.key]; ok {
			sc := *got
			sc.Feature, sc.Line = p.result.Feature, p.result.Line
			res.Scenarios = append(res.Scenarios, sc)
			continue
		}
		sc := p.result
		if sc.Status == "" {
			sc.Status, sc.Reason = NotRun, "the run ended before this scenario"
			if ctx.Err() != nil {
				sc.Reason = "the run's time limit was reached first"
			}
		}
		res.Scenarios = append(res.Scenarios, sc)
	}
	res.Duration = time.Since(started)
	if doc := info.Document; doc != nil {
		res.DocumentOperations = len(doc.Operations)
		for i := range res.Scenarios {
			res.Scenarios[i].Operations = doc.exercised(res.Scenarios[i].Calls)
		}
	}

	if code == 2 {
		return res, errors.New("conformance: godog refused its options (see the messages above)")
	}
	if err := markDifferences(o, res); err != nil {
		return res, err
	}
	// godog's own code also counts the @profile scenarios that differ,
	// which are not failures: the results decide.
	if n := res.Count(Failed) + res.Count(NotRun); n > 0 || code != 0 && res.Count(Differs) == 0 {
		return res, fmt.Errorf("%w: %d of %d", ErrScenariosFailed, n, len(res.Scenarios))
	}
	return res, nil
}

// runner holds what a run shares between scenarios.
type runner struct {
	opts Options
	info Info

	// excluded are tags whose scenarios are left out of the run because
	// the target or the options do not allow them.
	excluded []string
	toRun    int
	feature  map[string]string // feature file URI -> feature name

	mu      sync.Mutex
	results map[string]*ScenarioResult
}

type planned struct {
	key    string
	result ScenarioResult
}

// selected is what the tag expression selects: each scenario, in file
// order, and the name of each feature file.
type selected struct {
	scenarios []planned
	features  map[string]string // feature file URI -> feature name
}

// selectScenarios reads the scenarios the tag expression selects, and
// refuses an expression that selects none.
func selectScenarios(fsys fs.FS, paths []string, tags string) (selected, error) {
	ts := godog.TestSuite{Options: &godog.Options{FS: fsys, Paths: paths, Tags: tags}}
	feats, err := ts.RetrieveFeatures()
	if err != nil {
		return selected{}, fmt.Errorf("conformance: reading the scenarios: %w", err)
	}
	sel := selected{features: map[string]string{}}
	for _, f := range feats {
		name := f.Uri
		if f.GherkinDocument != nil && f.GherkinDocument.Feature != nil {
			name = f.GherkinDocument.Feature.Name
		}
		sel.features[f.Uri] = name
		for _, p := range f.Pickles {
			sr := ScenarioResult{Feature: name, Name: p.Name, URI: p.Uri, Tags: pickleTags(p.Tags)}
			if sc := f.FindScenario(p.AstNodeIds[0]); sc != nil {
				sr.Line = sc.Location.Line
			}
			sel.scenarios = append(sel.scenarios, planned{key: pickleKey(p.Uri, p.AstNodeIds), result: sr})
		}
	}
	if len(sel.scenarios) == 0 {
		return selected{}, setupErr(NoScenarios, "the tag expression %q matches no scenario (`wmsmock conform --list-tags` lists the tags)", tags)
	}
	return sel, nil
}

// allSkipped is the error of a run whose every selected scenario would be
// skipped: a run that checks nothing must not pass as one that checked.
func allSkipped(plan []planned) error {
	reasons := map[string]int{}
	var order []string
	for _, p := range plan {
		if reasons[p.result.Reason] == 0 {
			order = append(order, p.result.Reason)
		}
		reasons[p.result.Reason]++
	}
	if len(plan) == 1 {
		return setupErr(NoScenarios, "the one scenario the tags select would be skipped: it %s", order[0])
	}
	var parts []string
	for _, why := range order {
		parts = append(parts, fmt.Sprintf("%d %s", reasons[why], why))
	}
	return setupErr(NoScenarios, "all %d scenarios the tags select would be skipped (%s)", len(plan), strings.Join(parts, "; "))
}

// plan decides, before anything runs, which of the selected scenarios the
// target cannot serve.
func (r *runner) plan(sel selected) []planned {
	r.feature = sel.features
	excluded := map[string]bool{}
	out := make([]planned, 0, len(sel.scenarios))
	for _, p := range sel.scenarios {
		if tag, reason := r.skipReason(tagSet(p.result.Tags)); reason != "" {
			p.result.Status, p.result.Reason = Skipped, reason
			excluded[tag] = true
		} else {
			r.toRun++
		}
		out = append(out, p)
	}
	for t := range excluded {
		r.excluded = append(r.excluded, t)
	}
	sort.Strings(r.excluded)
	return out
}

// runTags is the user's tag expression with the excluded tags taken out.
// godog's expressions are AND-ed groups of OR-ed tags, so appending
// "&& ~@tag" groups keeps the user's selection intact.
func (r *runner) runTags() string {
	parts := []string{}
	if strings.TrimSpace(r.opts.Tags) != "" {
		parts = append(parts, r.opts.Tags)
	}
	for _, t := range r.excluded {
		parts = append(parts, "~"+t)
	}
	return strings.Join(parts, " && ")
}

// Tags with a meaning to the runner.
const (
	tagDestructive = "@destructive"
	tagFakeOnly    = "@fake-only"
	tagSecondToken = "@second-token"
	tagSchema      = "@schema"
	tagRateLimit   = "@rate-limit"
	tagProfile     = "@profile"
)

// skipReason says why a scenario with these tags cannot run on this target
// with these options, and which tag is the cause; "" when it can run.
func (r *runner) skipReason(tags map[string]bool) (string, string) {
	switch {
	case tags[tagFakeOnly] && !r.info.Fake:
		return tagFakeOnly, "needs control only the fake has (its expired token, a movable clock, /_mock/ endpoints); the target is not wmsmock"
	case tags[tagDestructive] && !r.info.Disposable && !r.opts.AllowDestructive:
		return tagDestructive, "creates or deletes data on the target; run with --allow-destructive to include it"
	case tags[tagSecondToken] && !r.info.SecondToken:
		return tagSecondToken, "needs a second access token; pass --token2"
	case tags[tagSchema] && r.info.Document == nil:
		return tagSchema, "no schema to validate against: " + r.info.DocumentSource
	}
	return "", ""
}

func (r *runner) record(sr *ScenarioResult, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[key] = sr
}

// CheckTags refuses tag expressions that godog's simple parser would
// panic on or silently misread.
func CheckTags(expr string) error {
	if strings.TrimSpace(expr) == "" {
		return nil
	}
	for _, and := range strings.Split(expr, "&&") {
		for _, or := range strings.Split(and, ",") {
			t := strings.TrimPrefix(strings.TrimSpace(or), "~")
			if !strings.HasPrefix(t, "@") || len(t) < 2 || strings.ContainsAny(t, " ()!|") {
				return fmt.Errorf("tag expression %q: each term must be @tag or ~@tag, joined by \",\" (or) and \"&&\" (and)", expr)
			}
		}
	}
	return nil
}

func pickleKey(uri string, astIDs []string) string {
	return uri + "#" + strings.Join(astIDs, ",")
}

func tagSet(tags []string) map[string]bool {
	m := make(map[string]bool, len(tags))
	for _, t := range tags {
		m[t] = true
	}
	return m
}
