package mock_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// readCall is one valid call to a read of a document, and the answer a
// fresh fake gives it.
type readCall struct {
	id     string
	method string
	url    string
	header http.Header
	status int
	body   string
}

// warmErrorID masks the one part of an answer drawn afresh on every call.
var warmErrorID = regexp.MustCompile(`Error ID: [0-9A-Za-z]+`)

// warmFake is a fake on its own copy of the document, on a stopped clock,
// so that two of them answer a call alike whenever it is made.
func warmFake(t *testing.T, load func() (*spec.Document, error)) *mock.Server {
	t.Helper()
	doc, err := load()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mock.New(mock.WithDocument("", doc), mock.WithRateLimit(nil),
		mock.WithClock(clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// warmAnswer makes one call to srv in process.
func warmAnswer(srv *mock.Server, c readCall) (int, string) {
	r := httptest.NewRequest(c.method, c.url, nil)
	r.Header = c.header.Clone()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, r)
	return rec.Code, warmErrorID.ReplaceAllString(rec.Body.String(), "Error ID: X")
}

// readCalls builds a call to every read of the document, each answered
// as the first call to its operation on a fake that has not warmed up
// (one fake for all: each read's first call is still its own).
func readCalls(t *testing.T, load func() (*spec.Document, error)) []readCall {
	t.Helper()
	cold := warmFake(t, load)
	doc, _ := cold.Document("1")
	var calls []readCall
	for _, op := range doc.Operations {
		if op.Method != http.MethodGet {
			continue
		}
		c, err := callgen.Build(op, synth.New(synth.WithSeed(7)), op.ID)
		if err != nil {
			t.Fatalf("%s: %v", op.ID, err)
		}
		req, err := c.Request(mock.DefaultBasePath, mock.DevToken)
		if err != nil {
			t.Fatalf("%s: %v", op.ID, err)
		}
		rc := readCall{id: op.ID, method: req.Method, url: req.URL.String(), header: req.Header}
		rc.status, rc.body = warmAnswer(cold, rc)
		calls = append(calls, rc)
	}
	if len(calls) == 0 {
		t.Fatal("the document has no reads")
	}
	return calls
}

func embeddedDoc() (*spec.Document, error) { return spec.Load(fixtures.OpenAPI()) }

// The warm-up compiles ahead of the calls, and nothing else: after it
// has run, every read answers exactly as its first call to a fake that
// never warmed up, on the embedded document and on the service's
// published schema (whose discriminators and cycles are what the
// component order is about).
func TestWarmUpLeavesAnswersAlone(t *testing.T) {
	docs := map[string]func() (*spec.Document, error){"embedded": embeddedDoc}
	if !testenv.RaceEnabled && !testing.Short() {
		path := testenv.PublishedSpec(t, "")
		docs["published"] = func() (*spec.Document, error) { return spec.LoadFile(path) }
	}
	for name, load := range docs {
		t.Run(name, func(t *testing.T) {
			calls := readCalls(t, load)
			warm := warmFake(t, load)
			warm.WarmUp(context.Background())
			for _, c := range calls {
				status, body := warmAnswer(warm, c)
				if status != c.status || body != c.body {
					t.Errorf("%s after the warm-up: %d %.300s\nwithout it: %d %.300s", c.id, status, body, c.status, c.body)
				}
			}
		})
	}
}

// Calls that race the warm-up get the answers they get without it, and
// share nothing unguarded with it (run under -race).
func TestCallsRacingTheWarmUp(t *testing.T) {
	calls := readCalls(t, embeddedDoc)
	warm := warmFake(t, embeddedDoc)
	var wg sync.WaitGroup
	wg.Go(func() { warm.WarmUp(context.Background()) })
	errs := make(chan error, len(calls))
	for w := range 3 {
		wg.Go(func() {
			// Each worker takes the reads in its own order, so that some
			// come before the warm-up reaches them and some after.
			for i := range calls {
				c := calls[(i*(w+1)+w*len(calls)/3)%len(calls)]
				if status, body := warmAnswer(warm, c); status != c.status || body != c.body {
					errs <- fmt.Errorf("%s racing the warm-up: %d %.200s, want %d %.200s", c.id, status, body, c.status, c.body)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Shutdown stops a warm-up under way and waits for it: nothing of the
// server runs after Close.
func TestCloseStopsTheWarmUp(t *testing.T) {
	srv, err := mock.New(mock.WithWarmUp())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := srv.WarmUpDone()
	if done == nil {
		t.Fatal("Start with WithWarmUp began no warm-up")
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	default:
		t.Fatal("the warm-up still runs after Close")
	}
	plain, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if plain.WarmUpDone() != nil {
		t.Error("a server without WithWarmUp warms up")
	}
}

// A warm-up step waits for the call being answered: a step may begin
// only once the call is over. (Should the wait not hold, the step can
// begin while the handler is still blocked, which the flag catches.)
func TestWarmUpWaitsForCalls(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	var mu sync.Mutex
	finished := false
	h := mock.CountCalls(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		close(entered)
		<-release
		mu.Lock()
		finished = true
		mu.Unlock()
	}), 0)
	go h.Serve(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
	<-entered
	stepped := make(chan bool)
	go func() { stepped <- h.Wait(context.Background()) }()
	for range 100 {
		select {
		case <-stepped:
			t.Fatal("a warm-up step began while a call was being answered")
		default:
		}
		runtime.Gosched() // lets the waiting goroutine run; no time passes
	}
	close(release)
	if !<-stepped {
		t.Fatal("the wait gave up")
	}
	mu.Lock()
	defer mu.Unlock()
	if !finished {
		t.Fatal("a warm-up step began before the call was over")
	}
	// And a cancelled warm-up stops waiting.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if h.Wait(ctx) {
		t.Error("a cancelled warm-up took a step")
	}
}
