package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// benchTokenCount is enough tokens for a benchmark to spread its calls over
// without meeting the per-token rate limit: with the default 20 calls per
// second per token, 20000 tokens carry 400000 calls a second, several times
// what the pipeline serves in process.
const benchTokenCount = 20_000

func benchTokens(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("bench-token-%05d", i)
	}
	return out
}

// benchmarkCall measures one call through the whole pipeline (auth, rate
// limit, version, route, validation, answer) with the real clock and the
// default rate limit on, rotating over many tokens so calls are accepted,
// on the embedded document and the published schema.
func benchmarkCall(b *testing.B, method, target string, body string) {
	for _, dc := range documents {
		b.Run("doc="+dc.name, func(b *testing.B) { benchmarkCallOn(b, dc.doc(b), method, target, body) })
	}
}

func benchmarkCallOn(b *testing.B, doc *spec.Document, method, target string, body string) {
	tokens := benchTokens(benchTokenCount)
	srv, err := mock.New(mock.WithDocument("", doc), mock.WithTokens(tokens...))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	h := srv.Handler()
	// One warm-up call compiles the operation's schemas.
	warm := newBenchRequest(method, target, body, tokens[0])
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, warm)
	if rec.Code >= 300 {
		b.Fatalf("warm-up: %d %s", rec.Code, rec.Body.String())
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		req := newBenchRequest(method, target, body, tokens[i%len(tokens)])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			b.Fatalf("call %d: %d %s", i, rec.Code, rec.Body.String())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func newBenchRequest(method, target, body, token string) *http.Request {
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func BenchmarkHandlerListWorkflows(b *testing.B) {
	benchmarkCall(b, "GET", "/api/workflow?max=20", "")
}

func BenchmarkHandlerDescribeWorkflow(b *testing.B) {
	benchmarkCall(b, "GET", "/api/workflow/3cSucceeded003", "")
}

func BenchmarkHandlerLaunchWorkflow(b *testing.B) {
	benchmarkCall(b, "POST", "/api/workflow/launch",
		`{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq","workDir":"s3://bucket/work"}}`)
}

// BenchmarkHandlerSynthesized measures an operation the fake answers by
// synthesis from the document (a run's log), behind the check that the run
// exists.
func BenchmarkHandlerSynthesized(b *testing.B) {
	benchmarkCall(b, "GET", "/api/workflow/3cSucceeded003/log", "")
}

// BenchmarkStartPublished measures what a user waits for: from loading the
// published schema to /_mock/health answering 200. It also reports the heap
// a started server holds.
func BenchmarkStartPublished(b *testing.B) {
	path := testenv.PublishedSpec(b, "")
	start := func() *mock.Server {
		doc, err := spec.LoadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		srv, err := mock.New(mock.WithDocument("", doc))
		if err != nil {
			b.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			b.Fatal(err)
		}
		resp, err := http.Get(srv.URL() + "/_mock/health")
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("health: %v %v", err, resp)
		}
		resp.Body.Close()
		return srv
	}
	for b.Loop() {
		_ = start().Close()
	}
	b.StopTimer()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	srv := start()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-heap")
	runtime.KeepAlive(srv)
	_ = srv.Close()
}

// BenchmarkHandlerListLargeStore measures a page of the workflow list once
// the fake holds many runs, as after a long session or a load test: the
// list filters and orders every stored run, so its cost grows with them.
// It also reports the heap each stored run costs (B-heap/run), launches
// and all.
func BenchmarkHandlerListLargeStore(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			srv, err := mock.New(mock.WithRateLimit(nil))
			if err != nil {
				b.Fatal(err)
			}
			h := srv.Handler()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			const launch = `{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq"}}`
			for i := range n {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, newBenchRequest("POST", "/api/workflow/launch", launch, "wmsmock-dev-token"))
				if rec.Code != 200 {
					b.Fatalf("launch %d: %d %s", i, rec.Code, rec.Body.String())
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			perRun := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, newBenchRequest("GET", "/api/workflow?max=20", "", "wmsmock-dev-token"))
				if rec.Code != 200 {
					b.Fatalf("list: %d %s", rec.Code, rec.Body.String())
				}
			}
			b.ReportMetric(perRun, "B-heap/run") // after the loop: ResetTimer drops reported metrics
		})
	}
}

// BenchmarkStoreScale measures the workflow operations with 1,000 and
// 100,000 stored runs, and 1,000,000 when WMSMOCK_BENCH_1M=1 is set (filling
// that many takes a while, so it is left out of a plain -bench run), on the
// embedded document and the published schema:
//
//	WMSMOCK_BENCH_1M=1 go test ./mock -run '^$' -bench 'StoreScale' -benchtime 2000x
//
// Every operation's cost should stay flat as the store grows: list reads
// a page of the workspace's list kept in order by the store, describe one
// record, launch appends one, and search looks at a bounded window of the
// newest runs; list-after-write lists right after a launch, so no cached
// page can answer it. Each case reports its median (p50-ns), and list what
// each stored run costs: its share of the live heap (B-heap/run) and of
// the process's resident memory once the runtime has returned what it
// does not use (B-rss/run, Linux only).
func BenchmarkStoreScale(b *testing.B) {
	sizes := []int{1_000, 100_000}
	if os.Getenv("WMSMOCK_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	// A launch must name a compute environment the caller sees, so the
	// fake keeps its seed (a few records, next to n runs); the seeded
	// compute environment is the same on both documents.
	const launch = `{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq"}}`
	for _, dc := range documents {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("doc=%s/runs=%d", dc.name, n), func(b *testing.B) {
				storeScale(b, dc.doc(b), n, launch)
			})
		}
	}
}

func storeScale(b *testing.B, doc *spec.Document, n int, launch string) {
	srv, err := mock.New(mock.WithDocument("", doc), mock.WithRateLimit(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	h := srv.Handler()
	do := func(method, target, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newBenchRequest(method, target, body, "wmsmock-dev-token"))
		if rec.Code != 200 {
			b.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
		}
		return rec
	}
	// Warm every operation first, so what it compiles once is not
	// counted against the runs.
	do("POST", "/api/workflow/launch", launch)
	do("GET", "/api/workflow?max=20", "")
	heap0, rss0 := settledMemory()
	var middle string
	for i := range n {
		rec := do("POST", "/api/workflow/launch", launch)
		if i == n/2 {
			var l struct{ WorkflowID string }
			_ = json.Unmarshal(rec.Body.Bytes(), &l)
			middle = l.WorkflowID
		}
	}
	heap1, rss1 := settledMemory()
	perHeap := float64(heap1-heap0) / float64(n)
	perRSS := float64(rss1-rss0) / float64(n)
	cases := []struct{ name, method, target, body string }{
		{"list", "GET", "/api/workflow?max=20", ""},
		{"list-deep", "GET", fmt.Sprintf("/api/workflow?max=20&offset=%d", n/2), ""},
		{"list-after-write", "GET", "/api/workflow?max=20", ""},
		{"describe", "GET", "/api/workflow/" + middle, ""},
		{"launch", "POST", "/api/workflow/launch", launch},
		{"search", "GET", "/api/workflow?max=20&search=happy", ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				if c.name == "list-after-write" {
					b.StopTimer()
					do("POST", "/api/workflow/launch", launch)
					b.StartTimer()
				}
				rec := httptest.NewRecorder()
				req := newBenchRequest(c.method, c.target, c.body, "wmsmock-dev-token")
				start := time.Now()
				h.ServeHTTP(rec, req)
				took = append(took, time.Since(start))
				if rec.Code != 200 {
					b.Fatalf("%s: %d %s", c.name, rec.Code, rec.Body.String())
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
			if c.name == "list" {
				b.ReportMetric(perHeap, "B-heap/run")
				if rss0 > 0 {
					b.ReportMetric(perRSS, "B-rss/run")
				}
			}
		})
	}
}

// settledMemory returns the live heap and the resident set size (0 where
// /proc is not there) after a collection that returns free memory to the
// system, so two readings differ by what was kept in between.
func settledMemory() (heap, rss int64) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return int64(ms.HeapAlloc), 0
	}
	f := strings.Fields(string(statm))
	if len(f) < 2 {
		return int64(ms.HeapAlloc), 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return int64(ms.HeapAlloc), pages * int64(os.Getpagesize())
}
