package conformance_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
)

// What a run writes to Output while it runs is progress only, in either
// format: each step's character, or each scenario and step by name; the
// counts are the summary's alone (godog's own would count a difference
// from the profile as a failure).
func TestProgressFormatsHaveNoSummary(t *testing.T) {
	wholeRunOnly(t)
	for _, c := range []struct{ format, want string }{
		{"progress", "..."},
		{"pretty", "Scenario: A call without a token is refused (authentication.feature)\n  passed    the Authorization header is"},
	} {
		var out bytes.Buffer
		res, err := conformance.Run(context.Background(), conformance.Options{
			Target: inprocess.New(inprocess.Options{}), Tags: "@auth && @contract", Format: c.format, Output: &out, Seed: 0,
		})
		if err != nil || res.Count(conformance.Passed) == 0 {
			t.Fatalf("%s: %v", c.format, err)
		}
		if !strings.Contains(out.String(), c.want) || strings.Contains(out.String(), "scenarios (") || strings.Contains(out.String(), "steps (") {
			t.Errorf("%s output:\n%s", c.format, out.String())
		}
	}
}
