package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
)

// The kill test runs `wmsmock serve` as a process of its own: this test
// binary, started again with killChildEnv set, is that process (it runs
// the same code as the built command, without a build step).
const killChildEnv = "WMSMOCK_TEST_KILL_CHILD"

// TestKillChildProcess is not a test: it is the process the kill test
// starts and kills. Run normally it does nothing.
func TestKillChildProcess(t *testing.T) {
	if os.Getenv(killChildEnv) == "" {
		t.Skip("the kill test's server process; runs only when started by TestKillLosesNothingAcknowledged")
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv(killChildEnv)), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(run(context.Background(), args, os.Getenv, os.Stdout, os.Stderr))
}

// ack is one call the fake acknowledged, and when the client had its
// answer.
type ack struct {
	kind, key string // "run" and its id, or "token" and its name
	at        time.Time
}

// TestKillLosesNothingAcknowledged: ten rounds of launches and token
// creations against a fake saving every 20 ms, each ended by kill -9 at a
// seeded random moment. Every call answered before the file's savedAt must
// be in the file, and, after the restart, served; leftover temporary files
// of saves (one is planted before every start) are gone once the fake is
// up.
//
// The test catches the bug it was written for: with savedAt stamped after
// the parts are encoded instead of before they are copied, it fails with
// calls acknowledged before savedAt missing from the file.
func TestKillLosesNothingAcknowledged(t *testing.T) {
	t.Parallel() // paced on the real clock: let the others run meanwhile
	if testing.Short() {
		t.Skip("starts and kills ten server processes")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	rng := rand.New(rand.NewPCG(17, 17))
	var prev []ack // the last round's acknowledgements before its savedAt
	total := 0
	for round := range 11 {
		planted := filepath.Join(dir, ".state.json.tmp-planted"+fmt.Sprint(round))
		if err := os.WriteFile(planted, []byte("half a save"), 0o600); err != nil {
			t.Fatal(err)
		}
		base, kill := startKillChild(t, file)
		if _, err := os.Stat(planted); err == nil {
			t.Errorf("round %d: a temporary file of an interrupted save survived the start", round)
		}
		// What the last round acknowledged before its savedAt is served
		// after this restart (the rounds before were checked the same way).
		for _, a := range prev {
			if !served(t, base, a) {
				t.Errorf("round %d: %s %s, acknowledged before savedAt, is not served after the restart", round, a.kind, a.key)
			}
		}
		if round == 10 { // the eleventh start only checks the tenth kill
			kill()
			break
		}
		prev = prev[:0]
		acks := hammer(base, round, time.Duration(40+rng.IntN(160))*time.Millisecond)
		kill()
		f, err := store.ReadFile(file)
		switch {
		case errors.Is(err, store.ErrNoFile):
			// Killed before its first save (a loaded machine can delay
			// it past the round): the fake claimed nothing, so nothing is
			// owed. The round still checks the start's clean-up.
			t.Logf("round %d: killed before the first save", round)
			continue
		case err != nil:
			t.Fatalf("round %d: reading the state file after kill -9: %v", round, err)
		}
		runs, tokens := fileContent(t, f)
		before := 0
		for _, a := range acks {
			if !a.at.Before(f.SavedAt) {
				continue
			}
			before++
			held := runs[a.key]
			if a.kind == "token" {
				held = tokens[a.key]
			}
			if !held {
				t.Errorf("round %d: %s %s was acknowledged at %s, before savedAt %s, but the file lacks it",
					round, a.kind, a.key, a.at.Format(time.RFC3339Nano), f.SavedAt.Format(time.RFC3339Nano))
			}
			prev = append(prev, a)
		}
		total += before
		t.Logf("round %d: %d calls acknowledged, %d before savedAt", round, len(acks), before)
	}
	if total == 0 {
		t.Fatal("no call was acknowledged before any savedAt: the test proved nothing")
	}
}

// startKillChild starts the fake as a process on file and returns its
// base URL and a function that kills it with SIGKILL and waits for it.
func startKillChild(t *testing.T, file string) (string, func()) {
	t.Helper()
	args, _ := json.Marshal([]string{"serve", "--addr", "127.0.0.1:0", "--state-file", file,
		"--state-interval", "20ms", "--rate-limit", "off", "--log-level", "error"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+string(args))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	kill := func() {
		_ = cmd.Process.Kill() // SIGKILL: no shutdown, no last save
		<-waited
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := bannerURL.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1] + "/api"
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() { _ = cmd.Wait(); close(waited) }()
	select {
	case u := <-urls:
		return u, kill
	case <-waited:
		t.Fatalf("the server process ended before its banner: %s", errOut.String())
	case <-time.After(20 * time.Second):
		kill()
		t.Fatalf("no banner after 20 s: %s", errOut.String())
	}
	return "", nil
}

// hammer launches runs and creates tokens from four clients for d and
// returns what was acknowledged, with when the answer arrived. Calls cut
// short by the kill are not acknowledgements.
func hammer(base string, round int, d time.Duration) []ack {
	var mu sync.Mutex
	var acks []ack
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	client := &http.Client{Timeout: 5 * time.Second}
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				var a ack
				var ok bool
				if (c+i)%3 == 0 {
					name := fmt.Sprintf("kill-%d-%d-%d", round, c, i)
					ok = call(client, base+"/tokens", `{"name":"`+name+`"}`, nil)
					a = ack{kind: "token", key: name}
				} else {
					var launched struct{ WorkflowID string }
					ok = call(client, base+"/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq"}}`, &launched)
					a = ack{kind: "run", key: launched.WorkflowID}
				}
				if ok {
					a.at = time.Now()
					mu.Lock()
					acks = append(acks, a)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return acks
}

func call(client *http.Client, url, body string, into any) bool {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer wmsmock-dev-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return false
	}
	if into != nil {
		return json.Unmarshal(b, into) == nil
	}
	return true
}

// fileContent lists the run ids and token names a state file holds.
func fileContent(t *testing.T, f store.File) (runs, tokens map[string]bool) {
	t.Helper()
	var snap struct {
		Collections map[string][]struct{ ID string } `json:"collections"`
	}
	var toks []struct{ Name string }
	if err := json.Unmarshal(f.Parts["records"], &snap); err != nil {
		t.Fatalf("records part: %v", err)
	}
	if err := json.Unmarshal(f.Parts["tokens"], &toks); err != nil {
		t.Fatalf("tokens part: %v", err)
	}
	runs, tokens = map[string]bool{}, map[string]bool{}
	for _, r := range snap.Collections["workflows"] {
		runs[r.ID] = true
	}
	for _, tk := range toks {
		tokens[tk.Name] = true
	}
	return runs, tokens
}

// served asks the restarted fake for an acknowledged run or token.
func served(t *testing.T, base string, a ack) bool {
	t.Helper()
	if a.kind == "run" {
		code, _ := do(t, "GET", base+"/workflow/"+a.key, "")
		return code == 200
	}
	// A second create of the same name is refused only if the first is
	// held.
	code, _ := do(t, "POST", base+"/tokens", `{"name":"`+a.key+`"}`)
	return code == 409
}
