package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeRejectsBadStateConfiguration(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "state.json")
	if err := os.WriteFile(corrupt, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkRejected(t, []configCase{
		{"negative interval", []string{"--state-interval", "-1s"}, nil, 2, "--state-interval"},
		{"bad interval in environment", nil, map[string]string{"WMSMOCK_STATE_INTERVAL": "often"}, 2, "WMSMOCK_STATE_INTERVAL"},
		{"fixtures not a directory", []string{"--fixtures", file}, nil, 2, "--fixtures"},
		{"fixtures from environment", nil, map[string]string{"WMSMOCK_FIXTURES": filepath.Join(dir, "absent")}, 2, "--fixtures"},
		{"bad admin token", []string{"--admin-token", "two words"}, nil, 2, "--admin-token"},
		{"corrupt state file", []string{"--state-file", corrupt}, nil, 1, corrupt},
		// The library takes one place for the state (the later WithState
		// wins), so the flags that name two are refused here.
		{"redis and a state file", []string{"--store", "redis://127.0.0.1:1/0", "--state-file", filepath.Join(dir, "s.json")}, nil, 2, "--store and --state-file do not go together"},
	})
	if b, _ := os.ReadFile(corrupt); string(b) != "{broken" {
		t.Error("the corrupt state file was overwritten")
	}
}

// serveUntil starts `wmsmock serve` with args and env, waits for its
// banner and returns its base URL and a stop function returning the exit
// code.
func serveUntil(t *testing.T, args []string, vars map[string]string) (string, func() int) {
	t.Helper()
	base, _, _, stop := startCommand(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), vars, bannerURL)
	return base, stop
}

func do(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer wmsmock-dev-token")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestServeKeepsStateAcrossRestarts: the state file is written on shutdown
// and read at the next start, from the environment variable too.
func TestServeKeepsStateAcrossRestarts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	base, stop := serveUntil(t, []string{"--state-file", file, "--state-interval", "0"}, nil)
	code, body := do(t, "POST", base+"/api/workflow/launch", `{"launch":{"pipeline":"https://github.com/nf-core/rnaseq","runName":"kept"}}`)
	if code != 200 {
		t.Fatalf("launch: %d %s", code, body)
	}
	var launched struct{ WorkflowID string }
	_ = json.Unmarshal(body, &launched)
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no state file after shutdown: %v", err)
	}
	base, stop = serveUntil(t, nil, map[string]string{"WMSMOCK_STATE_FILE": file})
	defer stop()
	if code, body := do(t, "GET", base+"/api/workflow/"+launched.WorkflowID, ""); code != 200 || !bytes.Contains(body, []byte(`"kept"`)) {
		t.Errorf("after restart: %d %.200s", code, body)
	}
}
