package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/conformance/proxy"
	"github.com/wmsmock/wmsmock/mock"
)

// BenchmarkProxyAddedLatency measures what the proxy adds to one call: the
// same GET (a run's describe, answered by a static target with the fake's
// body, so the target's own time is near zero) made b.N times directly and
// b.N times through the proxy, which checks both directions and records
// every call. It reports both per-call times and their difference
// (added-µs/call); the checks run behind the answers, but a proxy slower
// at them than the calls come in would fill its queue and show here.
func BenchmarkProxyAddedLatency(b *testing.B) {
	fake, err := mock.New()
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/workflow/3cSucceeded003", nil)
	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
	rec := httptest.NewRecorder()
	fake.Handler().ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	if rec.Code != 200 {
		b.Fatalf("the fake's describe: %d %s", rec.Code, body)
	}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer target.Close()
	p, err := proxy.New(proxy.Options{Target: mustURL(b, target.URL), Document: embedded,
		Record: filepath.Join(b.TempDir(), "bench.jsonl")})
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(p)
	defer front.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(base string) {
		r, _ := http.NewRequest("GET", base+"/workflow/3cSucceeded003", nil)
		r.Header.Set("Authorization", "Bearer "+mock.DevToken)
		resp, err := client.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	get(target.URL) // warm both: connections, the validator's compiled schemas
	get(front.URL)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		get(target.URL)
	}
	direct := time.Since(start)
	start = time.Now()
	for i := 0; i < b.N; i++ {
		get(front.URL)
	}
	proxied := time.Since(start)
	b.StopTimer()
	if err := p.Close(); err != nil {
		b.Fatal(err)
	}
	if n := p.Recorded(); n != b.N+1 {
		b.Fatalf("%d calls recorded, want %d", n, b.N+1)
	}
	if r := p.Report(); r.Drifted != 0 {
		b.Fatalf("the fake's answer drifted: %+v", r.Violations)
	}
	n := float64(b.N)
	b.ReportMetric(float64(direct.Microseconds())/n, "direct-µs/call")
	b.ReportMetric(float64(proxied.Microseconds())/n, "proxied-µs/call")
	b.ReportMetric(float64((proxied-direct).Microseconds())/n, "added-µs/call")
}
