package mock_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/profile"
)

// listening starts a fake on a loopback port, with a fake clock, for the
// tests that need a real connection.
func listening(t *testing.T, opts ...mock.Option) (*mock.Server, *clock.Fake) {
	t.Helper()
	srv, clk := newServer(t, embedded(t), opts...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, clk
}

// freshClient makes every call on a new connection: a broken connection
// is then the call's own error, never retried by the transport (which
// retries a GET once when a reused connection turns out closed).
func freshClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
}

// get calls path (below the base URL) with the development token.
func get(t *testing.T, c *http.Client, srv *mock.Server, path string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.BaseURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+devToken)
	return c.Do(req)
}

// journaled waits until the journal holds the call the rule acted on, and
// returns it: a client may have its answer, or its broken connection,
// before the fake has journaled the call.
func journaled(t *testing.T, srv *mock.Server, r *mock.Rule) control.RequestEntry {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, e := range lastRequests(t, srv, 1000) {
			if len(e.Injected) > 0 && e.Injected[0].Rule == r.ID() {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no call journaled as injected by %s within 20s", r.ID())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func addFault(t *testing.T, srv *mock.Server, f faults.Fault) *mock.Rule {
	t.Helper()
	r, err := srv.AddFault(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Remove() })
	return r
}

// lastRequests reads the request journal through the admin API.
func lastRequests(t *testing.T, srv *mock.Server, n int) []control.RequestEntry {
	t.Helper()
	a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/requests?n="+strconv.Itoa(n), "", nil)
	var body struct {
		Requests []control.RequestEntry `json:"requests"`
	}
	if a.status != 200 || json.Unmarshal(a.body, &body) != nil {
		t.Fatalf("journal: %d %s", a.status, a.body)
	}
	return body.Requests
}

// Each failure status comes over HTTP with the profile's reply for it:
// the service's 500 with an Error ID, the gateway's pages for 502, 503 and
// 504, and the maintenance page with Retry-After; the call after it is
// answered as usual, and the journal names the rule.
func TestFaultStatusesOverHTTP(t *testing.T) {
	srv, _ := listening(t)
	c := freshClient(time.Minute)
	p := profile.Default()
	for _, tc := range []struct {
		name       string
		fault      faults.Fault
		retryAfter string
	}{
		{"500", faults.Fault{Operation: "ListWorkflows", Status: 500, Times: 1}, ""},
		{"502", faults.Fault{Operation: "ListWorkflows", Status: 502, Times: 1}, ""},
		{"503", faults.Fault{Operation: "GET /workflow", Status: 503, Times: 1}, ""},
		{"504", faults.Fault{Operation: "ListWorkflows", Status: 504, Times: 1}, ""},
		{"maintenance", faults.Fault{Tag: "workflows", Status: 503, RetryAfter: 90 * time.Second, Times: 1, Note: "upgrade"}, "90"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := addFault(t, srv, tc.fault)
			resp, err := get(t, c, srv, "/workflow")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			reply, _ := p.Faults.Reply(tc.fault.Status, tc.retryAfter != "")
			if resp.StatusCode != tc.fault.Status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.fault.Status)
			}
			if reply.Body == profile.BodyText {
				if string(body) != reply.Message || resp.Header.Get("Content-Type") != "text/html" {
					t.Errorf("body %q (%s), want the profile's page", body, resp.Header.Get("Content-Type"))
				}
			} else {
				id := errorID(t, answer{status: resp.StatusCode, header: resp.Header, body: body})
				if e, ok := errorEntry(t, srv, id); !ok || e.Kind != "injected" || !strings.Contains(e.Reason, r.ID()) {
					t.Errorf("the Error ID's entry %+v does not name the rule %s", e, r.ID())
				}
			}
			if got := resp.Header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			last := journaled(t, srv, r)
			if len(last.Injected) != 1 || last.Injected[0].Rule != r.ID() || last.Injected[0].Hit != 1 ||
				!strings.Contains(last.Injected[0].What, "status "+strconv.Itoa(tc.fault.Status)) || last.Injected[0].Note != tc.fault.Note {
				t.Errorf("journal %+v", last)
			}
			resp, err = get(t, c, srv, "/workflow")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("the call after a fault for one: %d", resp.StatusCode)
			}
		})
	}
}

// Each connection fault over a real connection, and the error net/http's
// client reports for it: a reset, an empty reply (EOF before the status
// line), an answer cut short (unexpected EOF in the body), a stalled body
// (the client's own timeout). The journal records each.
func TestConnectionFaultsOverHTTP(t *testing.T) {
	srv, _ := listening(t)
	t.Run("reset", func(t *testing.T) {
		r := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnReset, Times: 1})
		_, err := get(t, freshClient(time.Minute), srv, "/workflow")
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("error %v, want connection reset by peer", err)
		}
		if e := journaled(t, srv, r); e.Status != 0 || len(e.Injected) != 1 || e.Injected[0].What != "connection reset" {
			t.Errorf("journal %+v, want status 0 and the reset", e)
		}
	})
	t.Run("empty", func(t *testing.T) {
		r := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnEmpty, Times: 1})
		_, err := get(t, freshClient(time.Minute), srv, "/workflow")
		if !errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("error %v, want EOF before any answer", err)
		}
		if e := journaled(t, srv, r); e.Status != 0 || e.Injected[0].What != "connection empty" {
			t.Errorf("journal %+v, want status 0 and the empty reply", e)
		}
	})
	t.Run("cut", func(t *testing.T) {
		r := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnCut, Times: 1})
		resp, err := get(t, freshClient(time.Minute), srv, "/workflow")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("status %d, read %v, want 200 and an unexpected EOF", resp.StatusCode, err)
		}
		if int64(len(body)) != resp.ContentLength/2 {
			t.Errorf("read %d of %d bytes, want half", len(body), resp.ContentLength)
		}
		if e := journaled(t, srv, r); e.Status != 200 || e.Injected[0].What != "connection cut" {
			t.Errorf("journal %+v", e)
		}
	})
	t.Run("stall", func(t *testing.T) {
		r := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnStall, Stall: profile.MaxFaultDelay, Times: 1})
		// The client gives up 300ms after the headers came (a read
		// timeout of its own; a timeout on the whole call could run out
		// before the headers on a loaded machine).
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.BaseURL()+"/workflow", nil)
		req.Header.Set("Authorization", "Bearer "+devToken)
		resp, err := freshClient(0).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		half := make([]byte, resp.ContentLength/2)
		if _, err := io.ReadFull(resp.Body, half); err != nil {
			t.Fatalf("the first half of the body: %v", err)
		}
		stop := time.AfterFunc(300*time.Millisecond, cancel)
		defer stop.Stop()
		if _, err = io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
			t.Fatalf("read %v, want the client giving up while the body stalls", err)
		}
		// The stall ends when the client goes away, not a minute later:
		// the call is journaled as soon as it does.
		if e := journaled(t, srv, r); len(e.Injected) != 1 || e.Injected[0].What != "connection stall" {
			t.Errorf("journal %+v", e)
		}
	})
}

// A stalled answer does not hold up the server's shutdown.
func TestStallEndsWithShutdown(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithFault(faults.Fault{Connection: profile.ConnStall}))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	headers := make(chan struct{})
	go func() {
		resp, err := get(t, freshClient(0), srv, "/workflow")
		close(headers) // the stall has begun: the client has the headers
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		got <- err
	}()
	<-headers
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_ = srv.Shutdown(ctx)
	select {
	case err := <-got:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("the stalled client read %v, want the answer cut at shutdown", err)
		}
	case <-ctx.Done():
		t.Fatal("the stalled call outlived the server's shutdown")
	}
	t.Logf("shutdown with a stalled call took %s", time.Since(start).Round(time.Millisecond))
}

// A delay is real time, since a client's timeout is: a short one is
// waited out (a lower bound on the real clock, a generous upper one), and
// a client with a shorter timeout gives up.
func TestLatencyOnTheRealClock(t *testing.T) {
	srv, _ := listening(t)
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Delay: 150 * time.Millisecond, Times: 1})
	start := time.Now()
	resp, err := get(t, freshClient(30*time.Second), srv, "/workflow")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || took < 150*time.Millisecond || took > 20*time.Second {
		t.Errorf("status %d after %s, want 200 after at least 150ms", resp.StatusCode, took)
	}
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Delay: profile.MaxFaultDelay, Times: 1})
	_, err = get(t, freshClient(200*time.Millisecond), srv, "/workflow")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("a client with a 200ms timeout: %v, want its timeout", err)
	}
}

// Random delays, as the server draws them: within their range, the same
// on every run of the same seed; here through a recording sleeper, without
// waiting. A delay goes with a status too (slow and failing).
func TestLatencyDrawnWithTheSeed(t *testing.T) {
	delays := func() []time.Duration {
		srv, _ := newServer(t, embedded(t), mock.WithSeed(11))
		var mu sync.Mutex
		var got []time.Duration
		srv.SetFaultSleep(func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, d)
			return nil
		})
		addFault(t, srv, faults.Fault{Delay: 100 * time.Millisecond, DelayMax: 2 * time.Second, Status: 503})
		for range 20 {
			if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 503 {
				t.Fatalf("status %d", a.status)
			}
		}
		return got
	}
	a, b := delays(), delays()
	if len(a) != 20 {
		t.Fatalf("%d delays for 20 calls", len(a))
	}
	for i := range a {
		if a[i] < 100*time.Millisecond || a[i] > 2*time.Second || a[i] != b[i] {
			t.Errorf("call %d: %s and %s", i+1, a[i], b[i])
		}
	}
}

// N calls, a share and a window, on the fake's clock and seed.
func TestFaultSelectionOnTheFakeClock(t *testing.T) {
	t.Run("next calls", func(t *testing.T) {
		srv, _ := newServer(t, embedded(t))
		r := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Status: 503, Times: 3})
		var got []int
		for range 5 {
			got = append(got, call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil).status)
		}
		if want := []int{503, 503, 503, 200, 200}; !equalInts(got, want) {
			t.Errorf("statuses %v, want %v", got, want)
		}
		if _, alive, _ := r.Hits(); alive {
			t.Error("a spent rule is still listed")
		}
		// Other operations were never touched.
		if a := call(t, srv.Handler(), "GET", "/api/user-info", devToken, nil); a.status != 200 {
			t.Errorf("user-info: %d", a.status)
		}
	})
	t.Run("window", func(t *testing.T) {
		srv, clk := newServer(t, embedded(t))
		addFault(t, srv, faults.Fault{Status: 503, For: 10 * time.Minute, Note: "outage"})
		for _, path := range []string{"/api/workflow", "/api/user-info", "/api/compute-envs"} {
			if a := call(t, srv.Handler(), "GET", path, devToken, nil); a.status != 503 {
				t.Errorf("during the outage, %s: %d", path, a.status)
			}
		}
		clk.Advance(10 * time.Minute)
		if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
			t.Errorf("after the outage: %d", a.status)
		}
	})
	t.Run("share", func(t *testing.T) {
		picks := func(seed int64) []int {
			srv, _ := newServer(t, embedded(t), mock.WithSeed(seed))
			addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Status: 502, Share: 0.25})
			var got []int
			for range 200 {
				got = append(got, call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil).status)
			}
			return got
		}
		a, b, other := picks(5), picks(5), picks(6)
		n := 0
		for _, s := range a {
			if s == 502 {
				n++
			}
		}
		if !equalInts(a, b) || equalInts(a, other) {
			t.Error("the share does not follow the seed")
		}
		if n < 25 || n > 75 { // 50 expected; 4 standard deviations either side
			t.Errorf("%d of 200 calls failed at a share of 0.25", n)
		}
	})
	t.Run("token", func(t *testing.T) {
		srv, _ := newServer(t, embedded(t))
		addFault(t, srv, faults.Fault{Token: secondToken, Status: 500})
		if a := call(t, srv.Handler(), "GET", "/api/workflow", devToken, nil); a.status != 200 {
			t.Errorf("another token's call: %d", a.status)
		}
		if a := call(t, srv.Handler(), "GET", "/api/workflow", secondToken, nil); a.status != 500 {
			t.Errorf("the token's call: %d", a.status)
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var pinnedUser = json.RawMessage(`{"user":{"id":7,"userName":"pinned","email":"pinned@example.com"},"needConsent":false,"defaultWorkspaceId":null}`)

// An override answers instead of the operation for the calls it matches,
// as often as it was asked to; one whose answer the operation does not
// document is refused unless deliberate, and a deliberate one reaches the
// client even in strict mode, where every other answer is checked.
func TestOverrides(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithStrictResponses())
	r, err := srv.AddOverride(faults.Override{Operation: "UserInfo", Status: 200, Body: pinnedUser, Times: 2,
		Headers: map[string]string{"X-Pinned": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		a := call(t, srv.Handler(), "GET", "/api/user-info", devToken, nil)
		pinned := bytes.Contains(a.body, []byte(`"pinned"`))
		if a.status != 200 || pinned != (i < 2) || (a.header.Get("X-Pinned") == "yes") != (i < 2) {
			t.Errorf("call %d: %d %s %v", i+1, a.status, a.body, a.header)
		}
	}
	if _, alive, _ := r.Hits(); alive {
		t.Error("an override for two answers is still there after two")
	}
	if last := lastRequests(t, srv, 2)[1]; len(last.Injected) != 1 || last.Injected[0].Kind != "override" || last.Injected[0].Rule != r.ID() {
		t.Errorf("journal %+v", last)
	}

	// Checked against the document.
	for _, tc := range []struct {
		o    faults.Override
		want string
	}{
		{faults.Override{Operation: "UserInfo", Status: 201, Body: pinnedUser}, "status 201 is not among its responses"},
		{faults.Override{Operation: "UserInfo", Status: 200, Body: json.RawMessage(`{"user":{"id":"seven"}}`)}, "UserInfo"},
		{faults.Override{Operation: "NoSuchOperation", Status: 200}, `no served document has an operation "NoSuchOperation"`},
	} {
		if _, err := srv.AddOverride(tc.o); !errors.Is(err, faults.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	teapot := json.RawMessage(`{"message":"short and stout"}`)
	d, err := srv.AddOverride(faults.Override{Operation: "UserInfo", Status: 418, Body: teapot, Deliberate: true})
	if err != nil {
		t.Fatalf("a deliberate override: %v", err)
	}
	defer d.Remove()
	if a := call(t, srv.Handler(), "GET", "/api/user-info", devToken, nil); a.status != 418 || string(a.body) != string(teapot) {
		t.Errorf("the deliberate answer under strict responses: %d %s", a.status, a.body)
	}
}

// An override matches path values, query values and a JSON Pointer into
// the body; a call that differs in any gets the operation's own answer.
func TestOverrideMatches(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	id := launch(t, srv.Handler(), "pinned-run", "")
	body := json.RawMessage(`{"workflowId":"pinnedrun1"}`)
	if _, err := srv.AddOverride(faults.Override{Operation: "CreateWorkflowLaunch", Status: 200, Body: body,
		Match: faults.Match{Query: map[string]string{"workspaceId": "7"},
			Body: []faults.BodyMatch{{Pointer: "/launch/runName", Value: json.RawMessage(`"wanted"`)}}}}); err != nil {
		t.Fatal(err)
	}
	launchBody := func(name string) []byte {
		return []byte(`{"launch":{"computeEnvId":"` + computeEnvFor(t, srv) + `","pipeline":"https://github.com/nextflow-io/hello","runName":"` + name + `"}}`)
	}
	if a := call(t, srv.Handler(), "POST", "/api/workflow/launch?workspaceId=7", devToken, launchBody("wanted")); !bytes.Equal(a.body, body) {
		t.Errorf("matching launch: %d %s", a.status, a.body)
	}
	if a := call(t, srv.Handler(), "POST", "/api/workflow/launch?workspaceId=7", devToken, launchBody("other")); bytes.Equal(a.body, body) {
		t.Error("a launch with another run name got the pinned answer")
	}
	if _, err := srv.AddOverride(faults.Override{Operation: "DescribeWorkflow", Status: 403, Match: faults.Match{Path: map[string]string{"workflowId": id}}}); err != nil {
		t.Fatal(err)
	}
	if a := call(t, srv.Handler(), "GET", "/api/workflow/"+id, devToken, nil); a.status != 403 {
		t.Errorf("the pinned run: %d", a.status)
	}
}

// computeEnvFor finds a compute environment the seed holds, for a launch.
func computeEnvFor(t *testing.T, srv *mock.Server) string {
	t.Helper()
	a := call(t, srv.Handler(), "GET", "/api/compute-envs", devToken, nil)
	var body struct {
		ComputeEnvs []struct {
			ID string `json:"id"`
		} `json:"computeEnvs"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil || len(body.ComputeEnvs) == 0 {
		t.Fatalf("compute envs: %d %s", a.status, a.body)
	}
	return body.ComputeEnvs[0].ID
}

// The admin door: add, list with hits, remove; bounds and mistakes are
// Bad Requests with an Error ID whose message says why; a reset keeps only
// the profile's rules.
func TestFaultsAdminAPI(t *testing.T) {
	p := profile.Default()
	p.Faults.Rules = []profile.FaultRule{{Operation: "UserInfo", Status: 502, Times: 1}}
	srv, _ := newServer(t, embedded(t), mock.WithProfile(p))
	h := srv.Handler()
	post := func(path, body string) answer {
		return adminCall(t, h, "POST", path, "", []byte(body))
	}
	a := post("/_mock/admin/faults", `{"operation":"ListWorkflows","status":503,"times":2,"delay":"0s","note":"burst"}`)
	var e faults.Entry
	if a.status != 201 || json.Unmarshal(a.body, &e) != nil || e.ID == "" || e.Source != "admin" || a.header.Get("Location") != "/_mock/admin/faults/"+e.ID {
		t.Fatalf("POST: %d %s %v", a.status, a.body, a.header)
	}
	call(t, h, "GET", "/api/workflow", devToken, nil)
	var list struct {
		Faults []faults.Entry `json:"faults"`
	}
	a = adminCall(t, h, "GET", "/_mock/admin/faults", "", nil)
	if err := json.Unmarshal(a.body, &list); err != nil || len(list.Faults) != 2 || list.Faults[0].ID != e.ID || list.Faults[0].Hits != 1 ||
		list.Faults[1].Source != "profile" || list.Faults[0].Fault.Note != "burst" {
		t.Fatalf("list: %d %s", a.status, a.body)
	}
	if a := adminCall(t, h, "DELETE", "/_mock/admin/overrides/"+e.ID, "", nil); a.status != 404 {
		t.Errorf("removing a fault as an override: %d", a.status)
	}
	if a := adminCall(t, h, "DELETE", "/_mock/admin/faults/"+e.ID, "", nil); a.status != 204 {
		t.Errorf("DELETE: %d %s", a.status, a.body)
	}
	if a := adminCall(t, h, "GET", "/_mock/admin/faults/"+e.ID, "", nil); a.status != 404 {
		t.Errorf("GET a removed fault: %d", a.status)
	}

	for _, tc := range []struct{ path, body, want string }{
		{"/_mock/admin/faults", `{"status":503,"delay":"2m"}`, "delay: 2m0s: use 0s up to 1m0s"},
		{"/_mock/admin/faults", `{"status":503,"colour":"red"}`, `unknown field "colour"`},
		{"/_mock/admin/faults", `{"operation":"Nope","status":503}`, `no served document has an operation "Nope"`},
		{"/_mock/admin/faults", `{"tag":"nope","status":503}`, `no operation of a served document has the tag "nope"`},
		{"/_mock/admin/faults", `not json`, "the body is not a rule"},
		{"/_mock/admin/overrides", `{"operation":"UserInfo","status":200,"body":"` + strings.Repeat("x", profile.MaxOverrideBody) + `"}`, "at most 262144"},
		{"/_mock/admin/overrides", `{"operation":"UserInfo","status":299}`, "status 299 is not among its responses"},
	} {
		a := post(tc.path, tc.body)
		if a.status != 400 {
			t.Errorf("%s %.60s: %d %s", tc.path, tc.body, a.status, a.body)
			continue
		}
		msg := a.message(t)
		id := errorID(t, a)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%.60s: message %q, want %q", tc.body, msg, tc.want)
		}
		if entry, ok := errorEntry(t, srv, id); !ok || !strings.Contains(entry.Reason, tc.want) {
			t.Errorf("%.60s: the Error ID's entry %+v", tc.body, entry)
		}
	}

	// The cap: the profile's rule and 99 more; the 101st is refused.
	for i := 1; i < profile.MaxFaultRules; i++ {
		if a := post("/_mock/admin/faults", `{"operation":"DescribeWorkflow","status":500}`); a.status != 201 {
			t.Fatalf("rule %d: %d %s", i+1, a.status, a.body)
		}
	}
	a = post("/_mock/admin/overrides", `{"operation":"UserInfo","status":403}`)
	if a.status != 400 || !strings.Contains(a.message(t), "holds 100 rules at most") {
		t.Errorf("rule 101: %d %s", a.status, a.body)
	}
	errorID(t, a)
	if a := adminCall(t, h, "DELETE", "/_mock/admin/faults", "", nil); a.status != 200 || !strings.Contains(string(a.body), `"removed":100`) {
		t.Errorf("DELETE all: %d %s", a.status, a.body)
	}

	// A reset brings the profile's rule back, fresh.
	post("/_mock/admin/faults", `{"status":500}`)
	if a := adminCall(t, h, "POST", "/_mock/admin/reset", "", nil); a.status != 200 {
		t.Fatal(a.status)
	}
	a = adminCall(t, h, "GET", "/_mock/admin/faults", "", nil)
	if err := json.Unmarshal(a.body, &list); err != nil || len(list.Faults) != 1 || list.Faults[0].ID != "profile-fault-1" {
		t.Errorf("after a reset: %s", a.body)
	}
	if a := call(t, h, "GET", "/api/user-info", devToken, nil); a.status != 502 {
		t.Errorf("the profile's rule after a reset: %d", a.status)
	}
}

// The admin API answers only where the other admin endpoints do.
func TestFaultsAdminAPIIsGuarded(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithAdminToken("s3cret"))
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/faults", "", []byte(`{"status":503}`)); a.status != 403 {
		t.Errorf("without the admin token: %d", a.status)
	}
	if a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/faults", "Bearer s3cret", []byte(`{"status":503}`), "192.0.2.1:1"); a.status != 201 {
		t.Errorf("with it: %d %s", a.status, a.body)
	}
}

// Rules from options are there from the start and come back after a
// reset; a rule the options get wrong stops New.
func TestFaultOptions(t *testing.T) {
	srv, _ := newServer(t, embedded(t), mock.WithFault(faults.Fault{Operation: "UserInfo", Status: 504, Times: 1}),
		mock.WithOverride(faults.Override{Operation: "UserInfo", Status: 200, Body: pinnedUser}))
	for i, want := range []int{504, 200} {
		if a := call(t, srv.Handler(), "GET", "/api/user-info", devToken, nil); a.status != want || (want == 200 && !bytes.Contains(a.body, []byte("pinned"))) {
			t.Errorf("call %d: %d %s", i+1, a.status, a.body)
		}
	}
	if _, err := mock.New(mock.WithFault(faults.Fault{Operation: "Nope", Status: 500})); err == nil || !strings.Contains(err.Error(), "WithFault") {
		t.Errorf("an option naming no operation: %v", err)
	}
	p := profile.Default()
	p.Faults.Rules = []profile.FaultRule{{Tag: "nope", Status: 500}}
	if _, err := mock.New(mock.WithProfile(p)); err == nil || !strings.Contains(err.Error(), "faults.rules[0]") {
		t.Errorf("a profile rule naming no tag: %v", err)
	}
}

// Replicas on one Redis share the rules and their counts: a fault added
// through A's admin API acts on B's calls, its three calls counted across
// both; an override added on B answers on A; a reset on one clears both.
func TestFaultsAcrossReplicas(t *testing.T) {
	faultsAcrossReplicas(t, miniredis.RunT(t).Addr())
}

// TestFaultsAcrossReplicasRealRedis is the same on a real redis-server.
func TestFaultsAcrossReplicasRealRedis(t *testing.T) {
	faultsAcrossReplicas(t, testenv.RedisServer(t))
}

func faultsAcrossReplicas(t *testing.T, addr string) {
	clk := clock.NewFake(epoch)
	a, b := replica(t, addr, clk, mock.WithRateLimit(nil)), replica(t, addr, clk, mock.WithRateLimit(nil))
	if r := adminCall(t, a.Handler(), "POST", "/_mock/admin/faults", "", []byte(`{"operation":"ListWorkflows","status":503,"times":3}`)); r.status != 201 {
		t.Fatalf("POST on A: %d %s", r.status, r.body)
	}
	var got []int
	for _, s := range []*mock.Server{b, a, b, a} {
		got = append(got, call(t, s.Handler(), "GET", "/api/workflow", devToken, nil).status)
	}
	if !equalInts(got, []int{503, 503, 503, 200}) {
		t.Errorf("calls on B, A, B, A: %v", got)
	}
	if _, err := b.AddOverride(faults.Override{Operation: "UserInfo", Status: 200, Body: pinnedUser}); err != nil {
		t.Fatal(err)
	}
	if r := call(t, a.Handler(), "GET", "/api/user-info", devToken, nil); !bytes.Contains(r.body, []byte("pinned")) {
		t.Errorf("the override added on B, called on A: %d %s", r.status, r.body)
	}
	if r := adminCall(t, b.Handler(), "POST", "/_mock/admin/reset", "", nil); r.status != 200 {
		t.Fatal(r.status)
	}
	if r := call(t, a.Handler(), "GET", "/api/user-info", devToken, nil); bytes.Contains(r.body, []byte("pinned")) {
		t.Error("the override outlived a reset on the other replica")
	}
}

// Over HTTPS: with HTTP/1.1 the connection faults are those of plain HTTP
// (the reset below TLS, so that it is not an orderly TLS close); with
// HTTP/2 one connection carries many calls, so the call's stream is reset
// instead, and the journal still records it.
func TestConnectionFaultsOverHTTPS(t *testing.T) {
	srv, _ := listening(t, mock.WithTLS())
	h2 := srv.Client()
	base := h2.Transport.(*http.Transport).Clone()
	base.DisableKeepAlives = true
	base.ForceAttemptHTTP2 = false
	base.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // HTTP/1.1 only
	base.TLSClientConfig = base.TLSClientConfig.Clone()
	base.TLSClientConfig.NextProtos = []string{"http/1.1"}
	h1 := &http.Client{Timeout: time.Minute, Transport: base}

	r1 := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnReset, Times: 1})
	if _, err := get(t, h1, srv, "/workflow"); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("HTTP/1.1 reset: %v, want connection reset by peer", err)
	}
	addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnCut, Times: 1})
	if resp, err := get(t, h1, srv, "/workflow"); err != nil {
		t.Errorf("HTTP/1.1 cut: %v", err)
	} else {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("HTTP/1.1 cut: reading %v, want an unexpected EOF", err)
		}
	}
	journaled(t, srv, r1)

	r2 := addFault(t, srv, faults.Fault{Operation: "ListWorkflows", Connection: profile.ConnReset, Times: 1})
	_, err := get(t, h2, srv, "/workflow")
	if err == nil || !strings.Contains(err.Error(), "stream error") {
		t.Errorf("HTTP/2 reset: %v, want the stream reset", err)
	}
	if e := journaled(t, srv, r2); e.Status != 0 || len(e.Injected) != 1 || e.Injected[0].What != "connection reset" {
		t.Errorf("journal %+v", e)
	}
	// The connection itself is fine: the next call on it is answered.
	resp, err := get(t, h2, srv, "/workflow")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Errorf("the call after the reset stream: %d %s", resp.StatusCode, resp.Proto)
	}
}
