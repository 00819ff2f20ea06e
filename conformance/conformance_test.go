package conformance_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/internal/testenv"
)

// wholeRunOnly skips, under -race, a test that runs the judge over many
// scenarios against fakes started for it to check what it reports (a
// profile's differences, the output formats, a wrong setup): each run is
// seconds of the fake's own work, three times slower under the race
// detector, and together they were half this package's CI time there.
// .ci/run runs them without -race; under it, TestConformance (every
// scenario against the in-process fake) and the sampled
// TestHabitsAreReportedNotFailed keep the judge's goroutines checked.
func wholeRunOnly(t *testing.T) {
	t.Helper()
	if testenv.RaceEnabled {
		t.Skip("whole judge runs against fakes: .ci/run runs it without -race")
	}
}

// TestConformance runs every scenario against the fake inside this process;
// each scenario is a subtest, and all must pass.
func TestConformance(t *testing.T) {
	var out bytes.Buffer
	started := time.Now()
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: inprocess.New(inprocess.Options{}),
		// A fixed shuffle: no scenario may depend on another's leftovers,
		// and a failure repeats.
		Seed:     20261125,
		Output:   &out,
		Format:   "progress",
		TestingT: t,
	})
	var summary strings.Builder
	if res != nil {
		res.WriteSummary(&summary)
	}
	t.Logf("godog:\n%s%s", out.String(), summary.String())
	t.Logf("suite time: %s", time.Since(started).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("the fake does not conform: %v", err)
	}
	if n := res.Count(conformance.Skipped); n > 0 {
		t.Errorf("%d scenarios were skipped against the in-process fake; every one must run", n)
	}
	if res.Count(conformance.Passed) == 0 {
		t.Fatal("no scenario ran")
	}
}
