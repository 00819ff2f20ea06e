package recording

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJSONRedactionKeepsEveryOtherByte(t *testing.T) {
	r := NewRedactor("batchKey")
	in := `{ "token" : {"id": 7, "name":"ci"},"accessKey":"eyJ0aWQi\"x",
  "list":[{"password": "p1", "n": null}, "password", {"BatchKey":"k"}],"nested":{"a":{"secretKey":"s"}},"count":3}`
	want := `{ "token" : {"id": 7, "name":"ci"},"accessKey":"[REDACTED]",
  "list":[{"password": "[REDACTED]", "n": null}, "password", {"BatchKey":"[REDACTED]"}],"nested":{"a":{"secretKey":"[REDACTED]"}},"count":3}`
	out, n, ok := r.JSON([]byte(in))
	if !ok || n != 4 || string(out) != want {
		t.Fatalf("JSON = %d %v\n%s\nwant\n%s", n, ok, out, want)
	}
	plain := []byte(`{"id": 1, "workflowId":"abc"}`)
	if out, n, ok := r.JSON(plain); !ok || n != 0 || !bytes.Equal(out, plain) {
		t.Fatalf("a body without secrets changed: %s", out)
	}
	b := &Body{MimeType: "application/json", Text: `{"Access_Key": "k1", "n": 1}`}
	if r.Body(b); b.Text != `{"Access_Key": "[REDACTED]", "n": 1}` {
		t.Fatalf("a secret spelled with a separator was kept: %s", b.Text)
	}
	if _, _, ok := r.JSON([]byte(`{"a":`)); ok {
		t.Fatal("a broken body reads as JSON")
	}
}

func TestWriterRedactsBeforeTheDiskAndReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	w, err := Create(path, Header{Target: "http://x", BasePath: "/api"}, NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer s3cr3t-value"}, "Cookie": {"sid=c00kie"}, "Accept": {"application/json"}}
	in := &Interaction{
		Request: Request{Method: "POST", Path: "/tokens", Query: "a=1&access_token=q1q1", Headers: Fields(h),
			Body: NewBody("application/json", []byte(`{"name":"n"}`), 12)},
		Response: Response{Status: 200, Headers: Fields(http.Header{"Set-Cookie": {"sid=c00kie2"}}),
			Body: NewBody("application/json", []byte(`{"accessKey":"AK-value"}`), 24)},
	}
	if err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Interaction{Request: Request{Method: "GET", Path: "/x"},
		Response: Response{Status: 200, Body: NewBody("application/json", []byte(`{"password":`), 40)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	for _, secret := range []string{"s3cr3t-value", "c00kie", "q1q1", "AK-value", `password\":`} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("%q is in the file:\n%s", secret, raw)
		}
	}
	var got []*Interaction
	hd, err := ReadFile(path, nil, func(i *Interaction) error { got = append(got, i); return nil })
	if err != nil || hd.BasePath != "/api" || len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 {
		t.Fatalf("read back: %+v %v %d", hd, err, len(got))
	}
	if got[0].Request.Headers[1].Value != "Bearer [REDACTED]" || !got[1].Response.Body.Truncated || got[1].Response.Body.Text != "" {
		t.Fatalf("read back: %+v / %+v", got[0].Request.Headers, got[1].Response.Body)
	}
	if b, _ := got[0].Request.Body.Bytes(); string(b) != `{"name":"n"}` {
		t.Fatalf("request body %q", b)
	}
}

// TestBodyThatIsNotTextIsNotKept: a JSON body whose bytes are not valid
// text (cut inside a character, or still compressed) is kept as base64,
// which the redactor cannot read; its text is dropped, secret and all.
func TestBodyThatIsNotTextIsNotKept(t *testing.T) {
	raw := []byte(`{"accessKey":"SUPERSECRETVALUE","name":"caf` + "\xc3")
	b := NewBody("application/json", raw, int64(len(raw)))
	if b.Encoding == "" {
		t.Fatal("the body was not stored as base64: the test does not exercise that path")
	}
	NewRedactor().Body(b)
	if b.Text != "" || b.Encoding != "" || !b.Redacted {
		t.Errorf("a base64 JSON body was kept: %+v", b)
	}
}
