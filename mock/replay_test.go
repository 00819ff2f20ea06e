package mock_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/recording"
	"github.com/wmsmock/wmsmock/mock"
)

// writeSession records interactions the way the proxy does, under base.
func writeSession(t *testing.T, base string, ins ...*recording.Interaction) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	w, err := recording.Create(path, recording.Header{BasePath: base}, recording.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if err := w.Write(in); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func recorded(method, path, query, reqBody string, status int, body string) *recording.Interaction {
	in := &recording.Interaction{
		Request:  recording.Request{Method: method, Path: path, Query: query},
		Response: recording.Response{Status: status},
	}
	if reqBody != "" {
		in.Request.Body = recording.NewBody("application/json", []byte(reqBody), int64(len(reqBody)))
	}
	if body != "" {
		in.Response.Body = recording.NewBody("application/json", []byte(body), int64(len(body)))
	}
	return in
}

// TestReplayAnswersRecordedCallsAsRecorded: a recorded call is matched on
// method, path, query in any order and body in any spacing, below each
// side's base path; its answers come in recorded order, the last
// repeating; an answer the document rejects is served even in strict mode
// and counted; a call the session lacks, or one with the wrong token, is
// answered as without replay.
func TestReplayAnswersRecordedCallsAsRecorded(t *testing.T) {
	running := `{"workflow":{"id":"zzRecorded1","status":"RUNNING"}}`
	cancelled := `{"workflow":{"id":"zzRecorded1","status":"CANCELLED"}}`
	drift := `{"workflow":{"id":"zzRecorded1","status":"RUNNING"},"orgId":"42"}`
	path := writeSession(t, "/gw",
		recorded("GET", "/gw/workflow/zzRecorded1", "", "", 200, running),
		recorded("POST", "/gw/workflow/zzRecorded1/cancel", "", "", 204, ""),
		recorded("GET", "/gw/workflow/zzRecorded1", "", "", 200, cancelled),
		recorded("GET", "/gw/workflow/zzRecorded2", "workspaceId=7&attributes=labels", "", 200, drift),
		recorded("POST", "/gw/workflow/launch", "", `{"launch": {"pipeline": "p"}}`, 200, `{"workflowId":"zzLaunched"}`),
	)
	var log bytes.Buffer
	srv, err := mock.New(mock.WithReplay(path), mock.WithStrictResponses(),
		mock.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "rejected_by_document=1 ") {
		t.Errorf("the replay's start-up log does not count 1 recorded answer rejected (orgId):\n%s", log.String())
	}
	h := srv.Handler()
	for i, want := range []string{running, cancelled, cancelled} {
		if a := call(t, h, "GET", "/api/workflow/zzRecorded1", devToken, nil); a.status != 200 || string(a.body) != want {
			t.Errorf("describe %d: %d %s, want %s", i+1, a.status, a.body, want)
		}
	}
	if a := call(t, h, "GET", "/api/workflow/zzRecorded2?attributes=labels&workspaceId=7", devToken, nil); a.status != 200 || string(a.body) != drift {
		t.Errorf("query in another order: %d %s", a.status, a.body)
	}
	if a := call(t, h, "POST", "/api/workflow/launch", devToken, []byte(`{"launch":{"pipeline":"p"}}`)); a.status != 200 || string(a.body) != `{"workflowId":"zzLaunched"}` {
		t.Errorf("launch with other spacing: %d %s", a.status, a.body)
	}
	if a := call(t, h, "GET", "/api/workflow/zzRecorded2", devToken, nil); a.status == 200 {
		t.Errorf("a call with another query was answered from the recording: %s", a.body)
	}
	if a := call(t, h, "GET", "/api/workflow/zzRecorded1", "not-a-token", nil); a.status != http.StatusForbidden {
		t.Errorf("replay came before authentication: %d %s", a.status, a.body)
	}
	if a := call(t, h, "GET", "/api/workflow/3cSucceeded003", devToken, nil); a.status != 200 || !strings.Contains(string(a.body), "3cSucceeded003") {
		t.Errorf("a call outside the session: %d %s", a.status, a.body)
	}
}

// TestReplayRefusesABrokenSession: a file that is not a recording stops
// New with the line at fault.
func TestReplayRefusesABrokenSession(t *testing.T) {
	path := writeSession(t, "", recorded("GET", "/workflow", "", "", 200, `{}`))
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, []byte("{not json\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := mock.New(mock.WithReplay(path)); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("New: %v", err)
	}
	if _, err := mock.New(mock.WithReplay(filepath.Join(t.TempDir(), "absent.jsonl"))); err == nil {
		t.Fatal("New accepted a missing session file")
	}
}
