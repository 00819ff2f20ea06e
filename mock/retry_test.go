package mock_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/profile"
)

// The service's Terraform provider calls the API through a generated SDK
// whose default retry policy (internal/sdk of
// github.com/seqeralabs/terraform-provider-seqera, every operation's
// retry.Config) retries the statuses 429, 502, 503 and 504, and, for
// idempotent methods, a connection that ended before an answer (an end of
// file, a reset, a broken pipe) or timed out, with growing waits (from
// 500ms, at most 30s apart, for up to 5 minutes) or the wait Retry-After
// asks for. Its packages are internal to the provider's module, so this
// test cannot call them; scripts/faults-sdk.sh builds a program inside a
// copy of that module and runs the SDK itself against `wmsmock serve`
// (docs/faults.md). What this test holds, on every `go test`, is the
// fake's half of the bargain: a burst of injected 503s and dropped
// connections reaches a client as exactly the statuses and errors that
// policy sorts as worth retrying, so a client without retries fails on
// the first and one with the policy succeeds once the burst ends.

// sdkWouldRetry sorts an attempt's outcome as the SDK's default policy
// does, for a GET.
func sdkWouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		var ne net.Error
		return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
			errors.As(err, &ne) && ne.Timeout()
	}
	return slices.Contains([]int{429, 502, 503, 504}, resp.StatusCode)
}

// burst asks the fake for three 503s from the gateway, then two calls
// whose connection is reset and one with an empty reply, on ListWorkflows
// (the newest rule is tried first, so they come in that order).
func burst(t *testing.T, srv *mock.Server) {
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnEmpty, Times: 1})
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnReset, Times: 2})
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Status: 503, Times: 3})
}

// TestClientWithoutRetriesSeesTheBurst: a plain net/http client, which
// retries nothing, gets the first 503 as its answer.
func TestClientWithoutRetriesSeesTheBurst(t *testing.T) {
	srv, _ := listening(t)
	burst(t, srv)
	resp, err := get(t, freshClient(time.Minute), srv, "/workflow")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("status %d, want the burst's 503", resp.StatusCode)
	}
}

// TestClientWithTheSDKsRetriesOutlastsTheBurst: a client that retries what
// the SDK retries (without its waits, which are the SDK's business) gets
// through after the six failed attempts, each of them one it would retry.
func TestClientWithTheSDKsRetriesOutlastsTheBurst(t *testing.T) {
	srv, _ := listening(t)
	burst(t, srv)
	var outcomes []string
	for attempt := 1; ; attempt++ {
		resp, err := get(t, freshClient(time.Minute), srv, "/workflow")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		switch {
		case err != nil:
			outcomes = append(outcomes, "error")
		default:
			outcomes = append(outcomes, strconv.Itoa(resp.StatusCode))
		}
		if !sdkWouldRetry(resp, err) {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("attempt %d: %v %v: the SDK would give up here (outcomes %v)", attempt, resp, err, outcomes)
			}
			break
		}
		if attempt > 10 {
			t.Fatalf("still failing after %d attempts: %v", attempt, outcomes)
		}
	}
	want := []string{"503", "503", "503", "error", "error", "error", "200"}
	if !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
}

// An answer cut short after its status line is not one the SDK retries:
// the retry loop has returned by the time the body is read. The fake's
// cut answers show a client that weakness rather than hide it.
func TestSDKPolicyDoesNotCoverACutAnswer(t *testing.T) {
	srv, _ := listening(t)
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnCut, Times: 1})
	resp, err := get(t, freshClient(time.Minute), srv, "/workflow")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if sdkWouldRetry(resp, nil) {
		t.Fatalf("status %d: the retry loop would retry it", resp.StatusCode)
	}
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading the body: %v, want an unexpected EOF", err)
	}
}
