package conformance_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// TestJudgeOnThePublishedSchema: the fake serving the service's published
// schema passes the schema scenarios as the independent judge reads that
// schema: its own model, discriminated compositions and ECMA patterns
// included, and calls it builds from the document alone.
func TestJudgeOnThePublishedSchema(t *testing.T) {
	if testenv.RaceEnabled {
		// A minute under the race detector, for a sweep that runs on one
		// goroutine: the plain go test ./... run covers it.
		t.Skip("the published-schema sweep is left to the run without -race")
	}
	doc, err := spec.LoadFile(testenv.PublishedSpec(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: inprocess.New(inprocess.Options{Document: doc}),
		Tags:   "@schema",
		Output: io.Discard,
	})
	if res == nil {
		t.Fatalf("the suite did not run: %v", err)
	}
	if err != nil {
		var b strings.Builder
		res.WriteSummary(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
}
