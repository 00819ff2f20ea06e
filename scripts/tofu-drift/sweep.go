package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// The steps of a kind, in order, as the table names them.
const (
	stepApply = iota
	stepPlan
	stepImport
	stepDestroy
	nSteps
)

var stepNames = [nSteps]string{"apply", "plan", "import+plan", "destroy"}

// An outcome is one step's result: "ok", "FAIL", "n/a" (the step does not
// apply to the kind), "skip", or "" when it did not run.
type outcome struct {
	status string
	note   string   // a short word on an ok or n/a ("write-only: value")
	detail []string // the first lines of a failure: the diff or the error
}

type result struct {
	kind  string
	steps [nSteps]outcome
	took  time.Duration
	why   string // a skipped, missing or unknown kind's reason
}

func (r result) failed() bool {
	for _, s := range r.steps {
		if s.status == "FAIL" {
			return true
		}
	}
	return false
}

// maxDetail is how many lines of a failure the table's notes show; the
// whole output is in the kind's logs.
const maxDetail = 12

// runKind checks one kind on a fresh fake and prints each step as it ends.
func runKind(ctx context.Context, cfg config, j *judge, k kind, out io.Writer) (r result) {
	r.kind = k.name
	start := time.Now()
	defer func() { r.took = time.Since(start).Round(100 * time.Millisecond) }()
	say := func(step int, o outcome, took time.Duration) {
		r.steps[step] = o
		line := fmt.Sprintf("   %-12s %s", stepNames[step], o.status)
		if o.note != "" {
			line += " (" + o.note + ")"
		}
		if took > 0 {
			line += fmt.Sprintf(" in %s", took.Round(100*time.Millisecond))
		}
		fmt.Fprintln(out, line)
		for _, l := range o.detail {
			fmt.Fprintln(out, "      "+l)
		}
	}
	switch {
	case k.unknown:
		r.why = "kinds/" + filepath.Base(k.file) + " is for a kind the provider does not have"
		say(stepApply, outcome{status: "FAIL", detail: []string{r.why}}, 0)
		return r
	case k.file == "":
		r.why = "no configuration in kinds/" + k.name + ".tf"
		say(stepApply, outcome{status: "FAIL", detail: []string{r.why}}, 0)
		return r
	case k.skip != "":
		r.why = k.skip
		for i := range r.steps {
			r.steps[i].status = "skip"
		}
		fmt.Fprintf(out, "   skipped: %s\n", k.skip)
		return r
	}

	work := filepath.Join(cfg.logs, k.name)
	if err := writeConfig(cfg, k, work); err != nil {
		say(stepApply, outcome{status: "FAIL", detail: []string{err.Error()}}, 0)
		return r
	}
	f, err := startFake(ctx, cfg.wmsmock, cfg.spec, filepath.Join(work, "fake.log"))
	if err != nil {
		say(stepApply, outcome{status: "FAIL", detail: []string{err.Error()}}, 0)
		return r
	}
	defer func() {
		if err := f.stop(); err != nil {
			fmt.Fprintf(out, "   (the fake: %v)\n", err)
		}
	}()
	fmt.Fprintf(out, "   fake at %s\n", f.url)
	t := tofu{bin: cfg.tofu, dir: work, timeout: cfg.stepTimeout, env: []string{
		"TF_VAR_server_url=" + f.url, "TF_VAR_token=" + token, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
	}}

	began := time.Now()
	if res := t.run(ctx, "init", "init", "-input=false", "-no-color"); res.err != nil {
		say(stepApply, failed("tofu init: ", res), time.Since(began))
		return r
	}
	res := t.run(ctx, "apply", "apply", "-input=false", "-auto-approve", "-no-color")
	if res.err != nil {
		say(stepApply, failed("", res), time.Since(began))
		// Clean up without reading again: a data source that failed the
		// apply would fail the destroy's refresh the same way.
		destroy(ctx, t, say, "-refresh=false")
		return r
	}
	say(stepApply, outcome{status: "ok"}, time.Since(began))

	began = time.Now()
	say(stepPlan, planClean(ctx, t, j), time.Since(began))

	began = time.Now()
	switch {
	case k.data:
		say(stepImport, outcome{status: "n/a", note: "a data source"}, 0)
	case noImport[k.typ] != "":
		say(stepImport, outcome{status: "n/a", note: noImport[k.typ]}, 0)
	case importBroken[k.typ] != "":
		say(stepImport, outcome{status: "skip", note: importBroken[k.typ]}, 0)
	default:
		say(stepImport, importAndPlan(ctx, cfg, t, j, k), time.Since(began))
	}
	destroy(ctx, t, say)
	return r
}

func failed(prefix string, res runResult) outcome {
	lines := res.errorLines()
	if len(lines) > maxDetail {
		lines = append(lines[:maxDetail-1], "...")
	}
	if prefix != "" && len(lines) > 0 {
		lines[0] = prefix + lines[0]
	}
	return outcome{status: "FAIL", detail: lines}
}

func destroy(ctx context.Context, t tofu, say func(int, outcome, time.Duration), flags ...string) {
	began := time.Now()
	o := outcome{status: "ok"}
	args := append([]string{"destroy", "-input=false", "-auto-approve", "-no-color"}, flags...)
	if res := t.run(ctx, "destroy", args...); res.err != nil {
		o = failed("", res)
	}
	say(stepDestroy, o, time.Since(began))
}

// writeConfig makes the kind's work directory: the provider, the kind's
// configuration and the files configurations read (kinds/files).
func writeConfig(cfg config, k kind, work string) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	copies := map[string]string{
		filepath.Join(filepath.Dir(cfg.kindsDir), "provider.tf"): "provider.tf",
		k.file: filepath.Base(k.file),
	}
	extra, _ := filepath.Glob(filepath.Join(cfg.kindsDir, "files", "*"))
	for _, f := range extra {
		copies[f] = filepath.Base(f)
	}
	for from, to := range copies {
		if err := copyFile(from, filepath.Join(work, to)); err != nil {
			return err
		}
	}
	return nil
}

// planClean plans right after the apply: nothing may change.
func planClean(ctx context.Context, t tofu, j *judge) outcome {
	changes, res := plan(ctx, t, j, "plan")
	if res.err != nil {
		return failed("", res)
	}
	if len(changes) == 0 {
		return outcome{status: "ok"}
	}
	o := outcome{status: "FAIL"}
	for _, c := range changes {
		o.detail = append(o.detail, c.lines(maxDetail)...)
	}
	return o
}

// plan runs `tofu plan -detailed-exitcode` and reads what it would change.
func plan(ctx context.Context, t tofu, j *judge, label string) ([]change, runResult) {
	res := t.runAllowing(ctx, label, []int{2}, "plan", "-input=false", "-no-color", "-detailed-exitcode", "-out="+label+".tfplan")
	if res.err != nil || res.code == 0 {
		return nil, res
	}
	show := t.run(ctx, label+"-show", "show", "-json", label+".tfplan")
	if show.err != nil {
		return nil, show
	}
	changes, err := planChanges(show.stdout, j)
	if err != nil {
		show.err = err
		return nil, show
	}
	if len(changes) == 0 {
		// exit code 2 with nothing in resource_changes: output changes.
		changes = append(changes, change{address: "(outputs or other changes; see " + label + ".log)", actions: []string{"?"}})
	}
	return changes, res
}

// importAndPlan imports every resource of the applied configuration that
// the provider can import into a copy of its state from which they were
// removed, then plans. The kind's own resources must plan no change but
// for values the service never returns; a change to another resource (a
// parent) is shown as a note, as that resource's own kind fails for it.
func importAndPlan(ctx context.Context, cfg config, applied tofu, j *judge, k kind) outcome {
	show := applied.run(ctx, "state-show", "show", "-json")
	if show.err != nil {
		return failed("reading the state: ", show)
	}
	resources, err := stateResources(show.stdout)
	if err != nil {
		return outcome{status: "FAIL", detail: []string{err.Error()}}
	}
	dir := filepath.Join(applied.dir, "import")
	if err := writeConfig(cfg, k, dir); err != nil {
		return outcome{status: "FAIL", detail: []string{err.Error()}}
	}
	for _, name := range []string{"terraform.tfstate", ".terraform.lock.hcl"} {
		if err := copyFile(filepath.Join(applied.dir, name), filepath.Join(dir, name)); err != nil {
			return outcome{status: "FAIL", detail: []string{err.Error()}}
		}
	}
	t := applied
	t.dir = dir
	if res := t.run(ctx, "init", "init", "-input=false", "-no-color"); res.err != nil {
		return failed("tofu init: ", res)
	}
	o := outcome{status: "ok"}
	var notes []string
	for _, rs := range resources {
		idOf, ok := importIDs[rs.typ]
		if !ok {
			if _, known := noImport[rs.typ]; !known && rs.typ == k.typ {
				o.status = "FAIL"
				o.detail = append(o.detail, rs.address+": no import id format known for "+rs.typ)
			}
			continue // stays in the state as applied
		}
		id, err := idOf(rs.values)
		if err != nil {
			o.status = "FAIL"
			o.detail = append(o.detail, fmt.Sprintf("%s: building its import id: %v", rs.address, err))
			continue
		}
		if res := t.run(ctx, "import", "state", "rm", "-no-color", rs.address); res.err != nil {
			return failed("tofu state rm: ", res)
		}
		if res := t.run(ctx, "import", "import", "-input=false", "-no-color", rs.address, id); res.err != nil {
			lines := failed(fmt.Sprintf("import %s %s: ", rs.address, id), res).detail
			if rs.typ == k.typ {
				o.status = "FAIL"
				o.detail = append(o.detail, lines...)
			} else {
				notes = append(notes, lines...)
			}
		}
	}
	changes, res := plan(ctx, t, j, "plan")
	if res.err != nil {
		f := failed("", res)
		f.detail = append(o.detail, f.detail...)
		return f
	}
	excused := map[string][]string{} // paths by excuse
	for _, c := range changes {
		switch {
		case c.typ == k.typ && c.excused():
			for _, d := range c.diffs {
				excused[d.excuse] = append(excused[d.excuse], d.path)
			}
		case c.typ == k.typ:
			o.status = "FAIL"
			o.detail = append(o.detail, c.lines(maxDetail)...)
		default:
			notes = append(notes, c.lines(4)...)
		}
	}
	var reasons []string
	for _, why := range sortedKeys(excused) {
		reasons = append(reasons, why+": "+strings.Join(dedupe(excused[why]), ", "))
	}
	if len(reasons) > 0 {
		o.note = "set again, " + strings.Join(reasons, "; ")
	}
	if len(notes) > 0 {
		// Shown with the kind's progress; the parent's own kind fails for it.
		if o.status == "ok" {
			o.note = strings.TrimPrefix(o.note+"; a parent changes after its import", "; ")
		}
		o.detail = append(o.detail, "(a parent's, not this kind's:)")
		o.detail = append(o.detail, notes...)
	}
	return o
}

type stateResource struct {
	address, typ string
	values       map[string]any
}

// stateResources lists the managed resources of `tofu show -json`, in the
// order of the state.
func stateResources(showJSON []byte) ([]stateResource, error) {
	var state struct {
		Values struct {
			Root struct {
				Resources []struct {
					Address string         `json:"address"`
					Mode    string         `json:"mode"`
					Type    string         `json:"type"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	dec := json.NewDecoder(bytes.NewReader(showJSON))
	dec.UseNumber()
	if err := dec.Decode(&state); err != nil {
		return nil, fmt.Errorf("reading the state: %w", err)
	}
	var out []stateResource
	for _, r := range state.Values.Root.Resources {
		if r.Mode == "managed" {
			out = append(out, stateResource{address: r.Address, typ: r.Type, values: r.Values})
		}
	}
	return out, nil
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// writeTable prints one row per kind and then, for each kind that failed
// or was skipped, why, and what a passing import set again and why.
func writeTable(out io.Writer, results []result) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tapply\tplan\timport+plan\tdestroy\ttime")
	counts := map[string]int{}
	for _, r := range results {
		row := []string{r.kind}
		for _, s := range r.steps {
			st := s.status
			if st == "" {
				st = "-"
			}
			row = append(row, st)
		}
		row = append(row, r.took.String())
		fmt.Fprintln(tw, strings.Join(row, "\t"))
		switch {
		case r.failed():
			counts["failed"]++
		case r.steps[stepApply].status == "skip":
			counts["skipped"]++
		default:
			counts["passed"]++
		}
	}
	tw.Flush()
	fmt.Fprintf(out, "\n%d kinds: %d passed, %d failed, %d skipped\n", len(results), counts["passed"], counts["failed"], counts["skipped"])
	for _, r := range results {
		var lines []string
		if r.why != "" && !r.failed() {
			lines = append(lines, "  skipped: "+r.why)
		}
		for i, s := range r.steps {
			switch {
			case r.why != "" && !r.failed():
			case s.status == "skip":
				lines = append(lines, fmt.Sprintf("  %s: skipped: %s", stepNames[i], s.note))
			case s.status == "FAIL":
				lines = append(lines, fmt.Sprintf("  %s:", stepNames[i]))
				for _, l := range s.detail {
					lines = append(lines, "    "+l)
				}
			case s.status == "ok" && s.note != "":
				lines = append(lines, fmt.Sprintf("  %s: ok, %s", stepNames[i], s.note))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(out, "\n%s:\n%s\n", r.kind, strings.Join(lines, "\n"))
		}
	}
}
