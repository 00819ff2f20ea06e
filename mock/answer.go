package mock

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/fnv1a"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// write encodes a handler's answer. In strict mode the answer is checked
// against the document first, and an answer the document rejects is
// replaced by a 500: the fake must never hand a client an invalid body.
// Two answers are let through unchecked: a replayed one, which is what the
// service itself sent, and an override's deliberate one, which a test
// asked for as it stands.
func (s *Server) write(w *recorder, r *http.Request, prog *progress, resp *handler.Response) {
	body, mediaType, err := encodeBody(resp)
	if err != nil {
		w.errorID = s.errors.Write(w, r, &apierror.Error{Kind: apierror.Internal, Reason: "encoding the answer", Cause: err})
		return
	}
	if s.strict && !prog.replayed && (prog.pinned == nil || !prog.pinned.Override.Deliberate) {
		if problems := checkAnswer(r, prog, resp, body, mediaType); problems != nil {
			w.errorID = s.errors.Write(w, r, &apierror.Error{Kind: apierror.Internal,
				Reason: "the answer does not match the document: " + strings.Join(problems, "; ")})
			return
		}
	}
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	if body != nil {
		h.Set("Content-Type", mediaType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(resp.Status)
	if body != nil && r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func encodeBody(resp *handler.Response) ([]byte, string, error) {
	mediaType := resp.MediaType
	if resp.Raw != nil {
		if mediaType == "" {
			mediaType = "application/octet-stream"
		}
		return resp.Raw, mediaType, nil
	}
	if resp.Body == nil {
		return nil, "", nil
	}
	if mediaType == "" {
		mediaType = "application/json"
	}
	// An answer already encoded is sent as it is: encoding/json would scan
	// and compact it again.
	if raw, ok := resp.Body.(json.RawMessage); ok {
		return raw, mediaType, nil
	}
	b, err := json.Marshal(resp.Body)
	return b, mediaType, err
}

// checkAnswer validates an answer against the operation the call was
// routed to.
func checkAnswer(r *http.Request, prog *progress, resp *handler.Response, body []byte, mediaType string) []string {
	a, op := prog.api, prog.op.Load()
	if a == nil || op == nil {
		return nil
	}
	hr := &http.Response{StatusCode: resp.Status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}
	if body != nil {
		hr.Header.Set("Content-Type", mediaType)
	}
	return a.validator.Response(r, op, hr)
}

// requestKey identifies a call for deterministic synthesis: method, path
// below the base path, sorted query and a digest of the body.
func requestKey(r *http.Request, query url.Values, basePath string, body []byte) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte(' ')
	b.WriteString(strings.TrimPrefix(r.URL.EscapedPath(), basePath))
	if len(query) > 0 {
		b.WriteByte('?')
		b.WriteString(query.Encode())
	}
	if len(body) > 0 {
		b.WriteByte('#')
		b.WriteString(strconv.FormatUint(fnv1a.New().Bytes(body).Sum(), 16))
	}
	return b.String()
}

func (s *Server) logRequest(r *http.Request, rec *recorder, d time.Duration) {
	if !s.logger.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.statusCode(), "duration", d}
	if rec.errorID != "" {
		attrs = append(attrs, "error_id", rec.errorID)
	}
	if rec.reason != "" {
		attrs = append(attrs, "reason", rec.reason)
	}
	s.logger.Debug("request", attrs...)
}

// recordRequest adds a finished call to the request journal. Control calls
// are left out, so reading the journal does not fill it.
func (s *Server) recordRequest(r *http.Request, rec *recorder, prog *progress, took time.Duration) {
	if strings.HasPrefix(r.URL.EscapedPath(), control.Prefix) {
		return
	}
	e := control.RequestEntry{
		Time: s.clock.Now().UTC(), Method: r.Method, Path: r.URL.Path, Status: rec.statusCode(),
		ErrorID: rec.errorID, Reason: rec.reason, LatencyMS: float64(took.Microseconds()) / 1000,
	}
	if op := prog.op.Load(); op != nil {
		e.Operation = op.ID
	}
	e.Extension = prog.extension
	e.Deviations, e.MoreDeviations = prog.deviations, prog.moreDeviations
	e.Injected = prog.injections()
	s.requests.Add(e)
}

// recorder remembers what was written, for the log and for the panic guard.
type recorder struct {
	http.ResponseWriter
	status  int
	wrote   bool
	errorID string
	reason  string // why the call was refused, when it was
}

func (r *recorder) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.status, r.wrote = code, true
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) statusCode() int {
	if r.status == 0 && !r.wrote { // wrote and 0: no answer reached the client
		return http.StatusOK
	}
	return r.status
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
