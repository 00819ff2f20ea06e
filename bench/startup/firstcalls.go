package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// firstCall is one operation's first call on a fresh fake.
type firstCall struct {
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
func measureFirstCalls(specPath string, out io.Writer) error {
	load, name := loader(specPath, out)
	doc, err := load()
	if err != nil {
		return err
	}
	n := len(doc.Operations)
	for _, mode := range firstCallModes {
		var calls []firstCall
		for i := 0; i < n; i++ {
			c, err := oneFirstCall(load, i, mode.opts)
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
	for _, mode := range firstCallModes {
		fmt.Fprintf(out, "%s %s, %s:", name, id, mode.name)
		for range runs {
			c, err := oneFirstCall(load, i, mode.opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, " %.2f ms (cpu %.2f, %d)", ms(c.took), ms(c.cpu), c.status)
		}
		fmt.Fprintln(out)
	}
	return nil
}

func oneFirstCall(load func() (*spec.Document, error), i int, opts []mock.Option) (firstCall, error) {
	// A new process starts with a small, collected heap; so does each fake
	// here, rather than inheriting the garbage of the previous one.
	runtime.GC()
	doc, err := load()
	if err != nil {
		return firstCall{}, err
	}
	srv, err := mock.New(append([]mock.Option{mock.WithDocument("", doc), mock.WithRateLimit(nil)}, opts...)...)
	if err != nil {
		return firstCall{}, err
	}
	defer srv.Close()
	op := doc.Operations[i]
	c, err := callgen.Build(op, synth.New(synth.WithSeed(7)), op.ID)
	if err != nil {
		return firstCall{}, fmt.Errorf("%s: building a call: %w", op.ID, err)
	}
	req, err := c.Request(mock.DefaultBasePath, mock.DevToken)
	if err != nil {
		return firstCall{}, fmt.Errorf("%s: %w", op.ID, err)
	}
	r := httptest.NewRequest(req.Method, req.URL.String(), bytes.NewReader(c.Body))
	r.Header = req.Header
	rec := httptest.NewRecorder()
	if !collectDuringCall {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	cpu0 := processCPU()
	start := time.Now()
	srv.Handler().ServeHTTP(rec, r)
	took := time.Since(start)
	return firstCall{op: op.ID, method: req.Method, status: rec.Code, took: took, cpu: processCPU() - cpu0}, nil
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
