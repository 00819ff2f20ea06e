package mock_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
)

// FuzzPipeline sends arbitrary requests through the whole pipeline (auth,
// version, routing, request checks, handlers, answer checks) of a fake on
// the embedded document, with the developer token or without. A call picks
// one of the document's operations (op, modulo their number) and puts the
// same raw text in every path parameter, so that the fuzzer reaches every
// handler and not only the router; its path, query, headers and body are
// otherwise free. Whatever comes in, the fake answers within its deadline,
// never with a 5xx (a 500 is how a panic, a hang past the deadline or an
// answer its own schema rejects comes out), and every error body it sends
// is the service's message shape. Inputs that once broke it live in
// testdata/fuzz.
//
//	cd mock && go test -run '^$' -fuzz '^FuzzPipeline$' -fuzztime 1m
func FuzzPipeline(f *testing.F) {
	doc := embedded(f)
	opIndex := map[string]uint8{}
	for i, op := range doc.Operations {
		opIndex[op.ID] = uint8(i)
	}
	for _, seed := range []struct {
		op, method, param, query, header string
		body                             string
		auth                             bool
	}{
		{"ListWorkflows", "", "", "max=2&offset=1&search=hello", "", "", true},
		{"CreateWorkflowLaunch", "", "", "", "Content-Type: application/json\r\n", `{"launch":{"pipeline":"https://github.com/nextflow-io/hello"}}`, true},
		{"CreateWorkflowLaunch", "", "", "", "Content-Type: application/json\r\n", `{"launch":{"pipeline":`, true},
		{"CreateCredentials", "", "", "", "Content-Type: application/json\r\n", `{"credentials":{"name":"k","provider":"aws","keys":{"discriminator":"nope"}}}`, true},
		{"CancelWorkflow", "", "abc%2Fcancel", "", "", "", true},
		{"DescribeWorkflow", "", "..", "workspaceId=%zz", "", "", true},
		{"ListWorkflows", "", "", "a;b", "", "", true},
		{"ListWorkflows", "", "", "", "Authorization: Bearer nope\r\n", "", true},
		{"ListWorkflows", "", "", "", "Accept-Version: 999\r\n", "", true},
		{"DeleteToken", "", "1", "", "", "", false},
		{"UpdatePipeline", "", "1", "", "Content-Type: application/json\r\n", `{"name":null}`, true},
		{"UpdateComputeEnv", "PATCH", "x", "", "Content-Type: text/plain\r\n", "\x00\xff", true},
		{"ListWorkflows", "GET", "", "", "", "", true},
	} {
		i, ok := opIndex[seed.op]
		if !ok {
			f.Fatalf("seed names operation %s, which the embedded document does not have", seed.op)
		}
		f.Add(i, seed.method, seed.param, seed.query, seed.header, []byte(seed.body), seed.auth)
	}
	srv, _ := newServer(f, doc, mock.WithRequestTimeout(10*time.Second))
	h := srv.Handler()

	f.Fuzz(func(t *testing.T, op uint8, method, param, query, header string, body []byte, auth bool) {
		o := doc.Operations[int(op)%len(doc.Operations)]
		if method == "" {
			method = o.Method
		}
		target := mock.DefaultBasePath + pathParam.ReplaceAllLiteralString(o.Path, param)
		if query != "" {
			target += "?" + query
		}
		req := parseRequest(method, target, header, body)
		if req == nil {
			return // Go's server answers this itself, before any handler
		}
		if auth {
			req.Header.Add("Authorization", "Bearer "+devToken)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", req.Method, target, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && rec.Body.Len() > 0 {
			var m map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || len(m) != 1 || m["message"] == nil {
				t.Fatalf("%s %q: %d with a body not in the service's error shape: %q", req.Method, target, rec.Code, rec.Body)
			}
		}
	})
}

var pathParam = regexp.MustCompile(`\{[^}]*\}`)

// parseRequest reads the request as Go's HTTP server would from the wire,
// or returns nil when the server would refuse it before any handler ran.
func parseRequest(method, target, header string, body []byte) *http.Request {
	var raw bytes.Buffer
	fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s", method, target, header)
	if !strings.HasSuffix(header, "\r\n") && header != "" {
		raw.WriteString("\r\n")
	}
	fmt.Fprintf(&raw, "Content-Length: %d\r\n\r\n", len(body))
	raw.Write(body)
	req, err := http.ReadRequest(bufio.NewReader(&raw))
	if err != nil {
		return nil
	}
	req.RemoteAddr = "127.0.0.1:40000"
	return req
}
