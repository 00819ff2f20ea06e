package mock_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// epoch is where every fake clock in these tests starts.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// docCase is one document the behaviour tests run on.
type docCase struct {
	name string
	doc  func(t testing.TB) *spec.Document
}

var (
	publishedOnce sync.Once
	publishedDoc  *spec.Document
	publishedErr  error
)

// published loads the service's published schema once for the whole test
// binary, or skips when the workspace does not have it.
func published(t testing.TB) *spec.Document {
	path := testenv.PublishedSpec(t, "")
	publishedOnce.Do(func() { publishedDoc, publishedErr = spec.LoadFile(path) })
	if publishedErr != nil {
		t.Fatal(publishedErr)
	}
	return publishedDoc
}

func embedded(t testing.TB) *spec.Document {
	d, err := spec.Load(fixtures.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// documents are the two documents every rule is checked on.
var documents = []docCase{{"embedded", embedded}, {"published", published}}

// testTimeout replaces the request deadline in tests: the race detector on
// a two-core CI machine makes cold first calls on the published schema ten
// times slower, and the deadline has tests of its own (deadline_test.go).
const testTimeout = 2 * time.Minute

// newServer builds a server on doc with a fake clock, no rate limit and a
// generous request deadline unless the options say otherwise.
func newServer(t testing.TB, doc *spec.Document, opts ...mock.Option) (*mock.Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(epoch)
	base := []mock.Option{mock.WithDocument("", doc), mock.WithClock(clk), mock.WithRateLimit(nil), mock.WithRequestTimeout(testTimeout)}
	srv, err := mock.New(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return srv, clk
}

// answer is a recorded response.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) message(t testing.TB) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %q", err, a.body)
	}
	if len(m) != 1 {
		t.Fatalf("error body must have exactly one field, got %v", m)
	}
	s, ok := m["message"].(string)
	if !ok {
		t.Fatalf("error body has no string message: %q", a.body)
	}
	return s
}

// call sends a request straight to the handler, without a network.
func call(t testing.TB, h http.Handler, method, target, token string, body []byte, header ...string) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return answer{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

var errorIDMessage = regexp.MustCompile(`^.+ - Error ID: ([0-9A-Za-z]{22})$`)

// errorID checks the Bad Request shape (CONTRACT E1) and returns the ID.
func errorID(t testing.TB, a answer) string {
	t.Helper()
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error answer Content-Type = %q, want application/json", ct)
	}
	m := errorIDMessage.FindStringSubmatch(a.message(t))
	if m == nil {
		t.Fatalf("message %q does not end with ' - Error ID: <22 base62>'", a.message(t))
	}
	return m[1]
}

const (
	devToken     = auth.DevToken
	secondToken  = auth.SecondToken
	expiredToken = auth.ExpiredToken
)

// errorEntry reads what the fake recorded about an Error ID, through its
// control API as a client would.
func errorEntry(t testing.TB, srv *mock.Server, id string) (apierror.Entry, bool) {
	t.Helper()
	a := call(t, srv.Handler(), "GET", "/_mock/errors/"+url.PathEscape(id), "", nil)
	if a.status == http.StatusNotFound {
		return apierror.Entry{}, false
	}
	var e apierror.Entry
	if a.status != http.StatusOK || json.Unmarshal(a.body, &e) != nil {
		t.Fatalf("GET /_mock/errors/%s: %d %s", id, a.status, a.body)
	}
	return e, true
}

// sample returns ops whole in a plain run. Under the race detector, which
// makes every first call on the published schema some ten times slower, it
// returns at most limit of them, spread evenly over the list (the same ones
// every run): the sweeps there are after data races, which a sample finds
// as well as the whole, and .ci/run repeats them whole without -race.
func sample(t testing.TB, ops []*spec.Operation, limit int) []*spec.Operation {
	t.Helper()
	if !testenv.RaceEnabled || len(ops) <= limit {
		return ops
	}
	stride := (len(ops) + limit - 1) / limit
	var out []*spec.Operation
	for i := 0; i < len(ops); i += stride {
		out = append(out, ops[i])
	}
	t.Logf("under -race: %d of %d operations (every %dth)", len(out), len(ops), stride)
	return out
}
