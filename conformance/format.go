package conformance

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"
)

// godog's own formatters end a run with their summary, counted their way
// (a scenario that differs from the profile is "failed" there, a skipped
// one is not counted). A run has one summary, Result.WriteSummary, so what
// is written to Output while the scenarios run is one of these two, which
// show progress and nothing after it. The JUnit and Cucumber reports are
// godog's own.
const (
	progressFormat = "wmsmock-progress"
	prettyFormat   = "wmsmock-pretty"
)

func init() {
	godog.Format(progressFormat, "a character per step, and no summary", func(_ string, w io.Writer) godog.Formatter {
		return &progress{w: w}
	})
	godog.Format(prettyFormat, "each scenario and its steps as they run, and no summary", func(_ string, w io.Writer) godog.Formatter {
		return &pretty{w: w}
	})
}

// formatFor is the formatter to write to Output for Options.Format.
func formatFor(format string) string {
	switch format {
	case "", "progress":
		return progressFormat
	case "pretty":
		return prettyFormat
	}
	return format
}

// silent is a formatter that prints nothing; the two below print what
// they override.
type silent struct{}

func (silent) TestRunStarted()                                   {}
func (silent) Feature(*messages.GherkinDocument, string, []byte) {}
func (silent) Pickle(*messages.Pickle)                           {}
func (silent) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (silent) Failed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (silent) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (silent) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (silent) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (silent) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (silent) Ambiguous(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (silent) Summary() {}

// progress prints a character per step: . passed, F failed, - skipped,
// U undefined, P pending, A ambiguous; 70 to a line, then the count.
type progress struct {
	silent
	mu    sync.Mutex
	w     io.Writer
	steps int
}

func (p *progress) step(c byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.w.Write([]byte{c})
	if p.steps++; p.steps%70 == 0 {
		fmt.Fprintf(p.w, " %d\n", p.steps)
	}
}

func (p *progress) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.step('.')
}
func (p *progress) Failed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
	p.step('F')
}
func (p *progress) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.step('-')
}
func (p *progress) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.step('U')
}
func (p *progress) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.step('P')
}
func (p *progress) Ambiguous(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
	p.step('A')
}

// Summary ends the last line of characters.
func (p *progress) Summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.steps%70 != 0 {
		fmt.Fprintf(p.w, " %d\n", p.steps)
	}
}

// pretty prints each scenario as it starts and each step with its
// outcome; why a step failed is in the summary.
type pretty struct {
	silent
	mu sync.Mutex
	w  io.Writer
}

func (p *pretty) Pickle(pk *messages.Pickle) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\nScenario: %s (%s)\n", pk.Name, pk.Uri)
}

func (p *pretty) step(st *messages.PickleStep, outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "  %-9s %s\n", outcome, strings.TrimSpace(st.Text))
}

func (p *pretty) Passed(_ *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	p.step(st, "passed")
}
func (p *pretty) Failed(_ *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition, _ error) {
	p.step(st, "FAILED")
}
func (p *pretty) Skipped(_ *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	p.step(st, "skipped")
}
func (p *pretty) Undefined(_ *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	p.step(st, "undefined")
}
func (p *pretty) Pending(_ *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	p.step(st, "pending")
}
func (p *pretty) Ambiguous(_ *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition, _ error) {
	p.step(st, "ambiguous")
}
