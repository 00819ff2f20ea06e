package main

import (
	"bytes"
	"context"
	"encoding/json"
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
		args := append([]string{"fidelity", "--base-url", a, "--token", mock.DevToken, "--compare-url", compare, "--token-b", mock.DevToken,
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
		{"--base-url", "http://x/api", "--token", "t", "--compare-url", "y", "--token-b", "t"},
		{"--base-url", "http://x/api", "--token", "t", "--compare-url", "http://y/api"},
		{"--base-url", "http://x/api", "--token", "t", "--compare-url", "http://y/api", "--token-b", "t", "--json", "/no/such/dir/r.json"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"fidelity"}, args...), env(nil), &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("fidelity %q: exit %d, want 2", args, code)
		}
	}
}
