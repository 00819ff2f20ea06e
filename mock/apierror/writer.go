package apierror

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/wmsmock/wmsmock/profile"
)

// Policy is the default answer for each kind of failure, for errors whose
// stage did not choose a reply of its own.
type Policy map[Kind]profile.Reply

// PolicyFrom takes the default answers from a behaviour profile.
func PolicyFrom(p *profile.Profile) Policy {
	return Policy{
		Forbidden:       p.UnknownRoute,
		BadRequest:      p.BadRequest,
		TooManyRequests: p.RateLimit.Reject,
		Conflict:        {Status: http.StatusConflict, Body: profile.BodyMessage, Message: "Conflict"},
		Internal:        p.InternalError,
		ClientClosed:    {Status: StatusClientClosed, Body: profile.BodyEmpty},
		Injected:        p.Faults.InternalError,
	}
}

// Body is the service's error body: exactly one string field.
type Body struct {
	Message string `json:"message"`
}

// Writer writes error answers. It is safe for concurrent use.
type Writer struct {
	policy  Policy
	ids     *IDSource
	journal *Journal
	logger  *slog.Logger
	now     func() time.Time
}

// NewWriter returns a Writer; ids, journal and logger may be nil.
func NewWriter(p Policy, ids *IDSource, journal *Journal, logger *slog.Logger, now func() time.Time) *Writer {
	if ids == nil {
		ids = NewIDSource(nil)
	}
	if journal == nil {
		journal = NewJournal(1000)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Writer{policy: p, ids: ids, journal: journal, logger: logger, now: now}
}

// Journal returns the journal the writer records into.
func (w *Writer) Journal() *Journal { return w.journal }

// Write answers r with err and returns the Error ID it minted ("" for kinds
// whose answer carries none).
func (w *Writer) Write(rw http.ResponseWriter, r *http.Request, err error) string {
	e := Wrap(err)
	reply, status := w.reply(e)
	var id string
	if reply.NeedsErrorID() {
		id = w.ids.New()
	}
	var body []byte
	contentType := "application/json"
	switch reply.Body {
	case profile.BodyMessage, profile.BodyTemplate:
		body = encode(reply.Text(id, e.Values))
	case profile.BodyText:
		body, contentType = []byte(reply.Text(id, e.Values)), "text/plain; charset=utf-8"
	}
	h := rw.Header()
	for k, vs := range e.Header {
		h[k] = vs
	}
	if body != nil {
		h.Set("Content-Type", contentType)
	}
	// The reply's own headers come last: a text reply names its
	// Content-Type there.
	for k, v := range reply.Headers {
		h.Set(k, profile.Fill(v, id, e.Values))
	}
	h.Set("Cache-Control", "no-store")
	rw.WriteHeader(status)
	if body != nil {
		_, _ = rw.Write(body)
	}
	if id != "" {
		w.journal.Add(Entry{ID: id, Time: w.now().UTC(), Method: r.Method, Path: r.URL.Path,
			Status: status, Kind: e.Kind.String(), Reason: e.Error(), Deviations: e.Deviations})
	}
	level := slog.LevelInfo
	if e.Kind == Internal {
		level = slog.LevelError
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", status, "kind", e.Kind.String()}
	if id != "" { // a refusal without an Error ID (a 403, a 429) names none
		attrs = append(attrs, "error_id", id)
	}
	w.logger.Log(context.Background(), level, "request failed", append(attrs, "reason", e.Error())...)
	return id
}

// reply is the profile's answer for e, and its status.
func (w *Writer) reply(e *Error) (profile.Reply, int) {
	reply, ok := w.policy[e.Kind]
	if e.Reply != nil {
		reply, ok = *e.Reply, true
	}
	if !ok {
		reply = w.policy[Internal]
	}
	if reply.Status == 0 {
		reply.Status = http.StatusInternalServerError
	}
	return reply, reply.Status
}

func encode(message string) []byte {
	b, _ := json.Marshal(Body{Message: message})
	return b
}
