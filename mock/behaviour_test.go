package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/ratewindow"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/profile"
)

// TestAuthentication: every API call needs a usable Bearer token, else 403
// with an empty body (CONTRACT A1, A3), on both documents.
func TestAuthentication(t *testing.T) {
	cases := []struct {
		name   string
		header string // the whole Authorization header; "" sends none
		path   string
		want   int
	}{
		{"no header", "", "/api/workflow", 403},
		{"empty bearer", "Bearer", "/api/workflow", 403},
		{"basic scheme", "Basic ZGV2OnNlY3JldA==", "/api/workflow", 403},
		{"token without scheme", devToken, "/api/workflow", 403},
		{"unknown token", "Bearer not-a-token-we-know", "/api/workflow", 403},
		{"expired token", "Bearer " + expiredToken, "/api/workflow", 403},
		{"bad characters", "Bearer dev token", "/api/workflow", 403},
		{"valid token", "Bearer " + devToken, "/api/workflow", 200},
		{"scheme in lower case", "bearer " + devToken, "/api/workflow", 200},
		{"second token", "Bearer " + secondToken, "/api/workflow", 200},
		// An operation the document declares open is answered without a
		// token, as Nextflow's auth status needs (auth.require_on_unsecured).
		{"unsecured operation without token", "", "/api/service-info", 200},
		{"unsecured operation with token", "Bearer " + devToken, "/api/service-info", 200},
	}
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := newServer(t, dc.doc(t))
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					var hdr []string
					if c.header != "" {
						hdr = []string{"Authorization", c.header}
					}
					a := call(t, srv.Handler(), "GET", c.path, "", nil, hdr...)
					if a.status != c.want {
						t.Fatalf("status %d, want %d (body %s)", a.status, c.want, a.body)
					}
					if c.want == 403 && len(a.body) != 0 {
						t.Errorf("403 must have an empty body, got %q", a.body)
					}
				})
			}
		})
	}
}

// TestRevokedTokenIsRefused: a token removed from the store stops working.
func TestRevokedTokenIsRefused(t *testing.T) {
	b, err := backend.NewMemory(backend.WithTokens(auth.Fixture{Name: "token-1", Value: "my-ci-token"}))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newServer(t, embedded(t), mock.WithState(mock.InBackend(b)))
	if a := call(t, srv.Handler(), "GET", "/api/workflow", "my-ci-token", nil); a.status != 200 {
		t.Fatalf("fresh token: %d", a.status)
	}
	tokens, err := b.Tokens().List()
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		if tok.Name == "token-1" {
			if err := b.Tokens().Revoke(tok.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow", "my-ci-token", nil); a.status != 403 || len(a.body) != 0 {
		t.Fatalf("revoked token: %d %q, want 403 and no body", a.status, a.body)
	}
}

// TestUnknownRoutes: a path or method the document does not have is a 403
// with an empty body (A4), even with a valid token.
func TestUnknownRoutes(t *testing.T) {
	cases := []struct{ method, path string }{
		{"GET", "/api/no-such-thing"},
		{"GET", "/api/workflow/abc/no-such-child"},
		{"PATCH", "/api/workflow"},
		{"DELETE", "/api/service-info"},
		{"GET", "/workflow"},       // outside the base path
		{"GET", "/api"},            // the base path itself
		{"GET", "/api/workflow//"}, // one trailing slash is the path without it (TestRouting); two are another path
	}
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := newServer(t, dc.doc(t))
			for _, c := range cases {
				a := call(t, srv.Handler(), c.method, c.path, devToken, nil)
				if a.status != 403 || len(a.body) != 0 {
					t.Errorf("%s %s: %d %q, want 403 with no body", c.method, c.path, a.status, a.body)
				}
			}
		})
	}
}

// TestBadRequests: invalid query values, malformed or missing bodies and
// oversized bodies get 400 with exactly {"message": "... - Error ID: <id>"}
// (E1), a fresh ID each time, and the journal knows why.
func TestBadRequests(t *testing.T) {
	big := []byte(`{"launch":{"computeEnvId":"` + strings.Repeat("x", 4096) + `"}}`)
	cases := []struct {
		name        string
		method      string
		path        string
		body        []byte
		contentType string
		why         string // a fragment the journal's reason must hold
	}{
		{"max not a number", "GET", "/api/workflow?max=abc", nil, "", "max"},
		{"offset not a number", "GET", "/api/workflow?offset=1.5", nil, "", "offset"},
		{"malformed JSON", "POST", "/api/workflow/launch", []byte(`{"launch": {`), "application/json", "launch"},
		{"missing body", "POST", "/api/workflow/launch", nil, "", "body"},
		{"wrong body type", "POST", "/api/workflow/launch", []byte(`[1,2,3]`), "application/json", "launch"},
		{"body over the limit", "POST", "/api/workflow/launch", big, "application/json", "limit"},
	}
	small := profile.Default()
	small.BodyLimit.Max = 1024
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := newServer(t, dc.doc(t), mock.WithProfile(small))
			seen := map[string]bool{}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					var hdr []string
					if c.contentType != "" {
						hdr = []string{"Content-Type", c.contentType}
					}
					a := call(t, srv.Handler(), c.method, c.path, devToken, c.body, hdr...)
					if c.body == nil {
						a = callNoBody(t, srv.Handler(), c.method, c.path)
					}
					if a.status != 400 {
						t.Fatalf("status %d, want 400 (body %s)", a.status, a.body)
					}
					id := errorID(t, a)
					if !strings.HasPrefix(a.message(t), "Unable to process request - Error ID: ") {
						t.Errorf("message %q", a.message(t))
					}
					if seen[id] {
						t.Errorf("Error ID %s was given twice", id)
					}
					seen[id] = true
					entry := call(t, srv.Handler(), "GET", "/_mock/errors/"+id, "", nil)
					if entry.status != 200 || !strings.Contains(strings.ToLower(string(entry.body)), c.why) {
						t.Errorf("journal for %s: %d %s; want a reason mentioning %q", id, entry.status, entry.body, c.why)
					}
				})
			}
		})
	}
}

func callNoBody(t testing.TB, h http.Handler, method, path string) answer {
	return call(t, h, method, path, devToken, nil)
}

// TestErrorIDsAreFreshAndUnknownIDsAreNotFound checks ID uniqueness over
// many errors and that the journal does not invent entries.
func TestErrorIDsAreFreshAndUnknownIDsAreNotFound(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		id := errorID(t, call(t, srv.Handler(), "GET", "/api/workflow?max=x"+strconv.Itoa(i), devToken, nil))
		if seen[id] {
			t.Fatalf("Error ID %s repeated after %d errors", id, i)
		}
		seen[id] = true
	}
	if a := call(t, srv.Handler(), "GET", "/_mock/errors/AAAAAAAAAAAAAAAAAAAAAA", "", nil); a.status != 404 {
		t.Errorf("unknown Error ID: %d", a.status)
	}
}

// TestAcceptVersion: absent means 1, 1 is served, anything else is a Bad
// Request (V1).
func TestAcceptVersion(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, _ := newServer(t, dc.doc(t))
			for _, c := range []struct {
				version string
				want    int
			}{{"", 200}, {"1", 200}, {" 1 ", 200}, {"2", 400}, {"1.0", 400}, {"latest", 400}} {
				var hdr []string
				if c.version != "" {
					hdr = []string{"Accept-Version", c.version}
				}
				a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil, hdr...)
				if a.status != c.want {
					t.Errorf("Accept-Version %q: %d, want %d", c.version, a.status, c.want)
				}
				if c.want == 400 {
					errorID(t, a)
				}
			}
		})
	}
}

// TestSeveralVersionsSideBySide: each call is answered by the document of
// the version it selects.
func TestSeveralVersionsSideBySide(t *testing.T) {
	pub := published(t)
	srv, _ := newServer(t, embedded(t), mock.WithDocument("2", pub))
	// /labels exists only in the published document.
	if a := call(t, srv.Handler(), "GET", "/api/labels", devToken, nil); a.status != 403 {
		t.Errorf("version 1 (embedded) answered /labels with %d", a.status)
	}
	if a := call(t, srv.Handler(), "GET", "/api/labels", devToken, nil, "Accept-Version", "2"); a.status != 200 {
		t.Errorf("version 2 (published) answered /labels with %d: %s", a.status, a.body)
	}
	if a := call(t, srv.Handler(), "GET", "/api/datasets", devToken, nil, "Accept-Version", "3"); a.status != 400 {
		t.Errorf("version 3: %d, want 400", a.status)
	}
	h := call(t, srv.Handler(), "GET", "/_mock/health", "", nil)
	if !strings.Contains(string(h.body), `"versions":["1","2"]`) {
		t.Errorf("health does not list both versions: %s", h.body)
	}
}

// TestRateLimit: 20 calls per rolling second per token; the 21st gets the
// default profile's refusal, what the service was seen to send (429, its
// message with the wait and no Error ID, Retry-After, no X-RateLimit-*
// headers); another token is not affected; a second later calls are
// accepted again.
func TestRateLimit(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, clk := newServer(t, dc.doc(t), mock.WithRateLimit(mustWindows(t, "20/s,72000/h")))
			for i := 0; i < 20; i++ {
				a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
				if a.status != 200 {
					t.Fatalf("call %d: %d", i+1, a.status)
				}
				if got := a.header.Get("X-RateLimit-Remaining"); got != "" {
					t.Errorf("call %d: X-RateLimit-Remaining %q, which the default profile does not send", i+1, got)
				}
			}
			a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
			if a.status != 429 {
				t.Fatalf("21st call: %d, want 429", a.status)
			}
			if got, want := a.message(t), "Maximum request rate exceeded. Wait 1secs before issuing a new request"; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			if got := a.header.Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After = %q, want 1", got)
			}
			// Invalid and unknown calls count too: they are API calls.
			if b := call(t, srv.Handler(), "GET", "/api/nowhere", secondToken, nil); b.status != 403 {
				t.Errorf("second token, unknown path: %d", b.status)
			}
			for i := 0; i < 19; i++ {
				if b := call(t, srv.Handler(), "GET", "/api/workflow", secondToken, nil); b.status != 200 {
					t.Fatalf("second token, call %d: %d (one token's limit leaked into another)", i+2, b.status)
				}
			}
			if b := call(t, srv.Handler(), "GET", "/api/workflow", secondToken, nil); b.status != 429 {
				t.Errorf("second token, 21st call: %d", b.status)
			}
			clk.Advance(999 * time.Millisecond)
			if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 429 {
				t.Errorf("after 0.999 s: %d, want 429 (the window is a rolling second)", a.status)
			}
			clk.Advance(time.Millisecond)
			if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
				t.Errorf("after 1 s: %d, want 200", a.status)
			}
		})
	}
}

// TestHourlyWindow uses a scaled-down pair of windows and moves the clock.
func TestHourlyWindow(t *testing.T) {
	srv, clk := newServer(t, embedded(t), mock.WithRateLimit(mustWindows(t, "3/s,5/h")))
	for i := 0; i < 5; i++ {
		if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
			t.Fatalf("call %d: %d", i+1, a.status)
		}
		clk.Advance(2 * time.Second)
	}
	a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	if a.status != 429 {
		t.Fatalf("6th call within the hour: %d", a.status)
	}
	if ra, _ := strconv.Atoi(a.header.Get("Retry-After")); ra < 3500 || ra > 3600 {
		t.Errorf("Retry-After %q, want close to an hour", a.header.Get("Retry-After"))
	}
	clk.Advance(time.Hour)
	if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
		t.Errorf("an hour later: %d", a.status)
	}
}

// A profile can ask for the conventional X-RateLimit-* headers on every
// answer and refuse with a reply of its own: another status, a template
// naming an Error ID and the wait, headers of its own.
func TestRateLimitProfileReply(t *testing.T) {
	p, err := profile.Parse([]byte(`rate_limit:
  headers: true
  reject:
    status: 503
    body: template
    message: "busy ({errorId}); retry in {retryAfter} s"
    headers: {X-Busy: "{retryAfter}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newServer(t, embedded(t), mock.WithProfile(p), mock.WithRateLimit(mustWindows(t, "2/s")))
	for i := range 2 {
		a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
		if got, want := a.header.Get("X-RateLimit-Remaining"), strconv.Itoa(1-i); got != want {
			t.Errorf("call %d: X-RateLimit-Remaining %q, want %q", i+1, got, want)
		}
	}
	a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	if a.status != 503 {
		t.Fatalf("3rd call: %d, want the profile's 503", a.status)
	}
	m := regexp.MustCompile(`^busy \(([0-9A-Za-z]{22})\); retry in 1 s$`).FindStringSubmatch(a.message(t))
	if m == nil {
		t.Fatalf("message %q does not follow the template", a.message(t))
	}
	if _, ok := errorEntry(t, srv, m[1]); !ok {
		t.Errorf("the Error ID %s in the message is not in the journal", m[1])
	}
	for h, want := range map[string]string{"Retry-After": "1", "X-Busy": "1", "X-RateLimit-Limit": "2",
		"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(epoch.Add(time.Second).Unix(), 10)} {
		if got := a.header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
}

func mustWindows(t testing.TB, s string) []ratelimit.Window {
	w, err := ratewindow.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPanicBecomes500: a failure inside the fake is a 500 with an Error
// ID, and the server goes on serving.
func TestPanicBecomes500(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithHandler("ListWorkflows", func(*handler.Request) (*handler.Response, error) {
		panic("boom")
	}))
	a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	if a.status != 500 {
		t.Fatalf("status %d", a.status)
	}
	id := errorID(t, a)
	entry := call(t, srv.Handler(), "GET", "/_mock/errors/"+id, "", nil)
	if !strings.Contains(string(entry.body), "boom") {
		t.Errorf("the journal does not hold the panic: %s", entry.body)
	}
	if b := call(t, srv.Handler(), "GET", "/api/service-info", devToken, nil); b.status != 200 {
		t.Errorf("after a panic the server answered %d", b.status)
	}
}

// TestStrictResponses: an answer the document rejects never reaches the
// client in strict mode.
func TestStrictResponses(t *testing.T) {
	bad := func(*handler.Request) (*handler.Response, error) {
		return handler.JSON(200, map[string]any{"workflows": "not a list"}), nil
	}
	srv, _ := newServer(t, embedded(t), mock.WithStrictResponses(), mock.WithHandler("ListWorkflows", bad))
	a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	if a.status != 500 {
		t.Fatalf("invalid answer passed strict mode: %d %s", a.status, a.body)
	}
	errorID(t, a)
}

// TestControlEndpoints: health, and the served document in both encodings,
// without a token.
func TestControlEndpoints(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	if a := call(t, srv.Handler(), "GET", "/_mock/health", "", nil); a.status != 200 || !strings.Contains(string(a.body), `"ok"`) {
		t.Errorf("health: %d %s", a.status, a.body)
	}
	y := call(t, srv.Handler(), "GET", "/_mock/openapi.yaml", "", nil)
	if y.status != 200 || !strings.HasPrefix(string(y.body), "openapi: 3.") {
		t.Errorf("openapi.yaml: %d %.80s", y.status, y.body)
	}
	j := call(t, srv.Handler(), "GET", "/_mock/openapi.json", "", nil)
	var doc map[string]any
	if err := json.Unmarshal(j.body, &doc); err != nil || doc["openapi"] == nil || doc["paths"] == nil {
		t.Errorf("openapi.json: %d %v %.80s", j.status, err, j.body)
	}
	if a := call(t, srv.Handler(), "GET", "/_mock/openapi.yaml?version=9", "", nil); a.status != 404 {
		t.Errorf("unknown version document: %d", a.status)
	}
	if a := call(t, srv.Handler(), "GET", "/_mock/nothing", "", nil); a.status != 404 {
		t.Errorf("unknown control path: %d", a.status)
	}
}

// TestProfileReplies: a profile can change how a refusal is answered.
func TestProfileReplies(t *testing.T) {
	p := profile.Default()
	p.Auth.Expired = profile.Reply{Status: 401, Body: profile.BodyMessage, Message: "Token expired"}
	p.UnknownRoute = profile.Reply{Status: 404, Body: profile.BodyEmpty}
	srv, _ := newServer(t, embedded(t), mock.WithProfile(p))
	a := call(t, srv.Handler(), "GET", "/api/workflow", expiredToken, nil)
	if a.status != 401 || !strings.HasPrefix(a.message(t), "Token expired - Error ID: ") {
		t.Errorf("expired: %d %s", a.status, a.body)
	}
	if a := call(t, srv.Handler(), "GET", "/api/nowhere", devToken, nil); a.status != 404 {
		t.Errorf("unknown route: %d", a.status)
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow", "", nil); a.status != 403 {
		t.Errorf("missing token kept its default: %d", a.status)
	}
}

var _ = fmt.Sprint

// A profile can count calls per user (every token of the fake's one user
// shares the count) and in windows fixed to the wall-clock second.
func TestRateLimitPerUserAndFixed(t *testing.T) {
	p, err := profile.Parse([]byte("rate_limit: {key: user, fixed: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv, clk := newServer(t, embedded(t), mock.WithProfile(p), mock.WithRateLimit(mustWindows(t, "2/s")))
	clk.Set(clk.Now().Truncate(time.Second).Add(900 * time.Millisecond))
	for i, tok := range []string{devToken, secondToken} {
		if a := call(t, srv.Handler(), "GET", "/api/workflow", tok, nil); a.status != 200 {
			t.Fatalf("call %d: %d", i+1, a.status)
		}
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow", secondToken, nil); a.status != 429 {
		t.Fatalf("3rd call of the user, with another token: %d, want 429 (one count per user)", a.status)
	}
	clk.Advance(100 * time.Millisecond) // the next wall-clock second
	for i := range 2 {
		if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
			t.Fatalf("after the boundary, call %d: %d (fixed windows start again)", i+1, a.status)
		}
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 429 {
		t.Fatalf("3rd call after the boundary: %d, want 429", a.status)
	}
}

// A profile can hold an over-limit call that would have room soon: it
// waits on the fake's clock and is answered, where one that would wait
// longer than the hold is refused at once.
func TestRateLimitHold(t *testing.T) {
	p, err := profile.Parse([]byte("rate_limit: {hold: 500ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(epoch)
	srv, _ := newServer(t, embedded(t), mock.WithProfile(p), mock.WithClock(clk), mock.WithRateLimit(mustWindows(t, "2/s")))
	call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	clk.Advance(700 * time.Millisecond)
	call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil)
	// The window frees a slot 300ms from now: within the hold.
	held := make(chan answer, 1)
	go func() { held <- call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil) }()
	clk.BlockUntilSleeping(1)
	clk.Advance(300 * time.Millisecond)
	if a := <-held; a.status != 200 {
		t.Fatalf("held call: %d, want 200 once the slot is free", a.status)
	}
	// Now both slots are taken until 700ms and 1000ms from now: past the hold.
	if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 429 {
		t.Fatalf("a call that would wait 700ms: %d, want 429 at once", a.status)
	}

	// A held call also wakes when the clock is moved through the control
	// API, which moves the server's own clock rather than the base.
	clk.Advance(400 * time.Millisecond) // the first slot frees 300ms from now
	go func() { held <- call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil) }()
	clk.BlockUntilSleeping(1)
	adv := httptest.NewRequest("POST", "/_mock/admin/clock/advance?by=300ms", nil)
	adv.RemoteAddr = "127.0.0.1:1"
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, adv)
	if rec.Code != 200 {
		t.Fatalf("advancing through the control API: %d %s", rec.Code, rec.Body)
	}
	if a := <-held; a.status != 200 {
		t.Fatalf("held call after an admin advance: %d, want 200", a.status)
	}
}
