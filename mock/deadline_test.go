package mock_test

import (
	"context"
	"errors"
	"net/http"
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
