package proxy_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/conformance/proxy"
	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/recording"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// embedded is the fake's own document, loaded once for every test.
var embedded = func() *spec.Document {
	d, err := spec.Load(fixtures.OpenAPI())
	if err != nil {
		panic(err)
	}
	return d
}()

type answer struct {
	status int
	header http.Header
	body   []byte
}

func call(t testing.TB, method, u, token, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 20 * time.Second} // a hang fails the test instead of stalling it
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, u, err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// startProxy runs a proxy to target on loopback; the returned function
// stops the server and closes the proxy (so its recording is complete).
func startProxy(t *testing.T, o proxy.Options) (*proxy.Proxy, string, func()) {
	t.Helper()
	if o.Document == nil {
		o.Document = embedded
	}
	p, err := proxy.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			srv.Close()
			if err := p.Close(); err != nil {
				t.Errorf("closing the proxy: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return p, srv.URL, stop
}

func mustURL(t testing.TB, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// flowStep is one call of the client flow and what it got.
type flowStep struct {
	name   string
	method string
	path   string
	answer answer
}

// clientFlow launches a run, describes it, cancels it, then creates a
// token, uses it and revokes it, against base. tag keeps token names of
// two runs of the flow apart.
func clientFlow(t *testing.T, base, tag string) (steps []flowStep, accessKey string) {
	t.Helper()
	do := func(name, method, path, token, body string, want int) answer {
		a := call(t, method, base+path, token, body)
		if a.status != want {
			t.Fatalf("%s via %s: status %d, want %d: %s", name, base, a.status, want, a.body)
		}
		steps = append(steps, flowStep{name, method, path, a})
		return a
	}
	launch := do("launch", "POST", "/workflow/launch", mock.DevToken,
		`{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq","workDir":"s3://bucket/work"}}`, 200)
	var launched struct{ WorkflowID string }
	if err := json.Unmarshal(launch.body, &launched); err != nil || launched.WorkflowID == "" {
		t.Fatalf("launch answered %s", launch.body)
	}
	do("describe", "GET", "/workflow/"+launched.WorkflowID, mock.DevToken, "", 200)
	do("cancel", "POST", "/workflow/"+launched.WorkflowID+"/cancel", mock.DevToken, "", 204)
	created := do("create token", "POST", "/tokens", mock.DevToken, `{"name":"proxy-flow-`+tag+`"}`, 200)
	var tok struct {
		AccessKey string
		Token     struct{ ID int64 }
	}
	if err := json.Unmarshal(created.body, &tok); err != nil || tok.AccessKey == "" || tok.Token.ID == 0 {
		t.Fatalf("create token answered %s", created.body)
	}
	do("use token", "GET", "/workflow?max=2", tok.AccessKey, "", 200)
	do("revoke token", "DELETE", "/tokens/"+strconv.FormatInt(tok.Token.ID, 10), mock.DevToken, "", 204)
	do("use revoked token", "GET", "/workflow?max=2", tok.AccessKey, "", 403)
	return steps, tok.AccessKey
}

func readRecording(t *testing.T, path string) (recording.Header, []*recording.Interaction, []byte) {
	t.Helper()
	var ins []*recording.Interaction
	h, err := recording.ReadFile(path, nil, func(in *recording.Interaction) error { ins = append(ins, in); return nil })
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return h, ins, raw
}

// TestProxyFlowThroughTheFake: the fake as the target, the proxy in front:
// a client flow succeeds as it does directly, every call is recorded in
// order, no token value reaches the file, the fake's answers show no
// drift, and a fake replaying the recording answers its GETs byte for byte.
func TestProxyFlowThroughTheFake(t *testing.T) {
	fake, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	rec := filepath.Join(t.TempDir(), "session.jsonl")
	p, proxyURL, stop := startProxy(t, proxy.Options{Target: mustURL(t, fake.BaseURL()), Record: rec})

	direct, _ := clientFlow(t, fake.BaseURL(), "direct")
	proxied, accessKey := clientFlow(t, proxyURL, "proxied")
	for i := range direct {
		d, q := direct[i].answer, proxied[i].answer
		if d.status != q.status || d.header.Get("Content-Type") != q.header.Get("Content-Type") {
			t.Errorf("%s: directly %d %s, through the proxy %d %s", direct[i].name, d.status,
				d.header.Get("Content-Type"), q.status, q.header.Get("Content-Type"))
		}
	}
	stop()

	h, ins, raw := readRecording(t, rec)
	if h.Format != recording.Format || h.Target != fake.BaseURL() {
		t.Errorf("header %+v", h)
	}
	if len(ins) != len(proxied) {
		t.Fatalf("%d interactions recorded, want %d", len(ins), len(proxied))
	}
	for i, in := range ins {
		s := proxied[i]
		if in.Request.Method != s.method || in.Request.Path+query(in.Request.Query) != s.path || in.Response.Status != s.answer.status {
			t.Errorf("interaction %d is %s %s?%s %d, want %s %s %d", i+1, in.Request.Method, in.Request.Path,
				in.Request.Query, in.Response.Status, s.method, s.path, s.answer.status)
		}
		if in.Operation == "" || in.Seq != i+1 {
			t.Errorf("interaction %d: operation %q, seq %d", i+1, in.Operation, in.Seq)
		}
	}
	for _, secret := range []string{accessKey, mock.DevToken} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the token value %q is in the recording", secret)
		}
	}
	if !bytes.Contains(raw, []byte(`\"accessKey\":\"[REDACTED]\"`)) {
		t.Error("the created token's access key is not shown as redacted")
	}
	r := p.Report()
	if r.Calls != len(proxied) || r.Drifted != 0 || r.Failed != 0 {
		t.Errorf("report: %d calls, %d drifted, %d failed; violations %+v", r.Calls, r.Drifted, r.Failed, r.Violations)
	}

	// The recording, replayed: every recorded GET answered 200 is answered
	// with the very bytes the client got through the proxy, even for a run
	// the replaying fake has never heard of.
	replay, err := mock.New(mock.WithReplay(rec))
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.Start(); err != nil {
		t.Fatal(err)
	}
	defer replay.Close()
	checked := 0
	for _, s := range proxied {
		if s.method != "GET" || s.answer.status != 200 {
			continue
		}
		token := mock.DevToken
		got := call(t, "GET", replay.BaseURL()+s.path, token, "")
		if got.status != s.answer.status || !bytes.Equal(got.body, s.answer.body) {
			t.Errorf("replay of %s: %d %s\nrecorded: %d %s", s.path, got.status, got.body, s.answer.status, s.answer.body)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("only %d GETs replayed", checked)
	}
}

func query(q string) string {
	if q == "" {
		return ""
	}
	return "?" + q
}

// driftBody breaks DescribeWorkflow's schema the way the service is known
// to: a string where an integer is declared.
const driftBody = `{"workflow":{"id":"abc","status":"running"},  "orgId":"42"}`

// TestProxyReportsDriftAndPassesTheBodyUnchanged: a target answering a
// body the document rejects is reported as drift with the operation and
// the field, and the client gets the body as the target sent it.
func TestProxyReportsDriftAndPassesTheBodyUnchanged(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Target", "yes")
		_, _ = io.WriteString(w, driftBody)
	}))
	defer target.Close()
	rec := filepath.Join(t.TempDir(), "drift.jsonl")
	p, proxyURL, stop := startProxy(t, proxy.Options{Target: mustURL(t, target.URL), Record: rec})

	a := call(t, "GET", proxyURL+"/workflow/abc", mock.DevToken, "")
	if a.status != 200 || string(a.body) != driftBody || a.header.Get("X-Target") != "yes" {
		t.Fatalf("the client got %d %q (headers %v), want the target's answer unchanged", a.status, a.body, a.header)
	}
	stop()
	// Closed, the proxy still forwards, but checks and records no more.
	late := httptest.NewRecorder()
	p.ServeHTTP(late, httptest.NewRequest("GET", "/workflow/abc", nil))
	if late.Code != 200 || late.Body.String() != driftBody {
		t.Errorf("a call after Close: %d %s", late.Code, late.Body)
	}

	var found *proxy.Violation
	r := p.Report()
	for i, v := range r.Violations {
		if v.Operation == "DescribeWorkflow" && v.Direction == proxy.Response && v.Where == "$.orgId" {
			found = &r.Violations[i]
		}
	}
	if found == nil || r.Drifted != 1 || r.Operations[0].ResponseViolations != 1 {
		t.Fatalf("drift not reported as DescribeWorkflow / response / orgId: %+v", r)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "| DescribeWorkflow | response | "+found.Where) {
		t.Errorf("markdown report:\n%s", md.String())
	}
	_, ins, _ := readRecording(t, rec)
	if len(ins) != 1 || len(ins[0].Violations) == 0 || ins[0].Response.Body.Text != driftBody {
		t.Fatalf("recording: %+v", ins)
	}

	// Replayed, the body the document rejects is still what is answered,
	// and the replaying fake counts it at start.
	var log bytes.Buffer
	replay, err := mock.New(mock.WithReplay(rec), mock.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "rejected_by_document=1 ") {
		t.Errorf("the replay's start-up log does not count 1 recorded answer the document rejects:\n%s", log.String())
	}
	w := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/api/workflow/abc", nil)
	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
	replay.Handler().ServeHTTP(w, req)
	if w.Code != 200 || w.Body.String() != driftBody {
		t.Errorf("replay answered %d %s", w.Code, w.Body)
	}
}

var errorShape = regexp.MustCompile(`^\{"message":"wmsmock proxy: .+ - Error ID: [0-9A-Za-z]{22}"\}$`)

// TestProxyBoundedWhenTheTargetIsDownOrSlow: no answer from the target is
// a 502 (down) or 504 (slow) in the service's error shape, within the
// proxy's timeout, and the call is still counted and recorded.
func TestProxyBoundedWhenTheTargetIsDownOrSlow(t *testing.T) {
	t.Run("down", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		rec := filepath.Join(t.TempDir(), "down.jsonl")
		p, proxyURL, stop := startProxy(t, proxy.Options{Target: mustURL(t, "http://"+addr+"/api"), Record: rec})
		a := call(t, "GET", proxyURL+"/workflow", mock.DevToken, "")
		if a.status != http.StatusBadGateway || !errorShape.Match(a.body) {
			t.Fatalf("down target: %d %s", a.status, a.body)
		}
		// The proxy's own health check answers whatever the target does,
		// and is not a call of the session.
		if h := call(t, "GET", proxyURL+proxy.HealthPath, "", ""); h.status != http.StatusOK || string(h.body) != `{"status":"ok"}`+"\n" {
			t.Errorf("health check with the target down: %d %s", h.status, h.body)
		}
		stop()
		if r := p.Report(); r.Calls != 1 || r.Failed != 1 {
			t.Errorf("report %+v", r)
		}
		_, ins, _ := readRecording(t, rec)
		if len(ins) != 1 || ins[0].Response.Error == "" || ins[0].Response.Status != 502 {
			t.Errorf("recording %+v", ins)
		}
	})
	t.Run("slow", func(t *testing.T) {
		release := make(chan struct{})
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer target.Close()
		defer close(release)
		_, proxyURL, _ := startProxy(t, proxy.Options{Target: mustURL(t, target.URL), Timeout: 100 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", proxyURL+"/workflow", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusGatewayTimeout || !errorShape.Match(body) {
			t.Fatalf("slow target: %d %s", resp.StatusCode, body)
		}
	})
}

// TestProxyBodiesOverTheLimitAndGzip: a body over the capture limit passes
// whole but is neither checked nor recorded; a gzip answer passes as the
// target sent it and is checked and recorded unpacked.
func TestProxyBodiesOverTheLimitAndGzip(t *testing.T) {
	big := `{"workflow":{"id":"abc","status":"RUNNING"},"orgName":"` + strings.Repeat("x", 200) + `"}`
	gz := func(text string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = io.WriteString(zw, text)
		_ = zw.Close()
		return b.Bytes()
	}
	zipped := bytes.NewBuffer(gz(driftBody))
	// Small packed, over the limit unpacked, with a secret past the cut.
	secret := "SUPERSECRETVALUE"
	bigZipped := gz(`{"token":{"id":1,"name":"` + strings.Repeat("n", 150) + `"},"accessKey":"` + secret + `"}`)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/zipped"):
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(zipped.Bytes())
			return
		case strings.HasSuffix(r.URL.Path, "/tokens"):
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bigZipped)
			return
		}
		_, _ = io.WriteString(w, big)
	}))
	defer target.Close()
	rec := filepath.Join(t.TempDir(), "limits.jsonl")
	p, proxyURL, stop := startProxy(t, proxy.Options{Target: mustURL(t, target.URL), Record: rec, MaxBody: 100})

	if a := call(t, "GET", proxyURL+"/workflow/big", mock.DevToken, ""); string(a.body) != big {
		t.Fatalf("the client got %d bytes, want the whole %d", len(a.body), len(big))
	}
	req, _ := http.NewRequest("GET", proxyURL+"/workflow/zipped", nil)
	req.Header.Set("Accept-Encoding", "gzip") // set by hand: Go's client then leaves the body packed
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, zipped.Bytes()) || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the gzip answer was changed on its way: %q", got)
	}
	req, _ = http.NewRequest("GET", proxyURL+"/tokens", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	stop()
	if b, _ := os.ReadFile(rec); bytes.Contains(b, []byte(secret)) {
		t.Error("the secret of a gzip answer over the limit reached the recording")
	}

	r := p.Report()
	if r.Calls != 3 || r.Drifted != 1 {
		t.Errorf("report: %d calls, %d drifted, want 3 and 1 (the unpacked gzip body): %+v", r.Calls, r.Drifted, r.Violations)
	}
	unchecked := false
	for _, v := range r.Violations {
		unchecked = unchecked || (v.Unchecked && v.Direction == proxy.Response && strings.Contains(v.Message, "over the limit"))
	}
	if !unchecked {
		t.Errorf("the body over the limit is not reported as unchecked: %+v", r.Violations)
	}
	_, ins, _ := readRecording(t, rec)
	if len(ins) != 3 {
		t.Fatalf("%d interactions recorded", len(ins))
	}
	if b := ins[0].Response.Body; b == nil || !b.Truncated || b.Text != "" || b.Size != int64(len(big)) {
		t.Errorf("the body over the limit is recorded as %+v", b)
	}
	if b := ins[1].Response.Body; b == nil || b.Text != driftBody {
		t.Errorf("the gzip body is recorded as %+v", b)
	}
	// The recorded headers describe the recorded (unpacked) body.
	for _, h := range ins[1].Response.Headers {
		if strings.EqualFold(h.Name, "Content-Encoding") {
			t.Errorf("the unpacked gzip body is recorded under Content-Encoding %q", h.Value)
		}
	}
	if b := ins[2].Response.Body; b == nil || !b.Truncated || b.Text != "" {
		t.Errorf("the gzip body over the limit is recorded as %+v", b)
	}
}

// The service's nulls are its habit, not drift, unless StrictSchema says
// they are: a null for an optional property of the answer counts only then,
// and anything else the document rejects counts either way.
func TestProxyTakesTheServiceNulls(t *testing.T) {
	const nulls = `{"workflow":{"id":"abc","status":"RUNNING","projectName":null,"deleted":null}}`
	const wrong = `{"workflow":{"id":"abc","status":"RUNNING","exitStatus":"one"}}`
	for _, tc := range []struct {
		body   string
		strict bool
		drift  bool
	}{{nulls, false, false}, {nulls, true, true}, {wrong, false, true}} {
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, tc.body)
		}))
		p, proxyURL, stop := startProxy(t, proxy.Options{Target: mustURL(t, target.URL), StrictSchema: tc.strict})
		call(t, "GET", proxyURL+"/workflow/abc", mock.DevToken, "")
		stop()
		target.Close()
		if r := p.Report(); (r.Drifted > 0) != tc.drift {
			t.Errorf("%s, strict %v: %d drifted (%+v), want drift %v", tc.body, tc.strict, r.Drifted, r.Violations, tc.drift)
		}
	}
}
