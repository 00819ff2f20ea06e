// Command soak runs a `wmsmock serve` process under a long load and says
// whether it held up, in one of two modes:
//
//	go run ./bench/soak -mode read  [-for 10m] [-workers 8]  [-spec FILE]
//	go run ./bench/soak -mode churn [-for 60s] [-workers 64] [-spec FILE]
//
// read: the workers only read (lists and describes of runs, compute
// environments, the user), and the fake's resident memory is sampled every
// -every. A fake whose caches, journals and pools are bounded levels off:
// the samples after the first -settle are split in two halves, and the run
// passes when the second half's mean is no more than -grow above the
// first's (means, since the collector makes each sample swing by a few
// per cent).
//
// churn: the workers create and delete tokens and launch, cancel and delete
// runs as fast as the fake answers, each keeping what it was told. The run
// passes when no call got a 5xx, and at the end the fake's token list and
// run list hold exactly what the workers were told they created and did
// not delete (and what the fake held before).
//
// The fake runs without its rate limit (--rate-limit off), on a free
// loopback port, built from this checkout. The published schema is the
// default document where ../shared/specs has it, else the embedded one.
// Every figure is printed; the exit status is 1 when the run failed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const token = "wmsmock-dev-token" // the fake's development token (mock/auth)

func main() {
	mode := flag.String("mode", "read", "read (memory under a read-only load) or churn (writes under concurrency)")
	dur := flag.Duration("for", 0, "how long to load the fake (read: 10m, churn: 60s)")
	workers := flag.Int("workers", 0, "concurrent clients (read: 8, churn: 64)")
	every := flag.Duration("every", 10*time.Second, "read: how often to sample resident memory")
	settle := flag.Duration("settle", time.Minute, "read: how long memory may grow before it must level off")
	grow := flag.Float64("grow", 0.05, "read: how much the mean resident memory may grow from the first to the second half after -settle, as a fraction")
	spec := flag.String("spec", defaultSpec(), "the document to serve (empty: the embedded one)")
	flag.Parse()
	if *mode != "read" && *mode != "churn" {
		fail("-mode must be read or churn, got %q", *mode)
	}
	if *dur == 0 {
		*dur = map[string]time.Duration{"read": 10 * time.Minute, "churn": time.Minute}[*mode]
	}
	if *workers == 0 {
		*workers = map[string]int{"read": 8, "churn": 64}[*mode]
	}
	f, err := start(*spec)
	if err != nil {
		fail("%v", err)
	}
	defer f.stop()
	fmt.Printf("soak: %s, %d workers for %s, on %s (%s)\n", *mode, *workers, *dur, f.base, docName(*spec))
	ok := false
	if *mode == "read" {
		ok = f.read(*dur, *workers, *every, *settle, *grow)
	} else {
		ok = f.churn(*dur, *workers)
	}
	if !ok {
		f.stop()
		os.Exit(1)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "soak: "+format+"\n", args...)
	os.Exit(2)
}

func defaultSpec() string {
	p := filepath.Join("..", "shared", "specs", "seqera-api-cloud.yaml")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

func docName(spec string) string {
	if spec == "" {
		return "the embedded document"
	}
	return spec
}

// fake is a running `wmsmock serve`.
type fake struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:port/api
	hc   *http.Client
	dir  string
}

func start(spec string) (*fake, error) {
	dir, err := os.MkdirTemp("", "wmsmock-soak")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "wmsmock")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/wmsmock").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the fake: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"serve", "--addr", addr, "--rate-limit", "off"}
	if spec != "" {
		args = append(args, "--spec", spec)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &fake{cmd: cmd, base: "http://" + addr + "/api", dir: dir,
		hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 128}}}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := f.hc.Get("http://" + addr + "/_mock/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return f, nil
			}
		}
		if time.Now().After(deadline) {
			f.stop()
			return nil, errors.New("the fake was not healthy within 60s")
		}
	}
}

func (f *fake) stop() {
	if f.cmd.Process != nil {
		_ = f.cmd.Process.Kill()
		_, _ = f.cmd.Process.Wait()
	}
	os.RemoveAll(f.dir)
}

// rss is the fake's resident memory in bytes.
func (f *fake) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", f.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// call makes one call with the dev token and decodes a JSON answer.
func (f *fake) call(method, path string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, nil
}

// read loads the fake with reads only and samples its memory.
func (f *fake) read(dur time.Duration, workers int, every, settle time.Duration, grow float64) bool {
	// Something to read: a few runs of the caller's own.
	var runs []string
	for i := range 8 {
		if st, m, err := f.call("POST", "/workflow/launch", launchBody(fmt.Sprintf("soak-%d", i))); err == nil && st == 200 {
			runs = append(runs, fmt.Sprint(m["workflowId"]))
		}
	}
	paths := []string{"/workflow?max=50", "/compute-envs", "/user-info", "/pipelines", "/credentials", "/service-info"}
	for _, id := range runs {
		paths = append(paths, "/workflow/"+id, "/workflow/"+id+"/progress")
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var calls, bad atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i++ {
				st, _, err := f.call("GET", paths[i%len(paths)], nil)
				if ctx.Err() != nil {
					return
				}
				calls.Add(1)
				if err != nil || st != 200 {
					bad.Add(1)
				}
			}
		})
	}
	began := time.Now()
	var after []int64 // samples past settle
	last := calls.Load()
	fmt.Printf("%8s %10s %10s\n", "time", "rss MiB", "calls/s")
	tick := time.NewTicker(every)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
		}
		if done {
			break
		}
		rss, n := f.rss(), calls.Load()
		t := time.Since(began)
		fmt.Printf("%8s %10.1f %10.0f\n", t.Round(time.Second), float64(rss)/(1<<20), float64(n-last)/every.Seconds())
		last = n
		if t >= settle {
			after = append(after, rss)
		}
	}
	tick.Stop()
	wg.Wait()
	fmt.Printf("calls %d (%d not 200), %.0f/s\n", calls.Load(), bad.Load(), float64(calls.Load())/time.Since(began).Seconds())
	if len(after) < 4 {
		fmt.Println("FAIL: fewer than 4 samples after -settle; nothing to judge")
		return false
	}
	mean := func(xs []int64) float64 {
		var sum float64
		for _, x := range xs {
			sum += float64(x)
		}
		return sum / float64(len(xs))
	}
	first, second := mean(after[:len(after)/2]), mean(after[len(after)/2:])
	growth := (second - first) / first
	fmt.Printf("resident memory after %s: mean %.1f MiB in the first half, %.1f MiB in the second (%+.1f%%, bound %+.0f%%), highest %.1f MiB\n",
		settle, first/(1<<20), second/(1<<20), 100*growth, 100*grow, float64(slices.Max(after))/(1<<20))
	if growth > grow || bad.Load() > 0 {
		fmt.Println("FAIL")
		return false
	}
	fmt.Println("PASS: memory levelled off")
	return true
}

func launchBody(name string) map[string]any {
	return map[string]any{"launch": map[string]any{"pipeline": "https://github.com/nextflow-io/hello", "runName": name}}
}

// ledger is what one churn worker was told.
type ledger struct {
	tokens map[string]bool // id -> still held
	runs   map[string]bool
	calls  map[string]int // "METHOD op status" -> count
	errors []string
}

// churn loads the fake with writes and checks its lists against what the
// workers were told.
func (f *fake) churn(dur time.Duration, workers int) bool {
	before := map[string]bool{}
	for _, id := range f.runIDs() {
		before[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	ledgers := make([]*ledger, workers)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range workers {
		l := &ledger{tokens: map[string]bool{}, runs: map[string]bool{}, calls: map[string]int{}}
		ledgers[w] = l
		rnd := rand.New(rand.NewPCG(uint64(w), 1))
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				f.churnStep(l, rnd, fmt.Sprintf("churn-%d-%d", w, i))
			}
		})
	}
	wg.Wait()
	took := time.Since(began)

	calls, fivexx := 0, 0
	tally := map[string]int{}
	wantTokens, wantRuns := map[string]bool{}, map[string]bool{}
	for id := range before {
		wantRuns[id] = true
	}
	var problems []string
	for _, l := range ledgers {
		for k, n := range l.calls {
			tally[k] += n
			calls += n
			if st := k[strings.LastIndexByte(k, ' ')+1:]; st[0] == '5' {
				fivexx += n
			}
		}
		for id, held := range l.tokens {
			if held {
				wantTokens[id] = true
			}
		}
		for id, held := range l.runs {
			if held {
				wantRuns[id] = true
			} else {
				delete(wantRuns, id)
			}
		}
		problems = append(problems, l.errors...)
	}
	fmt.Printf("%d calls in %s (%.0f/s):\n", calls, took.Round(time.Millisecond), float64(calls)/took.Seconds())
	keys := make([]string, 0, len(tally))
	for k := range tally {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Printf("  %6d  %s\n", tally[k], k)
	}
	gotTokens := map[string]bool{}
	if st, m, err := f.call("GET", "/tokens", nil); err != nil || st != 200 {
		problems = append(problems, fmt.Sprintf("GET /tokens: %d %v", st, err))
	} else {
		list, _ := m["tokens"].([]any)
		for _, e := range list {
			t, _ := e.(map[string]any)
			if name, _ := t["name"].(string); strings.HasPrefix(name, "churn-") {
				gotTokens[fmt.Sprint(t["id"])] = true
			}
		}
	}
	problems = append(problems, differ("token", wantTokens, gotTokens)...)
	gotRuns := map[string]bool{}
	for _, id := range f.runIDs() {
		gotRuns[id] = true
	}
	problems = append(problems, differ("run", wantRuns, gotRuns)...)
	fmt.Printf("at the end: %d tokens and %d runs held, as the clients were told: %v\n", len(gotTokens), len(gotRuns), len(problems) == 0)
	if fivexx > 0 {
		problems = append(problems, fmt.Sprintf("%d answers were 5xx", fivexx))
	}
	for i, p := range problems {
		if i == 20 {
			fmt.Printf("  ... and %d more\n", len(problems)-20)
			break
		}
		fmt.Println("  " + p)
	}
	if len(problems) > 0 {
		fmt.Println("FAIL")
		return false
	}
	fmt.Println("PASS: no 5xx, every list as the clients were told")
	return true
}

// churnStep makes one write: a token or a run created, or one of the
// worker's own deleted (a run cancelled first, half the time).
func (f *fake) churnStep(l *ledger, rnd *rand.Rand, name string) {
	count := func(what string, st int, err error) bool {
		if err != nil {
			l.errors = append(l.errors, what+": "+err.Error())
			return false
		}
		l.calls[what+" "+strconv.Itoa(st)]++
		return st/100 == 2
	}
	pick := func(m map[string]bool) string {
		for id, held := range m {
			if held {
				return id
			}
		}
		return ""
	}
	switch rnd.IntN(4) {
	case 0:
		st, m, err := f.call("POST", "/tokens", map[string]any{"name": name})
		if count("POST /tokens", st, err) {
			t, _ := m["token"].(map[string]any)
			l.tokens[fmt.Sprint(t["id"])] = true
		}
	case 1:
		if id := pick(l.tokens); id != "" {
			st, _, err := f.call("DELETE", "/tokens/"+id, nil)
			if count("DELETE /tokens/{id}", st, err) {
				l.tokens[id] = false
			}
		}
	case 2:
		st, m, err := f.call("POST", "/workflow/launch", launchBody(name))
		if count("POST /workflow/launch", st, err) {
			l.runs[fmt.Sprint(m["workflowId"])] = true
		}
	case 3:
		if id := pick(l.runs); id != "" {
			if rnd.IntN(2) == 0 {
				st, _, err := f.call("POST", "/workflow/"+id+"/cancel", map[string]any{})
				count("POST /workflow/{id}/cancel", st, err)
			}
			st, _, err := f.call("DELETE", "/workflow/"+id+"?force=true", nil)
			if count("DELETE /workflow/{id}", st, err) {
				l.runs[id] = false
			}
		}
	}
}

// runIDs lists every run the caller sees, page by page.
func (f *fake) runIDs() []string {
	var ids []string
	for offset := 0; ; offset += 100 {
		st, m, err := f.call("GET", fmt.Sprintf("/workflow?max=100&offset=%d", offset), nil)
		if err != nil || st != 200 {
			fail("listing runs: %d %v", st, err)
		}
		list, _ := m["workflows"].([]any)
		for _, e := range list {
			w, _ := e.(map[string]any)
			wf, _ := w["workflow"].(map[string]any)
			ids = append(ids, fmt.Sprint(wf["id"]))
		}
		if len(list) < 100 {
			return ids
		}
	}
}

func differ(what string, want, got map[string]bool) []string {
	var out []string
	for id := range want {
		if !got[id] {
			out = append(out, fmt.Sprintf("%s %s: the client was told it exists, the list does not hold it", what, id))
		}
	}
	for id := range got {
		if !want[id] {
			out = append(out, fmt.Sprintf("%s %s: the list holds it, no client was told it exists", what, id))
		}
	}
	return out
}
