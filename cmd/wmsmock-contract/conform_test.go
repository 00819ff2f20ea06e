package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/profile"
)

// conformAgainst runs `wmsmock conform` on a few quick scenarios against
// h, served on loopback like a fake started elsewhere.
func conformAgainst(t *testing.T, h http.Handler, extra ...string) (int, string, string) {
	t.Helper()
	ts := httptest.NewServer(h)
	defer ts.Close()
	args := append([]string{"conform", "--base-url", ts.URL + "/api", "--token", mock.DevToken,
		"--tags", "@auth,@unknown-path", "--max-rate", "20"}, extra...)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, env(nil), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// wholeRunOnly skips, under -race, a test that runs a whole command
// (conform, calibrate, fidelity, diff) against fakes started for it: each
// is seconds of the fake's own work, three times slower under the race
// detector, and together they were most of this package's CI time there.
// .ci/run runs them without -race; under it, TestConformPassesAgainstTheFake
// and TestConformPing keep the command's goroutines (progress, pacing, the
// fake's server) checked.
func wholeRunOnly(t *testing.T) {
	t.Helper()
	if testenv.RaceEnabled {
		t.Skip("a whole command run against fakes: .ci/run runs it without -race")
	}
}

func TestConformPassesAgainstTheFake(t *testing.T) {
	t.Parallel() // paced on the real clock: let the others run meanwhile
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := conformAgainst(t, srv.Handler(), "--junit", junit)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"Authentication: 8 passed, 0 failed, 0 skipped", "Unknown paths: 2 passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// One summary, wmsmock's: none of godog's counts after the progress.
	if strings.Contains(out, " scenarios (") || strings.Contains(out, " steps (") || strings.Count(out, "scenarios: ") != 1 {
		t.Errorf("more than one summary:\n%s", out)
	}
	b, err := os.ReadFile(junit)
	if err != nil || !bytes.Contains(b, []byte(`<testcase name="A call without a token is refused" status="passed"`)) {
		t.Errorf("JUnit report: %v\n%s", err, b)
	}
}

func TestConformFailsAgainstABrokenServer(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// Every call is let through as if it carried the development token.
	authOff := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/_mock/") {
			r.Header.Set("Authorization", "Bearer "+mock.DevToken)
		}
		srv.Handler().ServeHTTP(w, r)
	})
	code, out, errOut := conformAgainst(t, authOff)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "FAILED  A call without a token is refused") {
		t.Errorf("the summary does not name the failed scenario:\n%s", out)
	}
}

// Each bad command line is refused with exit 2 and a message naming what
// is wrong with it, not merely with some validation error.
func TestConformRefusesBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "--base-url is required"},
		{[]string{"--base-url", "http://x/api"}, "--token is required"},
		{[]string{"--base-url", "x", "--token", "t"}, `--base-url "x": want http(s)://`},
		{[]string{"--base-url", "http://x", "--token", "t", "--tags", "auth"}, `tag expression "auth"`},
		{[]string{"--base-url", "http://x", "--token", "t", "--junit", "/no/such/dir/j.xml"}, "directory /no/such/dir does not exist"},
		{[]string{"--base-url", "http://x", "--token", "t", "--token2", "t"}, "--token2 must differ from --token"},
		{[]string{"--base-url", "http://x", "--token", "t", "--profile", "/no/such/profile.yaml"}, "--profile: profile: open /no/such/profile.yaml"},
	}
	for _, tc := range cases {
		var stderr bytes.Buffer
		code := run(context.Background(), append([]string{"conform"}, tc.args...), env(nil), &bytes.Buffer{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("conform %q: exit %d, %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	// The environment supplies defaults, and its mistakes are reported too.
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"conform"}, env(map[string]string{
		"WMSMOCK_BASE_URL": "http://x/api", "WMSMOCK_ACCESS_TOKEN": "t", "WMSMOCK_TIMEOUT": "soon",
	}), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "WMSMOCK_TIMEOUT") {
		t.Errorf("bad WMSMOCK_TIMEOUT: exit %d, %s", code, stderr.String())
	}
}

// --profile names the profile the @profile scenarios expect: a fake
// refusing over-limit calls its own way passes with a reported difference
// when conform is not told its profile, fails with --strict-profile, and
// passes without difference when told.
func TestConformProfile(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	const yaml = "rate_limit:\n  reject: {status: 503, body: empty}\n"
	file := filepath.Join(t.TempDir(), "profile.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mock.New(mock.WithProfile(p))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	args := []string{"conform", "--base-url", srv.BaseURL(), "--token", "wmsmock-dev-token", "--tags", "@rate-limit && @profile"}
	for _, tc := range []struct {
		extra  []string
		code   int
		differ bool
	}{
		{nil, 0, true},
		{[]string{"--strict-profile"}, 1, false},
		{[]string{"--profile", file, "--strict-profile"}, 0, false},
	} {
		var out bytes.Buffer
		code := run(context.Background(), append(append([]string{}, args...), tc.extra...), env(nil), &out, io.Discard)
		if code != tc.code || strings.Contains(out.String(), "differ from the profile") != tc.differ {
			t.Errorf("conform %q: exit %d, want %d; reports a difference: %v, want %v\n%s", tc.extra, code, tc.code, !tc.differ, tc.differ, out.String())
		}
	}
}

func TestConformPing(t *testing.T) {
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	ping := func(base string) int {
		return run(context.Background(), []string{"conform", "--ping", "--base-url", base}, env(nil), &bytes.Buffer{}, &bytes.Buffer{})
	}
	if code := ping(ts.URL + "/api"); code != 0 {
		t.Errorf("ping the fake: exit %d", code)
	}
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	if code := ping(other.URL); code != 1 {
		t.Errorf("ping a server that is not the fake: exit %d, want 1", code)
	}
}

// Against a server on a running clock, a burst that was accepted whole (as
// one straddling the boundary of a fixed one-second window would be) is
// tried again a window later, and the stricter attempt is judged: here the
// first 21 calls reach a fake without a limit, the rest a limited one. The
// limited fake's clock stands still but for the moves conform makes
// through its admin endpoints, so however slowly this machine sends the
// 21 calls they fall in one of its seconds.
func TestConformBurstTriedAgain(t *testing.T) {
	wholeRunOnly(t)
	open, err := mock.New(mock.WithRateLimit(nil))
	if err != nil {
		t.Fatal(err)
	}
	limited, err := mock.New(mock.WithClock(clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	bursts := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		first := r.URL.Path == "/api/workflow" && bursts < 21
		if first {
			bursts++
		}
		mu.Unlock()
		if first {
			open.Handler().ServeHTTP(w, r)
			return
		}
		limited.Handler().ServeHTTP(w, r)
	})
	code, out, _ := conformAgainst(t, h, "--tags", "@rate-limit && @contract && ~@second-token")
	if code != 0 || !strings.Contains(out, "Rate limits: 2 passed, 0 failed") {
		t.Errorf("exit %d, want 0 with both contract scenarios passed:\n%s", code, out)
	}
	if bursts != 21 {
		t.Errorf("%d calls reached the open fake, want the first burst's 21", bursts)
	}
}

// --strict-schema (here from its variable) fails the service's nulls in the
// fake's answers and names them; both commands read it. (Without it they
// are listed, not failed: conformance.TestHabitsAreReportedNotFailed.)
func TestConformStrictSchema(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	on := env(map[string]string{"WMSMOCK_STRICT_SCHEMA": "true"})
	c, err := parseConform([]string{"--base-url", "http://127.0.0.1:1/api", "--token", "t"}, on, io.Discard)
	if err != nil || !c.strictSchema {
		t.Errorf("conform: WMSMOCK_STRICT_SCHEMA=true gives %v (%v)", c.strictSchema, err)
	}
	f, err := parseFidelity([]string{"--base-url", "http://127.0.0.1:1/api", "--token", "t", "--base-url-b", "http://127.0.0.1:2/api",
		"--token-b", "u", "--strict-schema"}, env(nil), io.Discard)
	if err != nil || !f.strictSchema {
		t.Errorf("fidelity: --strict-schema gives %v (%v)", f.strictSchema, err)
	}
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"conform", "--base-url", ts.URL + "/api", "--token", mock.DevToken,
		"--tags", "@schema", "--max-rate", "20", "--order-seed", "0"}, on, &stdout, &stderr)
	out := stdout.String()
	if code != 1 || !strings.Contains(out, "failed by --strict-schema") || !strings.Contains(out, "GET /workflow: $.workflows[*].") {
		t.Errorf("exit %d, want 1 with the nulls named\n%s\n%s", code, out, stderr.String())
	}
}

// TestTagListDocumented: `conform --list-tags` lists every tag of the
// scenarios with its count and meaning, and docs/conformance.md shows that
// very list, so the page follows the features.
func TestTagListDocumented(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"conform", "--list-tags"}, env(nil), &out, io.Discard); code != 0 {
		t.Fatalf("conform --list-tags: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[0], "@contract ") {
		t.Fatalf("conform --list-tags:\n%s", out.String())
	}
	page, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "conformance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "```text\n"+out.String()+"```") {
		t.Errorf("docs/conformance.md does not show the tag list as conform --list-tags prints it now:\n%s", out.String())
	}
}
