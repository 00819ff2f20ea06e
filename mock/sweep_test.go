package mock_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/mock/validate"
	"github.com/wmsmock/wmsmock/profile"
)

// TestEveryOperationAnswersValidly sends a valid call to every operation of
// each document and checks the answer against the same document with
// libopenapi-validator: every operation must answer its success status with
// a body its schema accepts, with no exceptions. With the default profile
// the answers carry the service's nulls, which the check then takes, and
// nothing else; with answers.nulls: omit every answer is one the document
// accepts as it stands.
func TestEveryOperationAnswersValidly(t *testing.T) {
	omit := profile.Default()
	omit.Answers.Nulls = profile.NullsOmit
	for _, dc := range documents {
		for _, p := range []*profile.Profile{profile.Default(), omit} {
			t.Run(dc.name+"/"+p.Answers.Nulls, func(t *testing.T) {
				if testenv.RaceEnabled && dc.name == "published" && !p.Answers.WithNulls() {
					// Another set of first calls, ten times slower under the
					// race detector; CI's run without it (.ci/run) has it whole.
					t.Skip("the published schema without nulls is swept without -race")
				}
				sweepAnswers(t, dc.doc(t), p)
			})
		}
	}
}

func sweepAnswers(t *testing.T, doc *spec.Document, p *profile.Profile) {
	// Random ids address nothing in a stateful fake (403); the sweep
	// checks synthesis, so it runs without state.
	srv, _ := newServer(t, doc, mock.WithState(mock.NoRecords()), mock.WithProfile(p))
	vopts := []validate.Option{validate.WithRegexpEngine(synth.RegexpEngine)}
	if p.Answers.WithNulls() {
		vopts = append(vopts, validate.WithNulls())
	}
	v := validate.New(doc, mock.DefaultBasePath, vopts...)
	gen := synth.New(synth.WithSeed(7))
	valid := 0
	ops := sample(t, doc.Operations, 40)
	for _, op := range ops {
		if !checkOperation(t, srv, v, gen, op) {
			continue
		}
		valid++
	}
	t.Logf("%d of %d operations answered validly", valid, len(ops))
	if valid != len(ops) {
		t.Errorf("%d operations gave an invalid answer", len(ops)-valid)
	}
}

func checkOperation(t *testing.T, srv *mock.Server, v *validate.Validator, gen *synth.Generator, op *spec.Operation) bool {
	t.Helper()
	c, err := callgen.Build(op, gen, op.ID)
	if err != nil {
		t.Errorf("%s: building a call: %v", op.ID, err)
		return false
	}
	req, err := c.Request(mock.DefaultBasePath, devToken)
	if err != nil {
		t.Errorf("%s: %v", op.ID, err)
		return false
	}
	req = httptest.NewRequest(req.Method, req.URL.String(), bytes.NewReader(c.Body))
	for k, vs := range mustHeader(c, devToken) {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != op.Success.Status {
		t.Errorf("%s %s (%s): status %d, want %d; body %s", op.Method, c.Path, op.ID, rec.Code, op.Success.Status, rec.Body.Bytes())
		return false
	}
	resp := &http.Response{StatusCode: rec.Code, Header: rec.Header(), Body: io.NopCloser(bytes.NewReader(rec.Body.Bytes()))}
	if problems := v.Response(req, op, resp); problems != nil {
		t.Errorf("%s %s (%s): answer rejected by the document: %v\nbody: %.500s", op.Method, c.Path, op.ID, problems, rec.Body.Bytes())
		return false
	}
	return true
}

func mustHeader(c *callgen.Call, token string) http.Header {
	h := c.Header.Clone()
	if c.ContentType != "" {
		h.Set("Content-Type", c.ContentType)
	}
	h.Set("Authorization", "Bearer "+token)
	return h
}

// TestSynthesisIsDeterministic: the same seed and request give the same
// body; another seed gives another.
func TestSynthesisIsDeterministic(t *testing.T) {
	doc := embedded(t)
	body := func(seed int64, target string) string {
		srv, _ := newServer(t, doc, mock.WithSeed(seed))
		a := call(t, srv.Handler(), "GET", target, devToken, nil)
		if a.status != 200 {
			t.Fatalf("GET %s: %d %s", target, a.status, a.body)
		}
		return string(a.body)
	}
	const list = "/api/workflow?max=5"
	first, again := body(3, list), body(3, list)
	if first != again {
		t.Errorf("seed 3 gave two different bodies:\n%s\n%s", first, again)
	}
	if other := body(4, list); other == first {
		t.Errorf("seeds 3 and 4 gave the same body %s", first)
	}
	if other := body(3, "/api/workflow?max=6"); other == first {
		t.Errorf("two different requests gave the same body %s", first)
	}
}

// TestLiteralRoutesWinOverParameters: /workflow/random-name is its own
// operation, not a workflow whose id is "random-name".
func TestLiteralRoutesWinOverParameters(t *testing.T) {
	doc := embedded(t)
	var random *spec.Operation
	for _, op := range doc.Operations {
		if op.Method == "GET" && op.Path == "/workflow/random-name" {
			random = op
		}
	}
	if random == nil {
		t.Fatal("the embedded document has no GET /workflow/random-name")
	}
	srv, _ := newServer(t, doc, mock.WithStrictResponses())
	a := call(t, srv.Handler(), "GET", "/api/workflow/random-name", devToken, nil)
	if a.status != 200 {
		t.Fatalf("status %d, body %s", a.status, a.body)
	}
	if !bytes.Contains(a.body, []byte(`"name"`)) || bytes.Contains(a.body, []byte(`"workflow"`)) {
		t.Errorf("GET /workflow/random-name answered as if it were describe: %s", a.body)
	}
}

// TestEveryOperationWithStateStaysValid sends the same calls to a fake with
// state and strict responses on: stateful answers must match the document
// too (strict mode would turn any that does not into a 500). Calls that
// address records which do not exist (in their path, or a launch's
// references) get the service's 403, and a create that clashes with a seeded name may get the document's 409. An operation
// whose path names no record (a list, a create, a launch) has nothing to
// be missing, so it must succeed: a fake that refused every call would
// otherwise pass.
func TestEveryOperationWithStateStaysValid(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc, mock.WithStrictResponses())
			gen := synth.New(synth.WithSeed(7))
			counts := map[int]int{}
			succeeded, mustSucceed := 0, 0
			for _, op := range sample(t, doc.Operations, 40) {
				c, err := callgen.Build(op, gen, op.ID)
				if err != nil {
					t.Fatalf("%s: %v", op.ID, err)
				}
				a := call(t, srv.Handler(), c.Method, c.URL(mock.DefaultBasePath), devToken, c.Body, "Content-Type", c.ContentType)
				counts[a.status]++
				// A launch names its compute environment and workspace by
				// id in its body and query (CONTRACT.md, launch
				// references), and a trace create the launched run it
				// reports on; any call may name the workspace or the
				// organization it acts in, in its query, and a write the
				// records it refers to, in its body: random ones are
				// missing.
				namesRecord := strings.Contains(op.Path, "{") || op.Method == "POST" && (op.Path == "/workflow/launch" || op.Path == "/trace/create") ||
					c.Query.Get("workspaceId") != "" || c.Query.Get("orgId") != "" || c.NamesRecords()
				switch {
				case a.status == op.Success.Status:
					succeeded++
				case namesRecord && a.status == 403 && len(a.body) == 0:
				case a.status == 409 && op.Method != "GET":
				default:
					t.Errorf("%s %s (%s): %d %.300s", op.Method, c.Path, op.ID, a.status, a.body)
				}
				if !namesRecord {
					mustSucceed++
				}
			}
			if succeeded < mustSucceed {
				t.Errorf("%d operations succeeded; the %d that name no record must", succeeded, mustSucceed)
			}
			t.Logf("%s: answers by status: %v", dc.name, counts)
		})
	}
}
