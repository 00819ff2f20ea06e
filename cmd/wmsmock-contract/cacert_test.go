package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
)

// startHTTPSFake starts a fake serving HTTPS with its CA in a directory,
// and returns it with the CA file.
func startHTTPSFake(t *testing.T, opts ...mock.Option) (*mock.Server, string) {
	t.Helper()
	srv, err := mock.New(append([]mock.Option{mock.WithTLS(mock.TLSDir(t.TempDir()))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, srv.CAFile()
}

// TestConformOverHTTPS: with --ca-cert naming the fake's CA, the
// conformance run and the health ping reach an HTTPS fake; without it the
// ping fails on the certificate, not silently.
func TestConformOverHTTPS(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	srv, ca := startHTTPSFake(t)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"conform", "--base-url", srv.BaseURL(), "--token", mock.DevToken,
		"--tags", "@auth", "--max-rate", "20", "--ca-cert", ca}, env(nil), &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "Authentication: 8 passed, 0 failed") {
		t.Fatalf("conform over HTTPS: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	ping := func(extra ...string) (int, string) {
		var errOut bytes.Buffer
		code := run(context.Background(), append([]string{"conform", "--ping", "--base-url", srv.BaseURL()}, extra...), env(nil), &bytes.Buffer{}, &errOut)
		return code, errOut.String()
	}
	if code, msg := ping("--ca-cert", ca); code != 0 {
		t.Errorf("ping with the CA: exit %d: %s", code, msg)
	}
	if code, msg := ping(); code != 1 || !strings.Contains(msg, "certificate") {
		t.Errorf("ping without the CA: exit %d, want 1 with a certificate error: %s", code, msg)
	}
}

// TestCalibrateCACert: calibrate refuses an HTTPS fake it does not trust
// on the certificate, and reaches it with --ca-cert.
func TestCalibrateCACert(t *testing.T) {
	wholeRunOnly(t)
	t.Parallel() // paced on the real clock: let the others run meanwhile
	srv, ca := startHTTPSFake(t)
	out := filepath.Join(t.TempDir(), "p.yaml")
	calibrate := func(extra ...string) (int, string) {
		var errOut bytes.Buffer
		args := append([]string{"calibrate", "--base-url", srv.BaseURL(), "--token", mock.DevToken, "--out", out, "--pace", "50ms"}, extra...)
		code := run(context.Background(), args, env(nil), &bytes.Buffer{}, &errOut)
		return code, errOut.String()
	}
	// An untrusted certificate is a setup error, found by the pre-flight.
	if code, msg := calibrate(); code != 3 || !strings.Contains(msg, "certificate is not trusted") || !strings.Contains(msg, "--ca-cert") {
		t.Errorf("without --ca-cert: exit %d, want 3 with a certificate error naming --ca-cert: %s", code, msg)
	}
	if code, msg := calibrate("--ca-cert", ca); code != 0 {
		t.Errorf("with --ca-cert: exit %d: %s", code, msg)
	}
}

// TestCACertRefused: a --ca-cert that cannot be read is refused with the
// flag's name before any call.
func TestCACertRefused(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "x.pem")
	writeFile(t, notPEM, "hello")
	for _, cmd := range []string{"conform", "calibrate"} {
		for _, file := range []string{filepath.Join(t.TempDir(), "absent.pem"), notPEM} {
			var errOut bytes.Buffer
			code := run(context.Background(), []string{cmd, "--base-url", "https://127.0.0.1:1/api", "--token", "t", "--ca-cert", file}, env(nil), &bytes.Buffer{}, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), "--ca-cert") {
				t.Errorf("%s --ca-cert %s: exit %d: %s", cmd, file, code, errOut.String())
			}
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
