package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

func startFake(t *testing.T, opts ...mock.Option) string {
	t.Helper()
	srv, err := mock.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv.BaseURL()
}

// TestFidelity compares two fakes over HTTP: one whose profile refuses
// unknown paths with a 404 disagrees with the default one on exactly the
// unknown-path scenarios, and the command says so in its exit status and
// all three reports; a fake compared with another on the same profile
// agrees.
func TestFidelity(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	p, err := profile.Parse([]byte("unknown_route: {status: 404, body: template, message: Not found}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := startFake(t), startFake(t, mock.WithProfile(p))
	dir := t.TempDir()
	md, js, ju := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	fidelity := func(compare string, extra ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		args := append([]string{"fidelity", "--base-url", a, "--token", mock.DevToken, "--base-url-b", compare, "--token-b", mock.DevToken,
			"--tags", "@unknown-path,@versions", "--max-rate", "20"}, extra...)
		code := run(context.Background(), args, env(nil), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	code, out := fidelity(b, "--out", md, "--json", js, "--junit", ju)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the servers disagree)\n%s", code, out)
	}
	report, _ := os.ReadFile(md)
	for _, want := range []string{"## Disagreements", "A path the service does not have is refused", "A method the path does not define is refused", "404"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("the markdown report lacks %q:\n%s", want, report)
		}
	}
	var rep struct {
		Total struct{ Agreed, Disagreed int }
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &rep) != nil || rep.Total.Disagreed != 2 || rep.Total.Agreed == 0 {
		t.Errorf("JSON report: %v %+v", err, rep)
	}
	if x, err := os.ReadFile(ju); err != nil || !bytes.Contains(x, []byte(`failures="2"`)) {
		t.Errorf("JUnit report: %v\n%s", err, x)
	}
	if code, out := fidelity(startFake(t)); code != 0 || !strings.Contains(out, "Agreement 100%") {
		t.Errorf("two default fakes: exit %d, want 0 and full agreement\n%s", code, out)
	}
}

func TestFidelityRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--base-url", "http://x/api", "--token", "t"},
		{"--base-url", "http://x/api", "--token", "t", "--base-url-b", "y", "--token-b", "t"},
		{"--base-url", "http://x/api", "--token", "t", "--base-url-b", "http://y/api"},
		{"--base-url", "http://x/api", "--token", "t", "--base-url-b", "http://y/api", "--token-b", "t", "--json", "/no/such/dir/r.json"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"fidelity"}, args...), env(nil), &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("fidelity %q: exit %d, want 2", args, code)
		}
	}
}

// TestRenamedFlagsStillWork: a flag renamed for consistency keeps its old
// name, which sets the new one and says it is deprecated; the old
// environment variable of fidelity's second URL is still read.
func TestRenamedFlagsStillWork(t *testing.T) {
	var warn bytes.Buffer
	f, err := parseFidelity([]string{"--base-url", "http://127.0.0.1:1/api", "--token", "t", "--compare-url", "http://127.0.0.1:2/api", "--token-b", "u"}, env(nil), &warn)
	if err != nil || f.b.baseURL != "http://127.0.0.1:2/api" || !strings.Contains(warn.String(), "--compare-url is deprecated; use --base-url-b") {
		t.Errorf("fidelity --compare-url: %v, second URL %q, warning %q", err, f.b.baseURL, warn.String())
	}
	f, err = parseFidelity([]string{"--base-url", "http://127.0.0.1:1/api", "--token", "t", "--token-b", "u"}, env(map[string]string{"WMSMOCK_COMPARE_URL": "http://127.0.0.1:3/api"}), io.Discard)
	if err != nil || f.b.baseURL != "http://127.0.0.1:3/api" {
		t.Errorf("fidelity with WMSMOCK_COMPARE_URL: %v, second URL %q", err, f.b.baseURL)
	}
	warn.Reset()
	c, err := parseConform([]string{"--base-url", "http://127.0.0.1:1/api", "--token", "t", "--seed", "7"}, env(nil), &warn)
	if err != nil || c.seed != 7 || !strings.Contains(warn.String(), "--seed is deprecated; use --order-seed") {
		t.Errorf("conform --seed: %v, order seed %d, warning %q", err, c.seed, warn.String())
	}
	// serve's variables are not conform's: WMSMOCK_SEED seeds the fake's
	// data and WMSMOCK_TOKEN adds tokens to the fake.
	c, err = parseConform([]string{"--base-url", "http://127.0.0.1:1/api"}, env(map[string]string{"WMSMOCK_SEED": "9", "WMSMOCK_TOKEN": "extra",
		"WMSMOCK_ACCESS_TOKEN": "mine"}), io.Discard)
	if err != nil || c.seed != -1 || c.token != "mine" {
		t.Errorf("conform reads serve's variables: %v, order seed %d, token %q", err, c.seed, c.token)
	}
	// Set alone, serve's variable gets a line saying which one to use.
	_, err = parseConform([]string{"--base-url", "http://127.0.0.1:1/api"}, env(map[string]string{"WMSMOCK_TOKEN": "extra"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--token is required") || !strings.Contains(err.Error(), "WMSMOCK_ACCESS_TOKEN") {
		t.Errorf("conform with only WMSMOCK_TOKEN: %v", err)
	}
}
