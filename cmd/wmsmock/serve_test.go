package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/wmsmock/wmsmock/internal/clitest"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// Shorthands for clitest with this binary's run.
func env(m map[string]string) func(string) string { return clitest.Env(m) }

type syncBuffer = clitest.Buffer

// configCase is a command line (and environment) that must stop the
// command with the given exit code and a message mentioning want.
type configCase struct {
	name string
	args []string
	env  map[string]string
	code int
	want string
}

func startCommand(t *testing.T, args []string, vars map[string]string, ready *regexp.Regexp) (string, *syncBuffer, *syncBuffer, func() int) {
	t.Helper()
	return clitest.Start(t, run, args, vars, ready)
}

// TestServeRejectsBadConfiguration: each mistake stops the command before
// anything starts, with a message naming the flag or variable.
func TestServeRejectsBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	notOpenAPI := filepath.Join(dir, "not-openapi.yaml")
	if err := os.WriteFile(notOpenAPI, []byte("hello: world\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badProfile := filepath.Join(dir, "profile.yaml")
	if err := os.WriteFile(badProfile, []byte("auth:\n  missing: {stauts: 401}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []configCase{
		{"unknown flag", []string{"--nope"}, nil, 2, "flag provided but not defined"},
		{"bad address", []string{"--addr", "nowhere"}, nil, 2, "--addr"},
		{"bad rate limit", []string{"--rate-limit", "20 per second"}, nil, 2, "--rate-limit"},
		{"bad token", []string{"--token", "has space"}, nil, 2, "--token"},
		{"bad log level", []string{"--log-level", "loud"}, nil, 2, "--log-level"},
		{"negative request timeout", []string{"--request-timeout", "-1s"}, nil, 2, "--request-timeout"},
		{"bad request timeout in environment", nil, map[string]string{"WMSMOCK_REQUEST_TIMEOUT": "5"}, 2, "WMSMOCK_REQUEST_TIMEOUT"},
		{"bad seed in environment", nil, map[string]string{"WMSMOCK_SEED": "abc"}, 2, "WMSMOCK_SEED"},
		{"missing document", []string{"--spec", filepath.Join(dir, "absent.yaml")}, nil, 1, "absent.yaml"},
		{"not an OpenAPI document", []string{"--spec", notOpenAPI}, nil, 1, "OpenAPI"},
		{"profile with an unknown key", []string{"--profile", badProfile}, nil, 1, "stauts"},
		{"stray argument", []string{"extra"}, nil, 2, "unexpected arguments"},
	}
	checkRejected(t, cases)
}

func checkRejected(t *testing.T, cases []configCase) {
	t.Helper()
	checkCommandRejects(t, "serve", cases)
}

// checkCommandRejects runs each case as the given command, listening on a
// free loopback port.
func checkCommandRejects(t *testing.T, command string, cases []configCase) {
	t.Helper()
	cs := make([]clitest.Case, len(cases))
	for i, c := range cases {
		cs[i] = clitest.Case{Name: c.name, Args: c.args, Env: c.env, Code: c.code, Want: c.want}
	}
	clitest.CheckRejects(t, run, command, cs)
}

var bannerURL = regexp.MustCompile(`ready in \S+ at (http://127\.0\.0\.1:\d+)/api`)

// TestServeStartsAndStops runs the command as a user would: the banner
// names the address and a curl command, the fake answers with the token from
// the environment, and cancelling the context shuts it down with exit 0.
func TestServeStartsAndStops(t *testing.T) {
	base, out, errOut, stop := startCommand(t, []string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"},
		map[string]string{"WMSMOCK_TOKEN": "ci-token-1,ci-token-2"}, bannerURL)
	checkStartupLine(t, errOut)
	if !strings.Contains(out.String(), "curl -H 'Authorization: Bearer wmsmock-dev-token' "+base+"/api/workflow") {
		t.Errorf("banner has no ready-to-copy curl command:\n%s", out.String())
	}
	if !strings.Contains(out.String(), base+"/_mock/docs\n") {
		t.Errorf("banner does not name the reference page:\n%s", out.String())
	}
	for token, want := range map[string]int{"ci-token-2": 200, "wmsmock-dev-token": 200, "not-mine": 403} {
		req, _ := http.NewRequest("GET", base+"/api/workflow", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %s: %d, want %d", token, resp.StatusCode, want)
		}
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after shutdown; stderr: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "shutting down") {
		t.Errorf("no shutdown log line:\n%s", errOut.String())
	}
}

// checkStartupLine: the "serving" log line carries the start-up breakdown
// bench/startup reads (an object of nanosecond counts, one per step), and
// the collector, paused while the fake starts, is running again.
func checkStartupLine(t *testing.T, log *syncBuffer) {
	t.Helper()
	var entry struct {
		Msg     string                   `json:"msg"`
		ReadyIn time.Duration            `json:"ready_in"`
		Startup map[string]time.Duration `json:"startup"`
	}
	// The line follows the banner, so it may not be written yet.
	for deadline := time.Now().Add(10 * time.Second); entry.Msg != "serving" && time.Now().Before(deadline); {
		for _, line := range strings.Split(log.String(), "\n") {
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "serving" {
				break
			}
		}
		if entry.Msg != "serving" {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if entry.Msg != "serving" {
		t.Fatalf("no serving line in the log:\n%s", log.String())
	}
	var sum time.Duration
	for _, phase := range []string{"parse", "model", "index", "validator", "state", "listen"} {
		d, ok := entry.Startup[phase]
		if !ok {
			t.Errorf("the start-up breakdown has no %q: %v", phase, entry.Startup)
		}
		sum += d
	}
	if entry.ReadyIn <= 0 || sum > entry.ReadyIn {
		t.Errorf("ready in %v, but its steps add up to %v", entry.ReadyIn, sum)
	}
	// The collector's percentage comes back with the first collection
	// after start-up (gcpause); until then a memory limit starts it.
	runtime.GC()
	gogc := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		// Off reads as -1, converted to unsigned.
		if metrics.Read(gogc); int64(gogc[0].Value.Uint64()) >= 0 {
			return
		}
	}
	t.Errorf("the garbage collector is still off after start-up and a collection")
}

// TestServeHelp prints the flags with their environment variables.
func TestServeHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--help"}, env(nil), &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	sc := bufio.NewScanner(strings.NewReader(errOut.String()))
	seen := map[string]bool{}
	for sc.Scan() {
		for _, v := range []string{"WMSMOCK_ADDR", "WMSMOCK_SPEC", "WMSMOCK_BASE_PATH", "WMSMOCK_SEED", "WMSMOCK_TOKEN", "WMSMOCK_PROFILE", "WMSMOCK_RATE_LIMIT"} {
			if strings.Contains(sc.Text(), v) {
				seen[v] = true
			}
		}
	}
	if len(seen) != 7 {
		t.Errorf("help names only %v:\n%s", seen, errOut.String())
	}
}
