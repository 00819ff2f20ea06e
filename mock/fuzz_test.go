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
	"github.com/wmsmock/wmsmock/mock/spec"
)

// pipelineCall is one arbitrary call aimed at an operation of the embedded
// document: the operation (op, modulo their number), a method that replaces
// the operation's own when set, raw text put in every path parameter, the
// query, extra header lines, the body, and whether the developer token is
// sent. Every path parameter gets the same text, so that arbitrary input
// reaches every handler and not only the router.
type pipelineCall struct {
	op                           uint8
	method, param, query, header string
	body                         []byte
	auth                         bool
}

// pipelineSeeds are calls that once found faults or sit on the edges the
// pipeline must hold: truncated and odd JSON, escaped slashes and dot
// segments in ids, malformed queries, bad tokens and versions, a call
// without a token, a body of the wrong type.
var pipelineSeeds = []struct {
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
	{"CreateWorkflowLaunch", "", "", "max=2147483648", "Content-Type: application/json\r\n", `{"launch":{"computeEnvId":1e999,"pipeline":["x"],"workDir":{"a":null}}}`, true},
}

// seedCalls are pipelineSeeds addressed to the operations of doc.
func seedCalls(tb testing.TB, doc *spec.Document) []pipelineCall {
	tb.Helper()
	opIndex := map[string]uint8{}
	for i, op := range doc.Operations {
		opIndex[op.ID] = uint8(i)
	}
	var calls []pipelineCall
	for _, s := range pipelineSeeds {
		i, ok := opIndex[s.op]
		if !ok {
			tb.Fatalf("a seed names operation %s, which the embedded document does not have", s.op)
		}
		calls = append(calls, pipelineCall{i, s.method, s.param, s.query, s.header, []byte(s.body), s.auth})
	}
	return calls
}

// pipelineChecker starts a fake on doc and returns what every call must
// hold there: whatever comes in, the fake answers within its deadline,
// never with a 5xx (a 500 is how a panic, a hang past the deadline or an
// answer its own schema rejects comes out), and every error body it sends
// is the service's message shape. It returns the answer's status (0 for a
// call Go's server refuses before any handler) and the broken rule, or "".
func pipelineChecker(tb testing.TB, doc *spec.Document) func(c pipelineCall) (int, string) {
	srv, _ := newServer(tb, doc, mock.WithRequestTimeout(10*time.Second))
	h := srv.Handler()
	return func(c pipelineCall) (int, string) {
		o := doc.Operations[int(c.op)%len(doc.Operations)]
		method := c.method
		if method == "" {
			method = o.Method
		}
		target := mock.DefaultBasePath + pathParam.ReplaceAllLiteralString(o.Path, c.param)
		if c.query != "" {
			target += "?" + c.query
		}
		req := parseRequest(method, target, c.header, c.body)
		if req == nil {
			return 0, "" // Go's server answers this itself, before any handler
		}
		if c.auth {
			req.Header.Add("Authorization", "Bearer "+devToken)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			return rec.Code, fmt.Sprintf("%s %q: %d %s", req.Method, target, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && rec.Body.Len() > 0 {
			var m map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || len(m) != 1 || m["message"] == nil {
				return rec.Code, fmt.Sprintf("%s %q: %d with a body not in the service's error shape: %q", req.Method, target, rec.Code, rec.Body)
			}
		}
		if req.Method == http.MethodDelete && rec.Code < 300 {
			// A delete may have removed what later calls stand on (the
			// developer token among them): start the next from the seed.
			if a := adminCall(tb, h, http.MethodPost, "/_mock/admin/reset", "", nil); a.status != http.StatusOK {
				return rec.Code, fmt.Sprintf("resetting after %s %q: %d %s", req.Method, target, a.status, a.body)
			}
		}
		return rec.Code, ""
	}
}

// FuzzPipeline sends arbitrary calls (pipelineCall) through the whole
// pipeline (auth, version, routing, request checks, handlers, answer
// checks) of a fake on the embedded document and holds it to
// pipelineChecker's rules. Inputs that once broke it live in testdata/fuzz,
// and every go test runs them; CI runs the seeded mutations of
// TestPipelineUnderMutatedCalls instead of a fuzzing session (see
// docs/development.md).
//
//	cd mock && go test -run '^$' -fuzz '^FuzzPipeline$' -fuzztime 1m
func FuzzPipeline(f *testing.F) {
	doc := embedded(f)
	for _, c := range seedCalls(f, doc) {
		f.Add(c.op, c.method, c.param, c.query, c.header, c.body, c.auth)
	}
	check := pipelineChecker(f, doc)
	f.Fuzz(func(t *testing.T, op uint8, method, param, query, header string, body []byte, auth bool) {
		if _, broken := check(pipelineCall{op, method, param, query, header, body, auth}); broken != "" {
			t.Fatal(broken)
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
