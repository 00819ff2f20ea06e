package conformance_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
)

// The fault scenarios ask the fake's admin API for faults, which no other
// server has: against a server that is not wmsmock each is skipped, with
// the reason, and none sends a call.
func TestFaultScenariosSkipAgainstAnotherServer(t *testing.T) {
	calls := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/_mock/") {
			calls++
		}
		http.NotFound(w, r)
	}))
	defer other.Close()
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: conformance.Remote(conformance.RemoteOptions{BaseURL: other.URL + "/api", Token: "t"}),
		Tags:   "@faults",
		Output: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scenarios) < 8 || res.Count(conformance.Skipped) != len(res.Scenarios) {
		t.Fatalf("%d scenarios, %d skipped; want every fault scenario skipped", len(res.Scenarios), res.Count(conformance.Skipped))
	}
	for _, sc := range res.Scenarios {
		if !strings.Contains(sc.Reason, "the target is not wmsmock") || !strings.Contains(sc.Reason, "/_mock/ endpoints") {
			t.Errorf("%s: skipped because %q", sc.Name, sc.Reason)
		}
	}
	if calls != 0 {
		t.Errorf("%d API calls reached the other server", calls)
	}
}
