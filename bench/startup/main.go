// Command startup measures how long `wmsmock serve` takes to be ready, against
// the least any server must do before it can serve a document: read the file
// and decode its YAML. Absolute times do not carry from one machine to
// another, so the figure that matters is the ratio, measured side by side:
// the runs alternate between the fake and the floor, and the order flips
// every round, so drift on a shared machine falls on both.
//
//	go run ./bench/startup [-runs 9] [-spec FILE] [-tls]
//	go run ./bench/startup -first-calls [-runs 9] [-spec FILE]
//	go run ./bench/startup -first-calls -op ID [-runs 9] [-cpuprofile FILE]
//	go run ./bench/startup -first-calls -served reads|ID,... [-runs 3] [-served-after 1s] [-bin FILE]
//
// Ready is the time from starting the process to the first 200 on
// /_mock/health. The floor is the time from starting a bare Go program
// (./bench/startup/floor) to its exit after reading the file and decoding
// its YAML into a map. Both are measured for the published schema
// (../shared/specs, skipped with a message when absent) and for the embedded
// document. The breakdown comes from the fake's own start-up log line; what
// it does not cover ("process") is the runtime starting, flag parsing and
// the health check's round trip. With -tls each document is also measured
// with `serve --tls` (the CA kept in a directory across the rounds, as a
// developer's --tls-dir would be), the health check then being an HTTPS
// call that trusts that CA: its handshake counts in "process".
//
// With -first-calls it instead measures, in this process, the first call to
// every operation of the document, each on a fresh fake with a freshly
// loaded document and a collected heap, the collector paused while the fake
// is built and resumed as serve does (internal/gcpause): the pieces the fake
// builds lazily per operation are all paid by that call. Then the slowest
// reads of the default fake are made again, -runs times each, as first
// calls to new `wmsmock serve` processes sent as soon as they are ready:
// the figure a user sees, new process and all. Each call names ids the
// development token's account holds, found beforehand by listing them on a
// fake started the same way (callgen.Finder), so a read measures its
// answer and not a refusal; where none is found the call names a made-up
// id, and the served figures say so.
// With -served it makes only those served first calls, for the operations
// named, or for every read of the document ("reads"), and reports the
// slowest and how many took 50 ms or more at their slowest; -served-after
// sends each of them that long after the fake is ready instead of at once
// (serve warms up in the background once ready, while no call is being
// answered).
// With -op it makes that first call to one operation only, -runs times,
// and reports each; -cpuprofile profiles those runs (look under
// ServeHTTP for the call itself, the rest is loading and New).
// -gc-during-call=false keeps the collector off during the measured call,
// to see the fake's own work alone.
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/tlsca"
)

const defaultSpec = "../shared/specs/seqera-api-cloud.yaml"

func main() {
	specPath := flag.String("spec", defaultSpec, "the published schema (skipped when absent)")
	runs := flag.Int("runs", 9, "alternated rounds")
	bin := flag.String("bin", "", "a built wmsmock binary (default: build ./cmd/wmsmock)")
	firstCalls := flag.Bool("first-calls", false, "measure the first call to every operation instead")
	withTLS := flag.Bool("tls", false, "also measure each document served with --tls")
	op := flag.String("op", "", "with -first-calls: only this operationId, -runs times")
	flag.DurationVar(&servedAfter, "served-after", 0, "with -first-calls: send each served first call this long after the fake is ready (0: at once), to see what the background warm-up leaves a client that does not call at once")
	served := flag.String("served", "", "with -first-calls: only the first calls to new serve processes, for these operationIds (comma-separated), or every read (\"reads\")")
	cpuProfile := flag.String("cpuprofile", "", "with -first-calls -op: write a CPU profile to `FILE`")
	flag.BoolVar(&collectDuringCall, "gc-during-call", true, "with -first-calls: let the collector run during the measured call (false: the fake's own work only)")
	flag.Parse()
	var err error
	switch {
	case *firstCalls && *served != "":
		err = measureServedOnly(*specPath, *bin, *served, *runs, os.Stdout)
	case *firstCalls && *op != "":
		err = measureOneFirstCall(*specPath, *op, *runs, *cpuProfile, os.Stdout)
	case *firstCalls:
		err = measureFirstCalls(*specPath, *bin, *runs, os.Stdout)
	default:
		err = measureReady(*specPath, *bin, *runs, *withTLS, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}

// subject is one document the fake is started on.
type subject struct {
	name string
	file string   // the bytes the floor decodes
	args []string // serve's arguments for this document
}

type sample struct {
	floor, ready time.Duration
	phases       map[string]time.Duration
}

func measureReady(specPath, bin string, runs int, withTLS bool, out io.Writer) error {
	work, bin, err := workDir(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	floor := filepath.Join(work, "floor")
	if err := build(floor, "./bench/startup/floor"); err != nil {
		return err
	}
	var subjects []subject
	if _, err := os.Stat(specPath); err == nil {
		subjects = append(subjects, subject{"published", specPath, []string{"--spec", specPath}})
	} else {
		fmt.Fprintf(out, "%s is absent: the published schema is skipped\n", specPath)
	}
	subjects = append(subjects, subject{"embedded", "fixtures/openapi.yaml", nil})
	if withTLS {
		tlsDir := filepath.Join(work, "tls")
		for _, s := range slices.Clone(subjects) {
			s.name += "+tls"
			s.args = append(slices.Clone(s.args), "--tls", "--tls-dir", tlsDir)
			subjects = append(subjects, s)
		}
	}

	samples := map[string][]sample{}
	for r := 0; r < runs; r++ {
		for _, s := range subjects {
			var sm sample
			fake := func() error {
				sm.ready, sm.phases, err = startFake(bin, s.args, nil)
				return err
			}
			bare := func() error {
				sm.floor, err = timeRun(floor, s.file)
				return err
			}
			steps := []func() error{bare, fake}
			if r%2 == 1 {
				steps = []func() error{fake, bare}
			}
			for _, step := range steps {
				if err := step(); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
			samples[s.name] = append(samples[s.name], sm)
			fmt.Fprintf(out, "round %d %-9s floor %6.1f ms  ready %6.1f ms  ratio %.2f\n",
				r+1, s.name, ms(sm.floor), ms(sm.ready), float64(sm.ready)/float64(sm.floor))
		}
	}
	fmt.Fprintf(out, "\nmedians of %d rounds (%s, %d cores)\n", runs, runtime.Version(), runtime.NumCPU())
	for _, s := range subjects {
		report(out, s.name, samples[s.name])
	}
	return nil
}

func report(out io.Writer, name string, ss []sample) {
	var floors, readies, ratios []float64
	phases := map[string][]float64{}
	var order []string
	for _, s := range ss {
		floors = append(floors, ms(s.floor))
		readies = append(readies, ms(s.ready))
		ratios = append(ratios, float64(s.ready)/float64(s.floor))
		for n, d := range s.phases {
			if _, ok := phases[n]; !ok {
				order = append(order, n)
			}
			phases[n] = append(phases[n], ms(d))
		}
	}
	fmt.Fprintf(out, "%-9s floor %6.1f ms  ready %6.1f ms  ratio %.2f (median of the rounds' ratios)\n",
		name, median(floors), median(readies), median(ratios))
	sort.Slice(order, func(i, j int) bool { return phaseRank(order[i]) < phaseRank(order[j]) })
	var parts []string
	for _, n := range order {
		parts = append(parts, fmt.Sprintf("%s %.1f", n, median(phases[n])))
	}
	fmt.Fprintf(out, "          breakdown (ms): %s\n", strings.Join(parts, ", "))
}

// phaseRank orders the breakdown as start-up runs; "process" (the rest)
// comes last.
func phaseRank(name string) int {
	for i, n := range []string{"read", "parse", "model", "index", "validator", "setup", "state", "listen"} {
		if n == name {
			return i
		}
	}
	return 100
}

// startFake starts `wmsmock serve` on a free loopback port and waits for
// the first 200 on /_mock/health. The breakdown is read from the fake's
// JSON log line "serving"; "process" is what the breakdown leaves out.
// ready, when not nil, is called at once with the fake's address, before
// anything else is asked of it.
func startFake(bin string, args []string, ready func(addr string) error) (time.Duration, map[string]time.Duration, error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--log-format", "json", "--log-level", "info"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, nil, err
	}
	cmd.Stdout = io.Discard
	lines := make(chan []byte, 16)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
		close(lines)
	}()
	healthy, err := waitHealthy(addr, tlsDirOf(args), 30*time.Second)
	if err != nil {
		return 0, nil, err
	}
	took := healthy.Sub(start)
	if ready != nil {
		if err := ready(addr); err != nil {
			return 0, nil, err
		}
	}
	phases, err := startupLine(lines, 10*time.Second)
	if err != nil {
		return 0, nil, err
	}
	var covered time.Duration
	for _, d := range phases {
		covered += d
	}
	phases["process"] = took - covered
	return took, phases, nil
}

// tlsDirOf is the --tls-dir among serve's arguments, "" without.
func tlsDirOf(args []string) string {
	if i := slices.Index(args, "--tls-dir"); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// waitHealthy polls the fake's health endpoint until it answers 200: over
// plain HTTP, or, with a TLS directory, over HTTPS trusting the CA there
// (written by the fake as it starts, so read once it exists).
func waitHealthy(addr, tlsDir string, limit time.Duration) (time.Time, error) {
	url := "http://" + addr + "/_mock/health"
	client := &http.Client{Timeout: time.Second}
	if tlsDir != "" {
		url = "https://" + addr + "/_mock/health"
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if tlsDir != "" && client.Transport == nil {
			pool, err := tlsca.ReadPool(filepath.Join(tlsDir, tlsca.CertFile))
			if err != nil {
				time.Sleep(500 * time.Microsecond)
				continue
			}
			client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
		}
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Now(), nil
			}
		}
		time.Sleep(500 * time.Microsecond)
	}
	return time.Time{}, fmt.Errorf("no 200 from %s within %s", url, limit)
}

// startupLine finds the "serving" log line and returns its start-up
// breakdown.
func startupLine(lines <-chan []byte, limit time.Duration) (map[string]time.Duration, error) {
	timeout := time.After(limit)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				return nil, errors.New("the fake exited before logging its start-up")
			}
			var entry struct {
				Msg     string                   `json:"msg"`
				Startup map[string]time.Duration `json:"startup"`
			}
			if json.Unmarshal(line, &entry) == nil && entry.Msg == "serving" {
				if entry.Startup == nil {
					entry.Startup = map[string]time.Duration{}
				}
				return entry.Startup, nil
			}
		case <-timeout:
			return nil, errors.New("no start-up line in the fake's log")
		}
	}
}

// workDir makes a temporary directory for a measurement (the caller
// removes it) and returns it with the wmsmock binary to start: bin when
// one is given, else one built into the directory.
func workDir(bin string) (work, fake string, err error) {
	if work, err = os.MkdirTemp("", "wmsmock-startup"); err != nil {
		return "", "", err
	}
	if bin == "" {
		bin = filepath.Join(work, "wmsmock")
		if err := build(bin, "./cmd/wmsmock"); err != nil {
			os.RemoveAll(work)
			return "", "", err
		}
	}
	return work, bin, nil
}

func build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s (run from the repository's root): %w", pkg, err)
	}
	return nil
}

func timeRun(name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	err := cmd.Run()
	return time.Since(start), err
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
