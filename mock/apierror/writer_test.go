package apierror

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/profile"
)

var writerNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("X", 3600))

func newTestWriter(p Policy) *Writer {
	return NewWriter(p, nil, NewJournal(16), nil, func() time.Time { return writerNow })
}

// decodeMessage checks that body is a JSON object with exactly one field,
// "message", holding a string, and returns it.
func decodeMessage(t *testing.T, body []byte) string {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", body, err)
	}
	if len(fields) != 1 {
		t.Fatalf("body %s has %d fields, want only message", body, len(fields))
	}
	var msg string
	if err := json.Unmarshal(fields["message"], &msg); err != nil {
		t.Fatalf("body %s: message is not a string: %v", body, err)
	}
	return msg
}

// A template reply fills its placeholders from the error's values, mints
// an Error ID only when it names one, and adds its headers: the default
// rate-limit refusal is the service's own text, without an ID.
func TestWriterTemplates(t *testing.T) {
	wait := map[string]string{profile.PlaceRetryAfter: "3"}
	w := newTestWriter(PolicyFrom(profile.Default()))
	rec := httptest.NewRecorder()
	id := w.Write(rec, httptest.NewRequest("GET", "/api/workflow", nil), &Error{Kind: TooManyRequests, Reason: "over", Values: wait})
	if rec.Code != 429 || id != "" {
		t.Fatalf("status %d, ID %q; want 429 and no ID", rec.Code, id)
	}
	if got, want := decodeMessage(t, rec.Body.Bytes()), "Maximum request rate exceeded. Wait 3secs before issuing a new request"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if n := len(w.Journal().Recent(0)); n != 0 {
		t.Errorf("journal holds %d entries for an answer without ID", n)
	}

	reply := profile.Reply{Status: 418, Body: profile.BodyTemplate, Message: "no ({errorId})",
		Headers: map[string]string{"X-Request-Id": "{errorId}", "X-Wait": "{retryAfter}"}}
	rec = httptest.NewRecorder()
	id = w.Write(rec, httptest.NewRequest("GET", "/api/x", nil), (&Error{Kind: BadRequest, Reason: "r", Values: wait}).WithReply(reply))
	if !IsID(id) || rec.Code != 418 {
		t.Fatalf("status %d, ID %q", rec.Code, id)
	}
	if got := decodeMessage(t, rec.Body.Bytes()); got != "no ("+id+")" {
		t.Errorf("message %q", got)
	}
	if rec.Header().Get("X-Request-Id") != id || rec.Header().Get("X-Wait") != "3" {
		t.Errorf("headers %v", rec.Header())
	}
	if _, ok := w.Journal().Get(id); !ok {
		t.Error("a minted ID is not in the journal")
	}
}

// TestWriterDefaultPolicy guards the answer for each kind of failure under
// the default profile: status, content type, the one-field body whose
// message ends with a fresh Error ID (none at all for 403), and the journal
// entry that keeps the reason behind the ID.
func TestWriterDefaultPolicy(t *testing.T) {
	cases := []struct {
		kind    Kind
		status  int
		message string // "" when the body is empty
	}{
		{Forbidden, 403, ""},
		{BadRequest, 400, "Unable to process request"},
		{Conflict, 409, "Conflict"},
		{Internal, 500, "Internal server error"},
		{ClientClosed, 499, ""}, // no client reads it: no body, no Error ID
	}
	for _, tc := range cases {
		t.Run(tc.kind.String(), func(t *testing.T) {
			w := newTestWriter(PolicyFrom(profile.Default()))
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/api/things?x=1", nil)
			id := w.Write(rec, req, New(tc.kind, "because %d", 42))

			if rec.Code != tc.status {
				t.Errorf("status %d, want %d", rec.Code, tc.status)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			if tc.message == "" {
				if rec.Body.Len() != 0 || id != "" {
					t.Errorf("body %q and ID %q, want neither", rec.Body.String(), id)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "" {
					t.Errorf("Content-Type %q on an empty body", ct)
				}
				if n := len(w.Journal().Recent(0)); n != 0 {
					t.Errorf("journal holds %d entries for an answer without ID", n)
				}
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			if !IsID(id) {
				t.Fatalf("returned ID %q is not an Error ID", id)
			}
			if got, want := decodeMessage(t, rec.Body.Bytes()), tc.message+" - Error ID: "+id; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			e, ok := w.Journal().Get(id)
			if !ok {
				t.Fatalf("journal does not hold ID %q", id)
			}
			want := Entry{ID: id, Time: writerNow.UTC(), Method: "POST", Path: "/api/things",
				Status: tc.status, Kind: tc.kind.String(), Reason: tc.kind.String() + ": because 42"}
			if !reflect.DeepEqual(e, want) {
				t.Errorf("journal entry %+v, want %+v", e, want)
			}
		})
	}
}

// TestWriterFreshIDs guards that each answer carries its own Error ID.
func TestWriterFreshIDs(t *testing.T) {
	w := newTestWriter(PolicyFrom(profile.Default()))
	seen := map[string]bool{}
	for range 20 {
		id := w.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil), BadRequestf("bad"))
		if seen[id] {
			t.Fatalf("ID %q used twice", id)
		}
		seen[id] = true
	}
}

// TestWriterCopiesHeaders guards that headers carried by the error (such
// as the rate-limit ones) reach the response, with every value.
func TestWriterCopiesHeaders(t *testing.T) {
	w := newTestWriter(PolicyFrom(profile.Default()))
	e := New(TooManyRequests, "over limit")
	e.Header = http.Header{
		"Retry-After":       {"3"},
		"X-Ratelimit-Limit": {"20", "72000"},
	}
	rec := httptest.NewRecorder()
	w.Write(rec, httptest.NewRequest("GET", "/x", nil), e)
	for k, vs := range e.Header {
		if got := rec.Header().Values(k); strings.Join(got, ",") != strings.Join(vs, ",") {
			t.Errorf("header %s = %q, want %q", k, got, vs)
		}
	}
	if rec.Code != 429 {
		t.Errorf("status %d, want 429", rec.Code)
	}
}

// TestWriterReplyChoice guards how the reply is chosen: an error's own Reply
// overrides the policy; a kind the policy lacks is answered as Internal; a
// reply without a status becomes a 500; plain errors are Internal.
func TestWriterReplyChoice(t *testing.T) {
	def := PolicyFrom(profile.Default())
	cases := []struct {
		name    string
		policy  Policy
		err     error
		status  int
		message string // "" when the body is empty
	}{
		{"reply overrides forbidden", def,
			Forbiddenf("expired").WithReply(profile.Reply{Status: 401, Body: profile.BodyMessage, Message: "Token expired"}),
			401, "Token expired"},
		{"reply empties a bad request", def,
			BadRequestf("x").WithReply(profile.Reply{Status: 418, Body: profile.BodyEmpty}),
			418, ""},
		{"conflictf carries its message", def, Conflictf("Name already in use"), 409, "Name already in use"},
		{"zero status falls back to 500", def,
			BadRequestf("x").WithReply(profile.Reply{Body: profile.BodyMessage, Message: "Oops"}),
			500, "Oops"},
		{"plain error is internal", def, errors.New("disk on fire"), 500, "Internal server error"},
		{"wrapped apierror keeps its kind", def, fmt.Errorf("ctx: %w", BadRequestf("bad")), 400, "Unable to process request"},
		{"unknown kind is internal", def, &Error{Kind: Kind(99), Reason: "?"}, 500, "Internal server error"},
		{"kind missing from policy is internal",
			Policy{Internal: {Status: 503, Body: profile.BodyMessage, Message: "Down"}},
			BadRequestf("x"), 503, "Down"},
		{"empty policy gives a bare 500", Policy{}, BadRequestf("x"), 500, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newTestWriter(tc.policy)
			rec := httptest.NewRecorder()
			id := w.Write(rec, httptest.NewRequest("GET", "/x", nil), tc.err)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d", rec.Code, tc.status)
			}
			if tc.message == "" {
				if rec.Body.Len() != 0 || id != "" {
					t.Errorf("body %q, ID %q; want neither", rec.Body.String(), id)
				}
				return
			}
			if got, want := decodeMessage(t, rec.Body.Bytes()), tc.message+" - Error ID: "+id; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			if e, ok := w.Journal().Get(id); !ok || e.Status != tc.status {
				t.Errorf("journal entry %+v, %v; want one with status %d", e, ok, tc.status)
			}
		})
	}
}

// TestWrap guards that Wrap passes *Error values through (also when
// wrapped) and makes anything else an Internal error keeping the cause.
func TestWrap(t *testing.T) {
	bad := BadRequestf("bad %s", "input")
	plain := errors.New("boom")
	cases := []struct {
		name string
		in   error
		kind Kind
		same bool
	}{
		{"apierror", bad, BadRequest, true},
		{"wrapped apierror", fmt.Errorf("ctx: %w", bad), BadRequest, true},
		{"plain", plain, Internal, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Wrap(tc.in)
			if got.Kind != tc.kind {
				t.Errorf("kind %v, want %v", got.Kind, tc.kind)
			}
			if tc.same && got != bad {
				t.Error("Wrap did not return the *Error it was given")
			}
			if !tc.same && !errors.Is(got, plain) {
				t.Errorf("Wrap(%v) lost its cause: %v", tc.in, got)
			}
		})
	}
}

// TestErrorText guards the text written to the log and journal: kind, then
// reason, then the cause when there is one.
func TestErrorText(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{Forbiddenf("no token"), "forbidden: no token"},
		{BadRequestf("max=%d", -1), "bad_request: max=-1"},
		{&Error{Kind: Internal, Reason: "r", Cause: errors.New("c")}, "internal: r: c"},
		{&Error{Kind: Kind(0), Reason: "r"}, "unknown: r"},
	}
	for _, tc := range cases {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// TestWriterConcurrent guards that one Writer serves many goroutines: every
// answer gets a distinct ID that the journal holds (run with -race).
func TestWriterConcurrent(t *testing.T) {
	w := NewWriter(PolicyFrom(profile.Default()), nil, NewJournal(1000), nil, nil)
	const n = 200
	out := make(chan string, n)
	for range n {
		go func() {
			rec := httptest.NewRecorder()
			out <- w.Write(rec, httptest.NewRequest("GET", "/x", nil), BadRequestf("x"))
		}()
	}
	seen := map[string]bool{}
	for range n {
		id := <-out
		if seen[id] {
			t.Fatalf("ID %q minted twice", id)
		}
		seen[id] = true
		if _, ok := w.Journal().Get(id); !ok {
			t.Errorf("journal lost ID %q", id)
		}
	}
}

// TestLogNamesAnErrorIDOnlyWhenThereIsOne: the "request failed" line of a
// refusal without an Error ID (a 403) has no error_id="" in it; a Bad
// Request's line names its ID.
func TestLogNamesAnErrorIDOnlyWhenThereIsOne(t *testing.T) {
	var log strings.Builder
	w := NewWriter(PolicyFrom(profile.Default()), nil, NewJournal(16), slog.New(slog.NewTextHandler(&log, nil)), func() time.Time { return writerNow })
	w.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/workflow", nil), Forbiddenf("authentication failed: missing"))
	id := w.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/workflow?max=x", nil), New(BadRequest, "max: not a number"))
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "error_id") || !strings.Contains(lines[0], "reason=") {
		t.Errorf("the 403's log line: %q", lines[0])
	}
	if id == "" || len(lines) < 2 || !strings.Contains(lines[1], "error_id="+id) {
		t.Errorf("the Bad Request's log line does not name %q: %q", id, lines)
	}
}

// A text reply is sent as it stands, with the Content-Type its headers
// name (a gateway's HTML page), and an injected failure is logged as what
// it is, at information level, naming its rule.
func TestWriterTextReplyOfAnInjectedFault(t *testing.T) {
	var log strings.Builder
	logger := slog.New(slog.NewTextHandler(&log, nil))
	w := NewWriter(PolicyFrom(profile.Default()), nil, NewJournal(16), logger, func() time.Time { return writerNow })
	page, _ := profile.Default().Faults.Reply(503, true)
	rec := httptest.NewRecorder()
	id := w.Write(rec, httptest.NewRequest("GET", "/api/workflow", nil), &Error{Kind: Injected,
		Reason: "fault fault-1", Reply: &page, Values: map[string]string{profile.PlaceRetryAfter: "30"}})
	if rec.Code != 503 || id != "" {
		t.Fatalf("status %d, ID %q; want 503 and no ID", rec.Code, id)
	}
	if got := rec.Header().Get("Content-Type"); got != "text/html" {
		t.Errorf("Content-Type %q, want the reply's text/html", got)
	}
	if got := rec.Header().Get("Retry-After"); got != "30" {
		t.Errorf("Retry-After %q", got)
	}
	if !strings.HasPrefix(rec.Body.String(), "<html>") || !strings.Contains(rec.Body.String(), "503 Service Temporarily Unavailable") {
		t.Errorf("body %q", rec.Body.String())
	}
	if !strings.Contains(log.String(), "level=INFO") || !strings.Contains(log.String(), "kind=injected") ||
		!strings.Contains(log.String(), "fault fault-1") {
		t.Errorf("log %q", log.String())
	}

	// Without a Content-Type of its own, a text body is plain text.
	rec = httptest.NewRecorder()
	w.Write(rec, httptest.NewRequest("GET", "/", nil), &Error{Kind: Injected, Reply: &profile.Reply{Status: 502, Body: profile.BodyText, Message: "down"}})
	if rec.Body.String() != "down" || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("%q %q", rec.Body.String(), rec.Header().Get("Content-Type"))
	}
	// The default for the kind is the profile's injected 500: a message
	// with an Error ID, journaled.
	rec = httptest.NewRecorder()
	id = w.Write(rec, httptest.NewRequest("GET", "/", nil), &Error{Kind: Injected, Reason: "fault fault-2"})
	if rec.Code != 500 || !IsID(id) || !strings.HasSuffix(decodeMessage(t, rec.Body.Bytes()), "Error ID: "+id) {
		t.Errorf("%d %q %s", rec.Code, id, rec.Body.String())
	}
	if e, ok := w.Journal().Get(id); !ok || e.Kind != "injected" || !strings.Contains(e.Reason, "fault fault-2") {
		t.Errorf("journal: %+v", e)
	}
}
