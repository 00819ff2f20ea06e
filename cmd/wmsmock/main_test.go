package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
)

// TestHelpAndVersion: `wmsmock help serve` prints serve's flags (not the
// command list), as --name; `version` and `--version` say which build runs.
func TestHelpAndVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"help", "serve"}, env(nil), &out, &errOut); code != 0 {
		t.Fatalf("help serve: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Usage: wmsmock serve [flags]") || !strings.Contains(out.String(), "  --addr host:port") || strings.Contains(out.String(), "wmsmock calibrate") {
		t.Errorf("help serve:\n%s", out.String())
	}
	for _, arg := range []string{"version", "--version"} {
		out.Reset()
		if code := run(context.Background(), []string{arg}, env(nil), &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "wmsmock ") || !strings.Contains(out.String(), "(go1.") {
			t.Errorf("%s: exit %d, %q", arg, code, out.String())
		}
	}
}

// TestPing: exit 0 for a ready fake (given its root or its API's base
// URL, or through the old conform --ping), 1 for a server that is not the
// fake; --wait keeps asking until the fake is ready.
func TestPing(t *testing.T) {
	srv, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fake := httptest.NewServer(srv.Handler())
	defer fake.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	var asked atomic.Int32
	late := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer late.Close()
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"ping", fake.URL}, 0},
		{[]string{"ping", fake.URL + "/api"}, 0},
		{[]string{"ping", "--base-url", fake.URL + "/api"}, 0},
		{[]string{"conform", "--ping", "--base-url", fake.URL + "/api", "--token", "ignored"}, 0},
		{[]string{"ping", other.URL}, 1},
		{[]string{"ping", late.URL}, 1},
		{[]string{"ping", "--wait", "1m", late.URL}, 0},
		{[]string{"ping", "not a url"}, 2},
	} {
		var errOut bytes.Buffer
		if code := run(context.Background(), c.args, env(nil), &bytes.Buffer{}, &errOut); code != c.code {
			t.Errorf("%q: exit %d, want %d: %s", c.args, code, c.code, errOut.String())
		}
	}
}

// TestContractCommandsRunTheSecondBinary: conform and the other contract
// commands run wmsmock-contract with the same arguments and streams, and
// end with its exit status; without one to run, one line says how to get
// it.
func TestContractCommandsRunTheSecondBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	stub := filepath.Join(t.TempDir(), "wmsmock-contract")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho \"args: $*\"\necho to-stderr >&2\nexit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"conform", "--tags", "@auth", "--base-url", "http://x/api"},
		env(map[string]string{"WMSMOCK_CONTRACT_BIN": stub}), &out, &errOut)
	if code != 4 || out.String() != "args: conform --tags @auth --base-url http://x/api\n" || errOut.String() != "to-stderr\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"help", "diff"}, env(map[string]string{"WMSMOCK_CONTRACT_BIN": stub}), &out, &errOut); code != 4 || out.String() != "args: help diff\n" {
		t.Errorf("help diff: exit %d, %q", code, out.String())
	}

	// Nothing to run: no variable, nothing beside the test binary, no go
	// and nothing on the PATH.
	t.Setenv("PATH", t.TempDir())
	errOut.Reset()
	if code := run(context.Background(), []string{"calibrate"}, env(nil), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "go install github.com/wmsmock/wmsmock/cmd/wmsmock-contract@latest") {
		t.Errorf("without the second binary: exit %d, %q", code, errOut.String())
	}
}
