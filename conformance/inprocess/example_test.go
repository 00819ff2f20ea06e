package inprocess_test

import (
	"context"
	"fmt"
	"io"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
)

// The conformance suite from your own tests: the scenarios tagged @auth
// against a fake inside the test's process. In a test, give the run
// TestingT: t to see each scenario as a subtest; add mock options (your
// profile, your document) through inprocess.Options.
func Example() {
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: inprocess.New(inprocess.Options{}),
		Tags:   "@auth",
		Output: io.Discard, // the progress characters
	})
	if err != nil {
		fmt.Println("the fake does not conform:", err)
		return
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n",
		res.Count(conformance.Passed), res.Count(conformance.Failed), res.Count(conformance.Skipped))
	// Output: 8 passed, 0 failed, 0 skipped
}
