package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/conformance/proxy"
	"github.com/wmsmock/wmsmock/mock"
)

// BenchmarkProxyAddedLatency measures what the proxy adds to one call: the
// same GET (a run's describe, answered by a static target with the fake's
// body, so the target's own time is near zero) made b.N times directly and
// b.N times through the proxy, which checks both directions and records
// every call. It reports both per-call times and their difference: calls
// back to back (added-µs/call), where the checks, which run behind the
// answers, cannot keep up and their queue holds the calls back, and calls
// paced so the proxy is idle when each comes (added-paced-µs/call), as at
// the service's rate limit.
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
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		get(target.URL)
	}
	direct, cpu1 := time.Since(start), cpuTime()
	start = time.Now()
	for i := 0; i < b.N; i++ {
		get(front.URL)
	}
	waitIdle0 := func() {
		for p.Recorded() < b.N+1 {
			time.Sleep(20 * time.Microsecond)
		}
	}
	proxied := time.Since(start)
	waitIdle0()
	cpu2 := cpuTime()
	// Paced: each call starts once the proxy has checked and recorded the
	// one before, as at the service's own pace (20 calls a second at most).
	waitIdle := func(n int) {
		for p.Recorded() < n {
			time.Sleep(20 * time.Microsecond)
		}
	}
	var paced time.Duration
	for i := 0; i < b.N; i++ {
		waitIdle(b.N + 1 + i)
		t0 := time.Now()
		get(front.URL)
		paced += time.Since(t0)
	}
	b.StopTimer()
	if err := p.Close(); err != nil {
		b.Fatal(err)
	}
	if n := p.Recorded(); n != 2*b.N+1 {
		b.Fatalf("%d calls recorded, want %d", n, 2*b.N+1)
	}
	if r := p.Report(); r.Drifted != 0 {
		b.Fatalf("the fake's answer drifted: %+v", r.Violations)
	}
	n := float64(b.N)
	b.ReportMetric(float64(direct.Microseconds())/n, "direct-µs/call")
	b.ReportMetric(float64(proxied.Microseconds())/n, "proxied-µs/call")
	b.ReportMetric(float64((proxied-direct).Microseconds())/n, "added-µs/call")
	b.ReportMetric(float64((paced-direct).Microseconds())/n, "added-paced-µs/call")
	// CPU time is what the machine's load does not inflate: the process's
	// user and system time for a proxied call (client, proxy, checks,
	// recording and target) less that of a direct one.
	b.ReportMetric(float64(((cpu2-cpu1)-(cpu1-cpu0)).Microseconds())/n, "added-cpu-µs/call")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
