package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/clitest"
	"github.com/wmsmock/wmsmock/mock"
)

// TestProxyRejectsBadConfiguration: each mistake stops the command before
// anything listens, naming the flag or variable.
func TestProxyRejectsBadConfiguration(t *testing.T) {
	missingDir := filepath.Join(t.TempDir(), "absent", "rec.jsonl")
	cases := []configCase{
		{"no target", nil, nil, 2, "--target is required"},
		{"target not a URL", []string{"--target", "api.cloud.seqera.io"}, nil, 2, "--target"},
		{"zero timeout", []string{"--target", "http://127.0.0.1:1", "--timeout", "0s"}, nil, 2, "--timeout"},
		{"bad timeout in environment", []string{"--target", "http://127.0.0.1:1"}, map[string]string{"WMSMOCK_PROXY_TIMEOUT": "5"}, 2, "WMSMOCK_PROXY_TIMEOUT"},
		{"recording in a missing directory", []string{"--target", "http://127.0.0.1:1", "--record", missingDir}, nil, 2, "--record"},
		{"no body limit", []string{"--target", "http://127.0.0.1:1", "--max-body", "0"}, nil, 2, "--max-body"},
	}
	checkCommandRejects(t, "proxy", cases)
}

func get(t *testing.T, u string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestProxyRecordsAndServeReplays: `wmsmock proxy` in front of the fake
// forwards, serves its report while running, writes the recording and the
// reports on shutdown; `wmsmock serve --replay` on the recording answers
// the recorded GETs with the very bytes the client got.
func TestProxyRecordsAndServeReplays(t *testing.T) {
	fake, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	dir := t.TempDir()
	rec, report := filepath.Join(dir, "session.jsonl"), filepath.Join(dir, "drift")
	base, out, errOut, stop := startCommand(t, []string{"proxy", "--addr", "127.0.0.1:0", "--target", fake.BaseURL(),
		"--record", rec, "--report", report}, nil, regexp.MustCompile(`forwarding (http://127\.0\.0\.1:\d+) to`))

	// A run launched through the proxy exists only in this fake: the
	// replaying one can answer its describe only from the recording.
	req, _ := http.NewRequest("POST", base+"/workflow/launch", strings.NewReader(
		`{"launch":{"computeEnvId":"5Fq2Xw8RtLmN3p","pipeline":"https://github.com/nf-core/rnaseq","workDir":"s3://bucket/work"}}`))
	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var launched struct{ WorkflowID string }
	if err := json.NewDecoder(resp.Body).Decode(&launched); err != nil || resp.StatusCode != 200 {
		t.Fatalf("launch through the proxy: %d %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	paths := []string{"/workflow/" + launched.WorkflowID, "/workflow?max=2", "/workflow/3cSucceeded003/progress"}
	got := map[string][]byte{}
	for _, p := range paths {
		code, body := get(t, base+p)
		if code != 200 {
			t.Fatalf("GET %s through the proxy: %d %s", p, code, body)
		}
		got[p] = body
	}
	// The report is served while the proxy runs; the checks run behind the
	// answers, so it may lag a moment.
	var live struct{ Calls int }
	for deadline := time.Now().Add(10 * time.Second); live.Calls < len(paths)+1 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		_, b := get(t, base+"/_mock/proxy/report")
		_ = json.Unmarshal(b, &live)
	}
	if live.Calls != len(paths)+1 {
		t.Errorf("the live report counts %d calls, want %d", live.Calls, len(paths)+1)
	}
	if code := stop(); code != 0 || !strings.Contains(out.String(), "4 calls, 0 with drift, 0 not answered by the target; 4 recorded to "+rec) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errOut.String())
	}
	for _, f := range []string{report + ".md", report + ".json"} {
		if b, err := os.ReadFile(f); err != nil || !bytes.Contains(b, []byte("DescribeWorkflow")) {
			t.Errorf("report %s: %v\n%s", f, err, b)
		}
	}

	// The fake `wmsmock serve --replay` starts (cmd/wmsmock tests the flag).
	var serveLog clitest.Buffer
	replaying, err := mock.New(mock.WithReplay(rec), mock.WithLogger(slog.New(slog.NewTextHandler(&serveLog, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := replaying.Start(); err != nil {
		t.Fatal(err)
	}
	defer replaying.Close()
	for _, p := range paths {
		code, body := get(t, replaying.BaseURL()+p)
		if code != 200 || !bytes.Equal(body, got[p]) {
			t.Errorf("replayed GET %s: %d %s\nrecorded: %s", p, code, body, got[p])
		}
	}
	if !strings.Contains(serveLog.String(), "replaying a recorded session") || !strings.Contains(serveLog.String(), "rejected_by_document=0") {
		t.Errorf("the replaying fake's log:\n%s", serveLog.String())
	}
}
