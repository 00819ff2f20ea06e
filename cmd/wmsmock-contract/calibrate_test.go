package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

// TestCalibrateThenConform is the contract-regression loop on a server
// that differs from the default profile: calibrate writes its profile
// without showing a token; conform with the default profile passes but
// reports the differences; with the calibrated profile even
// --strict-profile passes (TestConformProfile shows that strict fails on
// a difference).
func TestCalibrateThenConform(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	const differs = `
auth:
  missing: {status: 401, body: template, message: Unauthorized}
  unknown: {status: 403, body: template, message: Invalid token}
  bad_scheme: {status: 401, body: empty}
unknown_route: {status: 404, body: template, message: Not Found}
versions: {unserved_as_default: true}
rate_limit:
  reject: {status: 503, body: template, message: "Slow down for {retryAfter}s", headers: {X-Wait: "{retryAfter}"}}
`
	const second = "calibrate-second-token"
	p, err := profile.Parse([]byte(differs))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mock.New(mock.WithProfile(p), mock.WithTokens(second))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	file := filepath.Join(t.TempDir(), "calibrated.yaml")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"calibrate", "--base-url", srv.BaseURL(), "--token", mock.DevToken,
		"--token2", second, "--out", file, "--pace", "50ms"}, env(nil), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("calibrate: exit %d\n%s", code, stderr.String())
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{mock.DevToken, second} {
		if strings.Contains(stderr.String()+stdout.String()+string(text), secret) {
			t.Fatalf("a token value was printed or written:\n%s\n%s", stderr.String(), text)
		}
	}
	if !strings.Contains(stderr.String(), "profile written to "+file) {
		t.Errorf("no closing line: %s", stderr.String())
	}

	conform := func(extra ...string) (int, string) {
		var out bytes.Buffer
		args := append([]string{"conform", "--base-url", srv.BaseURL(), "--token", mock.DevToken, "--token2", second,
			"--tags", "@auth,@unknown-path,@versions,@profile", "--max-rate", "20"}, extra...)
		code := run(context.Background(), args, env(nil), &out, &bytes.Buffer{})
		return code, out.String()
	}
	if code, out := conform(); code != 0 || !strings.Contains(out, "differ from the profile") {
		t.Errorf("default profile: exit %d, want 0 with differences reported\n%s", code, out)
	}
	if code, out := conform("--profile", file, "--strict-profile"); code != 0 || strings.Contains(out, "differ from the profile") {
		t.Errorf("calibrated profile, strict: exit %d, want 0 and no difference\n%s\nprofile:\n%s", code, out, text)
	}
}

func TestCalibrateRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--base-url", "http://x/api"},
		{"--base-url", "x", "--token", "t"},
		{"--base-url", "http://x", "--token", "t", "--token2", "t"},
		{"--base-url", "http://x", "--token", "t", "--pace", "1ms"},
		{"--base-url", "http://x", "--token", "t", "--out", "/no/such/dir/p.yaml"},
	} {
		if code := run(context.Background(), append([]string{"calibrate"}, args...), env(nil), &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
			t.Errorf("calibrate %q: exit %d, want 2", args, code)
		}
	}
}
