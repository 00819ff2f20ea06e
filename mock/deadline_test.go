package mock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// workBound is how long these tests wait for an event that must follow a
// deadline; it only fails a broken build, it times nothing.
const workBound = 10 * time.Second

// A call that outlives the deadline is answered with the internal-error
// reply and an Error ID whose journal entry names the operation and the
// stage; the work for it sees its context end and returns.
func TestCallPastDeadline(t *testing.T) {
	stopped := make(chan struct{})
	stuck := func(req *handler.Request) (*handler.Response, error) {
		<-req.HTTP.Context().Done() // work that runs until it is told to stop
		close(stopped)
		return handler.NoContent(204), nil
	}
	// The bound leaves the stages before the answer (which compile the
	// document's schemas on a first call, slowly under -race) time to end,
	// so the deadline falls while the handler runs.
	srv, _ := newServer(t, embedded(t),
		mock.WithRequestTimeout(time.Second), mock.WithHandler("ListWorkflows", stuck))
	a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	if a.status != 500 {
		t.Fatalf("status %d %s, want 500", a.status, a.body)
	}
	id := errorID(t, a)
	e, ok := errorEntry(t, srv, id)
	if !ok {
		t.Fatalf("no journal entry for %s", id)
	}
	for _, want := range []string{"ListWorkflows", "stage answer", "no answer within 1s"} {
		if !strings.Contains(e.Reason, want) {
			t.Errorf("journal reason %q does not mention %q", e.Reason, want)
		}
	}
	select {
	case <-stopped:
	case <-time.After(workBound):
		t.Fatal("the handler was never told to stop")
	}
	// The deadline is per call: the next one is served normally.
	srv2, _ := newServer(t, embedded(t), mock.WithRequestTimeout(time.Minute))
	if a := call(t, srv2.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
		t.Fatalf("an ordinary call under a deadline: %d", a.status)
	}
}

// Work that never looks at its context still cannot hold the answer back.
func TestDeadlineDoesNotWaitForTheWork(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	deaf := func(req *handler.Request) (*handler.Response, error) {
		<-release
		return handler.NoContent(204), nil
	}
	srv, _ := newServer(t, embedded(t),
		mock.WithRequestTimeout(20*time.Millisecond), mock.WithHandler("ListWorkflows", deaf))
	done := make(chan answer, 1)
	go func() { done <- call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil) }()
	select {
	case a := <-done:
		if a.status != 500 {
			t.Fatalf("status %d, want 500", a.status)
		}
	case <-time.After(workBound):
		t.Fatal("the answer waited for work that ignores its deadline")
	}
}

// Shutdown keeps to its own bound while a call is still in flight.
func TestShutdownBoundedWithCallInFlight(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{})
	deaf := func(req *handler.Request) (*handler.Response, error) {
		close(entered)
		<-release
		return handler.NoContent(204), nil
	}
	srv, _ := newServer(t, embedded(t), mock.WithRequestTimeout(0), mock.WithHandler("ListWorkflows", deaf))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	callErr := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("GET", srv.BaseURL()+"/workflow", nil)
		req.Header.Set("Authorization", "Bearer "+devToken)
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		callErr <- err
	}()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()
	select {
	case err := <-shut:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown = %v, want the bound's deadline error", err)
		}
	case <-time.After(workBound):
		t.Fatal("Shutdown waited for the call in flight past its bound")
	}
	select {
	case err := <-callErr:
		if err == nil {
			t.Error("the call in flight got an answer after shutdown cut it off")
		}
	case <-time.After(workBound):
		t.Fatal("the call in flight was left hanging after shutdown")
	}
}

// The fake's own handlers run on the call's goroutine and stop when its
// context ends: a deadline that has passed by the time the answer is ready
// still turns it into the internal-error reply, naming the operation.
func TestOwnHandlerPastDeadline(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithRequestTimeout(time.Nanosecond))
	a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	if a.status != 500 {
		t.Fatalf("status %d %s, want 500", a.status, a.body)
	}
	e, ok := errorEntry(t, srv, errorID(t, a))
	if !ok || !strings.Contains(e.Reason, "ListWorkflows") || !strings.Contains(e.Reason, "no answer within 1ns") {
		t.Fatalf("journal entry %+v does not name the operation and the bound", e)
	}
}

// A write the fake has done by the time its deadline passes is answered
// as done, not as the internal-error reply: a client told that a launch
// failed launches again, and then holds a run more than it was told of.
// (A read that outlives its deadline stays the internal-error reply,
// TestOwnHandlerPastDeadline.)
func TestCommittedWriteIsAnsweredPastDeadline(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithRequestTimeout(time.Nanosecond))
	// The admin API is outside the deadline: it counts what is held.
	tokens := func() int {
		a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/tokens", "", nil)
		var l struct{ Tokens []json.RawMessage }
		if err := json.Unmarshal(a.body, &l); err != nil || a.status != 200 {
			t.Fatalf("admin tokens: %d %s", a.status, a.body)
		}
		return len(l.Tokens)
	}
	before := tokens()
	a := call(t, srv.Handler(), "POST", "/api/tokens", devToken, []byte(`{"name":"past-the-deadline"}`))
	after := tokens()
	switch {
	case a.status == 200 && after != before+1:
		t.Errorf("the token create was answered as done, and %d tokens are held, want %d", after, before+1)
	case a.status != 200 && after != before:
		t.Errorf("the token create was answered %d %s, and the token was stored all the same (%d tokens, %d before)", a.status, a.body, after, before)
	case a.status != 200:
		t.Errorf("the token create was answered %d %s: the fake did no work past the deadline, so this test checks nothing", a.status, a.body)
	}
}

// A client that goes away before its answer (a load generator stopping, a
// test cancelling its call) is not a failure of the fake: the call is
// recorded as 499 with no Error ID and nothing is logged as an error. The
// work it asked for is done all the same: a launch still files its run.
func TestClientGoneIsNotAFailure(t *testing.T) {
	var log bytes.Buffer
	srv, _ := newServer(t, embedded(t), mock.WithRequestTimeout(time.Minute),
		mock.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	_, before, _ := listIDs(t, srv.Handler(), "?max=1")

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client closed its connection while the call was served
	req := httptest.NewRequestWithContext(ctx, "POST", "/api/workflow/launch",
		strings.NewReader(`{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq"}}`))
	req.Header.Set("Authorization", "Bearer "+devToken)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)

	if rec.Code != 499 || rec.Body.Len() != 0 {
		t.Errorf("answer %d %q, want 499 and no body (nobody reads it)", rec.Code, rec.Body.String())
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("a client going away is logged as an error:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "the client went away") {
		t.Errorf("the log does not say the client went away:\n%s", log.String())
	}
	j := adminCall(t, srv.Handler(), "GET", "/_mock/admin/requests?n=1", "", nil)
	var journal struct {
		Requests []struct {
			Status  int
			ErrorID string
		}
	}
	if err := json.Unmarshal(j.body, &journal); err != nil || len(journal.Requests) != 1 {
		t.Fatalf("request journal: %d %s", j.status, j.body)
	}
	if r := journal.Requests[0]; r.Status != 499 || r.ErrorID != "" {
		t.Errorf("request journal: %+v, want status 499 and no Error ID", r)
	}
	if _, got, _ := listIDs(t, srv.Handler(), "?max=1"); got != before+1 {
		t.Errorf("%d runs after the launch, want %d: the work is done whether or not the client waits", got, before+1)
	}
}
