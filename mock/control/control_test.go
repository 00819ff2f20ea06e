package control_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// backend is a control.AdminBackend that records what it was asked.
type backend struct {
	ready     bool
	token     string
	doc       *spec.Document
	now       time.Time
	resets    int
	saves     int
	failWith  error
	setStatus []string // "id status endStatus"
	requests  []control.RequestEntry
}

func (b *backend) Ready() bool            { return b.ready }
func (b *backend) Versions() []string     { return []string{"1", "2"} }
func (b *backend) DefaultVersion() string { return "1" }
func (b *backend) Document(v string) (*spec.Document, bool) {
	return b.doc, v == "1" && b.doc != nil
}
func (b *backend) ErrorEntry(id string) (apierror.Entry, bool) {
	return apierror.Entry{ID: id, Status: 400, Reason: "bad"}, id == "known"
}
func (b *backend) AdminToken() string { return b.token }
func (b *backend) ResetState() error  { b.resets++; return b.failWith }
func (b *backend) AdvanceClock(d time.Duration) (time.Time, error) {
	b.now = b.now.Add(d)
	return b.now, b.failWith
}
func (b *backend) Now() time.Time { return b.now }
func (b *backend) SetWorkflowStatus(id, status, end string) (string, error) {
	b.setStatus = append(b.setStatus, id+" "+status+" "+end)
	switch id {
	case "missing":
		return "", control.ErrNotFound
	case "bad":
		return "", fmt.Errorf("%w: no status %s", control.ErrInvalid, status)
	case "broken":
		return "", errors.New("store down")
	}
	return "RUNNING", nil
}
func (b *backend) TokenInfos() ([]control.TokenInfo, error) {
	return []control.TokenInfo{{ID: 1, Name: "dev", Configured: true}}, nil
}
func (b *backend) RecentRequests(n int) []control.RequestEntry {
	if n > len(b.requests) {
		n = len(b.requests)
	}
	return b.requests[:n]
}
func (b *backend) RateCounters() ([]ratelimit.Counter, error) {
	return []ratelimit.Counter{{Key: "1", Used: []int{3}, Windows: []ratelimit.Window{{Limit: 20, Period: time.Second}, {Limit: 500, Period: time.Hour}}}}, nil
}
func (b *backend) SaveState() error { b.saves++; return b.failWith }
func (b *backend) CacheStats() []memo.Stat {
	return []memo.Stat{{Name: "answers", Entries: 3, Limit: 10, Hits: 5, Misses: 3}}
}

// onlyBackend has the read-only endpoints and no admin ones.
type onlyBackend struct{ control.Backend }

func newBackend(t *testing.T) *backend {
	doc, err := spec.Load(fixtures.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return &backend{ready: true, doc: doc, now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func do(h http.Handler, method, target, remote, auth, body string) reply {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	req.RemoteAddr = remote
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return reply{rec.Code, rec.Header(), rec.Body.String()}
}

const loopback = "127.0.0.1:5000"

func TestEndpoints(t *testing.T) {
	b := newBackend(t)
	b.requests = []control.RequestEntry{{Method: "GET", Path: "/api/workflow", Status: 200}, {Method: "GET", Path: "/api/x", Status: 403}}
	h := control.New(b)
	for _, tc := range []struct {
		name, method, target, body string
		status                     int
		want                       string // a substring of the body
	}{
		{"health", "GET", "/_mock/health", "", 200, `"defaultVersion":"1"`},
		{"health head", "HEAD", "/_mock/health", "", 200, ""},
		{"document yaml", "GET", "/_mock/openapi.yaml", "", 200, "openapi:"},
		{"document json", "GET", "/_mock/openapi.json?version=1", "", 200, `"openapi"`},
		{"document of an unserved version", "GET", "/_mock/openapi.yaml?version=9", "", 404, "API version 9 is not served"},
		{"error entry", "GET", "/_mock/errors/known", "", 200, `"reason":"bad"`},
		{"unknown error id", "GET", "/_mock/errors/nope", "", 404, "no error recorded with ID nope"},
		{"unknown endpoint", "GET", "/_mock/nothing", "", 404, "no control endpoint GET /_mock/nothing"},
		{"wrong method", "DELETE", "/_mock/health", "", 404, "no control endpoint"},
		{"reset", "POST", "/_mock/admin/reset", "", 200, `"status":"reset"`},
		{"clock", "GET", "/_mock/admin/clock", "", 200, `"now":"2026-03-01T12:00:00Z"`},
		{"advance", "POST", "/_mock/admin/clock/advance?by=90m", "", 200, `"now":"2026-03-01T13:30:00Z"`},
		{"advance without a duration", "POST", "/_mock/admin/clock/advance", "", 400, "positive Go duration"},
		{"advance backwards", "POST", "/_mock/admin/clock/advance?by=-1s", "", 400, "positive Go duration"},
		{"status in the body", "PUT", "/_mock/admin/workflows/w1/status", `{"status":"failed"}`, 200, `"status":"RUNNING"`},
		{"status in the query", "POST", "/_mock/admin/workflows/w1/status?endStatus=succeeded", "", 200, `"endStatus":"SUCCEEDED"`},
		{"status missing", "POST", "/_mock/admin/workflows/w1/status", "", 400, "give status and/or endStatus"},
		{"status body not JSON", "POST", "/_mock/admin/workflows/w1/status", `{`, 400, "body must be"},
		{"status of no run", "POST", "/_mock/admin/workflows/missing/status?status=FAILED", "", 404, "no workflow missing"},
		{"invalid status", "POST", "/_mock/admin/workflows/bad/status?status=NOPE", "", 400, "no status NOPE"},
		{"status store failure", "POST", "/_mock/admin/workflows/broken/status?status=FAILED", "", 500, "store down"},
		{"tokens", "GET", "/_mock/admin/tokens", "", 200, `"configured":true`},
		{"requests", "GET", "/_mock/admin/requests?n=1", "", 200, `"path":"/api/workflow"`},
		{"requests with a bad n", "GET", "/_mock/admin/requests?n=0", "", 400, "positive number"},
		{"rate counters", "GET", "/_mock/admin/ratelimit", "", 200, `{"window":"500/h","limit":500,"used":0}`},
		{"save", "POST", "/_mock/admin/state/save", "", 200, `"status":"saved"`},
		{"caches", "GET", "/_mock/admin/caches", "", 200, `{"name":"answers","entries":3,"limit":10,"hits":5,"misses":3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := do(h, tc.method, tc.target, loopback, "", tc.body)
			if got.status != tc.status || !strings.Contains(got.body, tc.want) {
				t.Fatalf("%s %s: %d %s; want %d with %q", tc.method, tc.target, got.status, got.body, tc.status, tc.want)
			}
			if got.body != "" && got.header.Get("Content-Type") == "application/json" && !json.Valid([]byte(got.body)) {
				t.Errorf("invalid JSON: %s", got.body)
			}
		})
	}
	if b.resets != 1 || b.saves != 1 {
		t.Errorf("resets %d, saves %d; want 1 each", b.resets, b.saves)
	}
	if want := "w1 FAILED "; len(b.setStatus) == 0 || b.setStatus[0] != want {
		t.Errorf("statuses set: %q, want %q first (upper-cased)", b.setStatus, want)
	}
	if got := do(h, "GET", "/_mock/admin/requests", loopback, "", ""); !strings.Contains(got.body, "/api/x") {
		t.Errorf("requests without n: %s, want every entry", got.body)
	}
}

func TestHealthWhileStarting(t *testing.T) {
	b := newBackend(t)
	b.ready = false
	if got := do(control.New(b), "GET", "/_mock/health", loopback, "", ""); got.status != 503 || !strings.Contains(got.body, "starting") {
		t.Errorf("health while starting: %d %s", got.status, got.body)
	}
}

// Admin failures are answered, not dropped, with the backend's reason.
func TestAdminFailures(t *testing.T) {
	b := newBackend(t)
	b.failWith = errors.New("disk full")
	h := control.New(b)
	for _, c := range []struct{ method, target string }{
		{"POST", "/_mock/admin/reset"}, {"POST", "/_mock/admin/state/save"}, {"POST", "/_mock/admin/clock/advance?by=1s"},
	} {
		got := do(h, c.method, c.target, loopback, "", "")
		if got.status < 400 || !strings.Contains(got.body, "disk full") {
			t.Errorf("%s %s: %d %s; want a failure naming the cause", c.method, c.target, got.status, got.body)
		}
	}
}

// The admin endpoints answer loopback callers, or any caller with the admin
// token when one is set; the read-only ones answer everybody.
func TestAdminGuard(t *testing.T) {
	b := newBackend(t)
	h := control.New(b)
	if got := do(h, "POST", "/_mock/admin/reset", "192.0.2.7:4000", "", ""); got.status != 403 || !strings.Contains(got.body, "loopback") {
		t.Errorf("remote caller without a token: %d %s", got.status, got.body)
	}
	if got := do(h, "POST", "/_mock/admin/reset", "[::1]:4000", "", ""); got.status != 200 {
		t.Errorf("IPv6 loopback caller: %d %s", got.status, got.body)
	}
	if got := do(h, "GET", "/_mock/health", "192.0.2.7:4000", "", ""); got.status != 200 {
		t.Errorf("health from afar: %d", got.status)
	}

	b.token = "s3cret"
	for _, tc := range []struct {
		remote, auth string
		status       int
	}{
		{"192.0.2.7:4000", "Bearer s3cret", 200},
		{"192.0.2.7:4000", "Bearer wrong", 403},
		{loopback, "", 403}, // with a token set, loopback needs it too
		{"not-an-address", "Bearer s3cret", 200},
	} {
		if got := do(h, "POST", "/_mock/admin/reset", tc.remote, tc.auth, ""); got.status != tc.status {
			t.Errorf("from %s with %q: %d %s, want %d", tc.remote, tc.auth, got.status, got.body, tc.status)
		}
	}
}

// A backend without the admin methods gets no admin endpoints.
func TestNoAdminBackend(t *testing.T) {
	h := control.New(onlyBackend{newBackend(t)})
	if got := do(h, "POST", "/_mock/admin/reset", loopback, "", ""); got.status != 404 {
		t.Errorf("admin endpoint on a read-only backend: %d %s", got.status, got.body)
	}
}
