package mock

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/wmsmock/wmsmock/internal/recording"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// WithReplay answers the calls recorded in a session file (written by
// `wmsmock proxy --record`, package internal/recording) with the answers the
// service gave them. A call is the same call when its method, path (ids
// included, below each side's base path), query (in any order) and body
// (as JSON, in any spacing) are; secrets are compared redacted, the way
// they were recorded. A call recorded several times is answered in the
// order it was recorded, the last answer repeating once they run out, so a
// run's describe before and after its cancel each come back. Calls not in
// the session are answered as without the option. Authentication, the rate
// limit, the version and the route still come first.
//
// Recorded answers are served as they were recorded, byte for byte, even
// those the document rejects (that is what the service does); New counts
// them and logs the count (rejected_by_document).
func WithReplay(path string) Option {
	return func(s *settings) error {
		s.replayFile = path
		return nil
	}
}

// replay is a loaded session: recorded answers by call.
type replay struct {
	redact *recording.Redactor
	// basePath is the recording's prefix of its paths.
	basePath string
	mu       sync.Mutex
	calls    map[[32]byte]*recordedAnswers
	rejected int
}

type recordedAnswers struct {
	answers []*handler.Response
	next    int
}

// loadReplay reads the session file at path, checking each recorded
// answer against the document of a, the default version's; nil without a
// path.
func loadReplay(path string, a *api, logger *slog.Logger) (*replay, error) {
	if path == "" {
		return nil, nil
	}
	// The header, which the reader requires first, names the recording's
	// own secret names; until then the default ones apply.
	rp := &replay{calls: map[[32]byte]*recordedAnswers{}, redact: recording.NewRedactor()}
	var skipped, unrouted, total int
	rejectedOps := map[string]int{}
	onHeader := func(h recording.Header) error {
		rp.basePath = strings.TrimSuffix(h.BasePath, "/")
		rp.redact = recording.NewRedactor(h.Redacted...)
		return nil
	}
	_, err := recording.ReadFile(path, onHeader, func(in *recording.Interaction) error {
		total++
		resp, ok := replayAnswer(in)
		if !ok {
			skipped++
			return nil
		}
		reqBody, err := in.Request.Body.Bytes()
		if err != nil {
			return err
		}
		below := strings.TrimPrefix(in.Request.Path, rp.basePath)
		op, _, routed := a.doc.Route(in.Request.Method, below)
		if !routed {
			unrouted++
		} else if problems := a.validator.Response(replayRequest(in, a.basePath+below), op, httpAnswer(resp)); problems != nil {
			rp.rejected++
			rejectedOps[op.ID]++
		}
		key := rp.key(in.Request.Method, below, in.Request.Query, reqBody)
		c := rp.calls[key]
		if c == nil {
			c = &recordedAnswers{}
			rp.calls[key] = c
		}
		c.answers = append(c.answers, resp)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("WithReplay: %w", err)
	}
	ops := make([]string, 0, len(rejectedOps))
	for id, n := range rejectedOps {
		ops = append(ops, fmt.Sprintf("%s×%d", id, n))
	}
	sort.Strings(ops)
	logger.Info("replaying a recorded session", "file", path, "calls", total, "distinct", len(rp.calls),
		"not_replayable", skipped, "not_in_document", unrouted,
		"rejected_by_document", rp.rejected, "rejected_operations", strings.Join(ops, ","))
	return rp, nil
}

// replayAnswer is a recorded answer as the fake serves it. Calls that got
// no answer, and bodies that were cut at the proxy's limit or dropped for
// secrecy, cannot be replayed faithfully and are left out.
func replayAnswer(in *recording.Interaction) (*handler.Response, bool) {
	rs := in.Response
	if rs.Error != "" || rs.Status < 100 {
		return nil, false
	}
	for _, b := range []*recording.Body{in.Request.Body, rs.Body} {
		if b != nil && (b.Truncated || (b.Text == "" && b.Size > 0)) {
			return nil, false
		}
	}
	resp := &handler.Response{Status: rs.Status, Header: http.Header{}}
	body, err := rs.Body.Bytes()
	if err != nil {
		return nil, false
	}
	if len(body) > 0 {
		resp.Raw, resp.MediaType = body, rs.Body.MimeType
	}
	return resp, true
}

func replayRequest(in *recording.Interaction, path string) *http.Request {
	u := &url.URL{Path: path, RawQuery: in.Request.Query}
	if p, err := url.PathUnescape(path); err == nil {
		u.Path, u.RawPath = p, path
	}
	return &http.Request{Method: in.Request.Method, URL: u, Header: http.Header{}, Body: http.NoBody}
}

func httpAnswer(resp *handler.Response) *http.Response {
	hr := &http.Response{StatusCode: resp.Status, Header: http.Header{}, Body: http.NoBody}
	if resp.Raw != nil {
		hr.Header.Set("Content-Type", resp.MediaType)
		hr.Body = io.NopCloser(bytes.NewReader(resp.Raw))
	}
	return hr
}

// key identifies a call: method, escaped path below the base path, query
// with its parameters sorted, and the body compacted when it is JSON;
// secrets redacted as the recording redacted them.
func (rp *replay) key(method, path, rawQuery string, body []byte) [32]byte {
	q := rp.redact.Query(rawQuery)
	if v, err := url.ParseQuery(q); err == nil {
		q = v.Encode()
	}
	if out, _, ok := rp.redact.JSON(body); ok && len(body) > 0 {
		var c bytes.Buffer
		if json.Compact(&c, out) == nil {
			body = c.Bytes()
		}
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(path), []byte(q), body} {
		h.Write(part)
		h.Write([]byte{0})
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// recorded is the recorded answer to a call, or nil when the session does
// not hold the call. path is the call's escaped path below the fake's base
// path.
func (rp *replay) recorded(method, path, rawQuery string, body []byte) *handler.Response {
	if rp == nil {
		return nil
	}
	c := rp.calls[rp.key(method, path, rawQuery, body)]
	if c == nil {
		return nil
	}
	rp.mu.Lock()
	resp := c.answers[c.next]
	if c.next < len(c.answers)-1 {
		c.next++
	}
	rp.mu.Unlock()
	// The pipeline adds its own headers to the answer; the recorded one
	// stays as it was for the next call.
	out := *resp
	out.Header = http.Header{}
	return &out
}
