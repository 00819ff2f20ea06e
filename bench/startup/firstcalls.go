package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/gcpause"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// firstCall is one operation's first call on a fresh fake.
type firstCall struct {
	index  int // in the document's operations
	op     string
	method string
	status int
	took   time.Duration
	// cpu is the process's CPU time during the call: on a shared machine
	// the wall time grows with the load, this much less.
	cpu time.Duration
}

// collectDuringCall, when false (-gc-during-call=false), keeps the collector
// off for the measured call. A first call that allocates triggers the
// collection of what loading the document left behind, as it would in a
// new process, and on the published schema that collection can be most of
// the call's CPU; without it the figure is the fake's own work.
var collectDuringCall = true

// firstCallModes are the two fakes a first call is measured on.
var firstCallModes = []struct {
	name string
	opts []mock.Option
}{
	{"without state (synthesized)", []mock.Option{mock.WithState(mock.NoRecords())}},
	{"with state (resource behaviours)", nil},
}

// measureFirstCalls sends one valid call (built by callgen) to every
// operation, each on a fresh fake over a freshly loaded document, twice:
// on a fake without state, where every call is synthesized from the
// schema, and on the default fake, where the resource behaviours answer.
// Then it makes the slowest reads of the default fake again, as first
// calls to new `wmsmock serve` processes (measureServed).
func measureFirstCalls(specPath, bin string, runs int, out io.Writer) error {
	load, name := loader(specPath, out)
	doc, err := load()
	if err != nil {
		return err
	}
	n := len(doc.Operations)
	f, done, err := idFinder(doc)
	if err != nil {
		return err
	}
	built := make([]*callgen.Call, n)
	for i, op := range doc.Operations {
		if built[i], _, err = buildCall(f, op); err != nil {
			done()
			return err
		}
	}
	done()
	var slowestReads []int
	for _, mode := range firstCallModes {
		var calls []firstCall
		for i := 0; i < n; i++ {
			c, err := oneFirstCall(load, doc.Operations[i], built[i], i, mode.opts)
			if err != nil {
				return err
			}
			calls = append(calls, c)
			if (i+1)%50 == 0 {
				fmt.Fprintf(os.Stderr, "%s: %d/%d operations\n", mode.name, i+1, n)
			}
		}
		slices.SortFunc(calls, func(a, b firstCall) int { return int(b.took - a.took) })
		var total time.Duration
		for _, c := range calls {
			total += c.took
		}
		fmt.Fprintf(out, "%s, %s: %d operations, first call mean %.2f ms, p50 %.2f ms, slowest:\n",
			name, mode.name, n, ms(total)/float64(n), ms(calls[n/2].took))
		for _, c := range calls[:min(5, n)] {
			fmt.Fprintf(out, "  %7.2f ms (cpu %6.2f ms)  %d  %-6s %s\n", ms(c.took), ms(c.cpu), c.status, c.method, c.op)
		}
		// Reads are what a client starts with (and what the issue's
		// bound is about): their slowest, apart.
		if i := slices.IndexFunc(calls, func(c firstCall) bool { return c.method == http.MethodGet }); i >= 0 {
			c := calls[i]
			fmt.Fprintf(out, "  slowest GET: %.2f ms (cpu %.2f ms)  %d  %s\n", ms(c.took), ms(c.cpu), c.status, c.op)
		}
		slowestReads = slowestReads[:0]
		for _, c := range calls {
			if c.method == http.MethodGet && len(slowestReads) < servedReads {
				slowestReads = append(slowestReads, c.index)
			}
		}
	}
	// The last mode is the default fake, the one serve runs.
	var args []string
	if name == "published" {
		args = []string{"--spec", specPath}
	}
	return measureServed(doc, slowestReads, args, bin, runs, out)
}

// servedAfter is how long after the fake is ready a served first call is
// sent (-served-after).
var servedAfter time.Duration

// servedReads is how many of the slowest reads are made again on new
// processes.
const servedReads = 3

// measureServed makes the first call to each operation (by index in doc)
// on new `wmsmock serve` processes, runs times each: the call is sent as
// soon as /_mock/health answers 200, on a new connection, as a test that
// starts the fake and calls it at once would. It is the figure a user
// sees, with what a new process adds to the call made in this one (the
// first touch of memory, cold caches) and what it does not have (the
// collector's state a long-lived benchmark process carries).
func measureServed(doc *spec.Document, ops []int, args []string, bin string, runs int, out io.Writer) error {
	_, err := servedFirstCalls(doc, ops, args, bin, runs, out)
	return err
}

// servedCall is one operation's first calls on new processes.
type servedCall struct {
	op              string
	status          int
	median, slowest float64 // ms
}

// servedFirstCalls makes measureServed's calls and returns them, in the
// order of ops.
func servedFirstCalls(doc *spec.Document, ops []int, args []string, bin string, runs int, out io.Writer) ([]servedCall, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	work, bin, err := workDir(bin)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	var calls []servedCall
	when := "when it is ready"
	if servedAfter > 0 {
		when = fmt.Sprintf("%s after it is ready", servedAfter)
	}
	f, done, err := idFinder(doc)
	if err != nil {
		return nil, err
	}
	defer done()
	fmt.Fprintf(out, "served: the first call on a new `wmsmock serve` (with state), sent %s, %d runs each:\n", when, runs)
	for _, i := range ops {
		op := doc.Operations[i]
		c, held, err := buildCall(f, op)
		if err != nil {
			return nil, err
		}
		var took []float64
		status := 0
		for range runs {
			_, _, err := startFake(bin, args, func(addr string) error {
				req, err := c.Request("http://"+addr+mock.DefaultBasePath, mock.DevToken)
				if err != nil {
					return err
				}
				client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
				defer client.CloseIdleConnections()
				time.Sleep(servedAfter)
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					return fmt.Errorf("%s: %w", op.ID, err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				took = append(took, ms(time.Since(start)))
				status = resp.StatusCode
				return err
			})
			if err != nil {
				return nil, err
			}
		}
		slices.Sort(took)
		note := ""
		if !held {
			note = "  (no held id found: the call names a made-up one)"
		}
		fmt.Fprintf(out, "  median %7.2f ms, slowest %7.2f ms  %d  %s%s\n", median(took), took[len(took)-1], status, op.ID, note)
		calls = append(calls, servedCall{op.ID, status, median(took), took[len(took)-1]})
	}
	return calls, nil
}

// measureServedOnly makes the served first calls alone (-served): to the
// operations named in list (comma-separated operationIds), or to every
// read of the document ("reads"), and sums them up.
func measureServedOnly(specPath, bin, list string, runs int, out io.Writer) error {
	load, name := loader(specPath, out)
	doc, err := load()
	if err != nil {
		return err
	}
	var ops []int
	for i, op := range doc.Operations {
		if list == "reads" && op.Method == http.MethodGet || slices.Contains(strings.Split(list, ","), op.ID) {
			ops = append(ops, i)
		}
	}
	if len(ops) == 0 {
		return fmt.Errorf("the %s document has no operation %q", name, list)
	}
	var args []string
	if name == "published" {
		args = []string{"--spec", specPath}
	}
	calls, err := servedFirstCalls(doc, ops, args, bin, runs, out)
	if err != nil {
		return err
	}
	slices.SortFunc(calls, func(a, b servedCall) int { return cmp.Compare(b.median, a.median) })
	over, byStatus := 0, map[int]int{}
	for _, c := range calls {
		if c.slowest >= 50 {
			over++
		}
		byStatus[c.status]++
	}
	var statuses []string
	for _, st := range slices.Sorted(maps.Keys(byStatus)) {
		statuses = append(statuses, fmt.Sprintf("%d answered %d", byStatus[st], st))
	}
	fmt.Fprintf(out, "\n%s, %d operations, %d runs each (%s): %d with a run of 50 ms or more; slowest medians:\n",
		name, len(calls), runs, strings.Join(statuses, ", "), over)
	for _, c := range calls[:min(5, len(calls))] {
		fmt.Fprintf(out, "  median %7.2f ms, slowest %7.2f ms  %d  %s\n", c.median, c.slowest, c.status, c.op)
	}
	return nil
}

// loader loads the published schema when it is there, the embedded
// document otherwise, and names it.
func loader(specPath string, out io.Writer) (func() (*spec.Document, error), string) {
	if _, err := os.Stat(specPath); err == nil {
		return func() (*spec.Document, error) { return spec.LoadFile(specPath) }, "published"
	}
	fmt.Fprintf(out, "%s is absent: measuring the embedded document\n", specPath)
	return func() (*spec.Document, error) { return spec.Load(fixtures.OpenAPI()) }, "embedded"
}

// measureOneFirstCall makes the first call to the operation id, on a
// fresh fake each time, runs times, without state and with it.
func measureOneFirstCall(specPath, id string, runs int, cpuProfile string, out io.Writer) error {
	load, name := loader(specPath, out)
	doc, err := load()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(doc.Operations, func(o *spec.Operation) bool { return o.ID == id })
	if i < 0 {
		return fmt.Errorf("the %s document has no operation %q", name, id)
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	f, done, err := idFinder(doc)
	if err != nil {
		return err
	}
	call, _, err := buildCall(f, doc.Operations[i])
	done()
	if err != nil {
		return err
	}
	for _, mode := range firstCallModes {
		fmt.Fprintf(out, "%s %s, %s:", name, id, mode.name)
		for range runs {
			c, err := oneFirstCall(load, doc.Operations[i], call, i, mode.opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, " %.2f ms (cpu %.2f, %d)", ms(c.took), ms(c.cpu), c.status)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// oneFirstCall builds a fresh fake as `wmsmock serve` does and makes the
// first call to the operation at index i of the document load returns.
// The call c is built beforehand from the caller's copy of the document (a
// client builds its call in its own process).
func oneFirstCall(load func() (*spec.Document, error), op *spec.Operation, c *callgen.Call, i int, opts []mock.Option) (firstCall, error) {
	r, err := inProcess(c)
	if err != nil {
		return firstCall{}, fmt.Errorf("%s: %w", op.ID, err)
	}
	rec := httptest.NewRecorder()

	// A new process starts with a small, collected heap; so does each fake
	// here, rather than inheriting the garbage of the previous one. Then
	// the collector is paused while the fake is built and resumed when it
	// is ready, as serve does, so the call finds it as a call to a new
	// serve process would.
	runtime.GC()
	resume := gcpause.Pause(gcpause.StartupBound)
	doc, err := load()
	if err != nil {
		resume()
		return firstCall{}, err
	}
	srv, err := mock.New(append([]mock.Option{mock.WithDocument("", doc), mock.WithRateLimit(nil)}, opts...)...)
	resume()
	if err != nil {
		return firstCall{}, err
	}
	defer srv.Close()
	if !collectDuringCall {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	cpu0 := processCPU()
	start := time.Now()
	srv.Handler().ServeHTTP(rec, r)
	took := time.Since(start)
	return firstCall{index: i, op: op.ID, method: r.Method, status: rec.Code, took: took, cpu: processCPU() - cpu0}, nil
}

// idFinder finds the ids the development token's account holds on a fake
// started as serve starts one (the same document, and the default seed and
// fixtures, so every such fake holds the same ids), by listing them on a
// fake of its own in this process. A call built without it names ids
// nobody holds, and most reads then measure a 403, not an answer.
func idFinder(doc *spec.Document) (*callgen.Finder, func(), error) {
	srv, err := mock.New(mock.WithDocument("", doc), mock.WithRateLimit(nil))
	if err != nil {
		return nil, nil, err
	}
	send := func(c *callgen.Call) (int, []byte) {
		r, err := inProcess(c)
		if err != nil {
			return 0, nil
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, r)
		return rec.Code, rec.Body.Bytes()
	}
	f := callgen.NewFinder(doc, synth.New(synth.WithSeed(7)), send)
	// A run's launch has the run's id and no list of its own.
	if id, ok := f.Ref("workflowId"); ok {
		f.Set("launchId", id)
	}
	return f, func() { _ = srv.Close() }, nil
}

// inProcess is c as a request to a fake's handler in this process, with
// the development token.
func inProcess(c *callgen.Call) (*http.Request, error) {
	req, err := c.Request(mock.DefaultBasePath, mock.DevToken)
	if err != nil {
		return nil, err
	}
	r := httptest.NewRequest(req.Method, req.URL.String(), bytes.NewReader(c.Body))
	r.Header = req.Header
	return r, nil
}

// buildCall builds a valid call to op that names, where f finds them,
// ids the account holds; held is false where some path id was not found
// (the call then names a made-up one, which the fake answers as missing).
func buildCall(f *callgen.Finder, op *spec.Operation) (c *callgen.Call, held bool, err error) {
	opts := []callgen.Option{callgen.WithReferences(f.Ref)}
	values, held := f.PathValues(op)
	if held {
		opts = append(opts, callgen.WithPathValues(values))
	}
	if c, err = callgen.Build(op, synth.New(synth.WithSeed(7)), op.ID, opts...); err != nil {
		return nil, false, fmt.Errorf("%s: building a call: %w", op.ID, err)
	}
	f.PlaceQuery(op, c)
	return c, held, nil
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
