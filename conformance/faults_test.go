package conformance_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
)

// The fault scenarios ask the fake's admin API for faults, which no other
// server has: against a server that is not wmsmock each would be skipped,
// with the reason, and none sends a call; a run of them alone would check
// nothing, so it is refused before it starts (a setup error naming the
// reason), after no call but the pre-flight's.
func TestFaultScenariosSkipAgainstAnotherServer(t *testing.T) {
	calls := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/user-info" {
			// Another server with the API: it knows the token.
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"user":{"id":1,"userName":"someone","email":"someone@example.com"},"needConsent":false}`)
			return
		}
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
	se, ok := conformance.AsSetupError(err)
	if !ok || se.Kind != conformance.NoScenarios || res != nil {
		t.Fatalf("got %v (%T), result %v; want a setup error: no scenario would run", err, err, res)
	}
	if !strings.Contains(se.Msg, "the target is not wmsmock") || !strings.Contains(se.Msg, "/_mock/ endpoints") ||
		!regexp.MustCompile(`all ([89]|\d\d) scenarios`).MatchString(se.Msg) {
		t.Errorf("the refusal does not say every fault scenario needs the fake: %q", se.Msg)
	}
	if calls != 0 {
		t.Errorf("%d API calls besides the pre-flight's reached the other server", calls)
	}
}
