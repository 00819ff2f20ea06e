// Package recording is the file format of a recorded session with the
// service: what `wmsmock proxy --record` writes and `wmsmock serve --replay`
// reads.
//
// The format is JSON Lines: the first line is a header naming the format,
// the target and the base path the recorded paths are under, and every
// further line is one finished call (an Interaction). One call per line is
// what makes the file safe to stream and easy to review: the proxy appends
// a line as each call ends and keeps nothing, a run cut short leaves every
// call before the cut intact, and `diff` or `grep` between two recordings
// reads call by call. HAR, the common format for recorded HTTP, is one JSON
// document holding an array, so it can only be written whole (or patched at
// its end) and diffs poorly; the field names below follow HAR's where they
// mean the same thing, so converting a recording to HAR is a rename.
//
// Nothing secret reaches the file: Writer runs every call through a
// Redactor before encoding it.
package recording

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"
	"unicode/utf8"
)

// Format names the format and its version in the header line.
const Format = "wmsmock-recording/1"

// Header is the first line of a recording.
type Header struct {
	Format string `json:"format"`
	// Target is the URL the calls were forwarded to.
	Target string `json:"target,omitempty"`
	// BasePath is the prefix of the recorded paths that is not part of the
	// document's paths ("" when the paths are the document's own).
	BasePath string `json:"basePath,omitempty"`
	// Redacted lists the JSON property names whose string values were
	// replaced, so a reader can redact a live call the same way before
	// comparing it with a recorded one.
	Redacted []string  `json:"redacted,omitempty"`
	Started  time.Time `json:"startedDateTime"`
}

// Interaction is one call and its answer.
type Interaction struct {
	Seq     int       `json:"seq"`
	Started time.Time `json:"startedDateTime"`
	// TimeMS is how long the call took, first byte sent to last byte
	// received, in milliseconds.
	TimeMS float64 `json:"time"`
	// Operation is the document's operationId for the call, when it routed.
	Operation string   `json:"operation,omitempty"`
	Request   Request  `json:"request"`
	Response  Response `json:"response"`
	// Violations are what the document found wrong with the call or its
	// answer ("request: ..." or "response: ...").
	Violations []string `json:"violations,omitempty"`
}

// Request is a recorded call.
type Request struct {
	Method string `json:"method"`
	// Path is the escaped path as the client sent it; Query the raw query.
	Path    string  `json:"path"`
	Query   string  `json:"query,omitempty"`
	Headers []Field `json:"headers,omitempty"`
	Body    *Body   `json:"postData,omitempty"`
}

// Response is a recorded answer.
type Response struct {
	Status  int     `json:"status"`
	Headers []Field `json:"headers,omitempty"`
	Body    *Body   `json:"content,omitempty"`
	// Error is set instead when no answer came (the target was down or too
	// slow); Status is then the proxy's own 502 or 504.
	Error string `json:"error,omitempty"`
}

// Field is one header line.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Fields lists h, names sorted, for a stable line.
func Fields(h http.Header) []Field {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Field
	for _, k := range names {
		for _, v := range h[k] {
			out = append(out, Field{Name: k, Value: v})
		}
	}
	return out
}

// Body is a recorded body: its text when it is UTF-8, base64 otherwise.
type Body struct {
	MimeType string `json:"mimeType,omitempty"`
	// Size is the length of the body in bytes as it passed, even when only
	// part of it was kept.
	Size int64  `json:"size"`
	Text string `json:"text"`
	// Encoding is "base64" when Text is the base64 of the bytes.
	Encoding string `json:"encoding,omitempty"`
	// Truncated: only the first bytes were kept (the body was over the
	// proxy's capture limit); such a body is never replayed.
	Truncated bool `json:"truncated,omitempty"`
	// Redacted: secret values were replaced before recording.
	Redacted bool `json:"redacted,omitempty"`
}

// NewBody records b (of full length size) with its media type.
func NewBody(mimeType string, b []byte, size int64) *Body {
	body := &Body{MimeType: mimeType, Size: size, Truncated: int64(len(b)) < size}
	if utf8.Valid(b) {
		body.Text = string(b)
	} else {
		body.Text, body.Encoding = base64.StdEncoding.EncodeToString(b), "base64"
	}
	return body
}

// Bytes returns the recorded bytes.
func (b *Body) Bytes() ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	if b.Encoding == "base64" {
		return base64.StdEncoding.DecodeString(b.Text)
	}
	if b.Encoding != "" {
		return nil, fmt.Errorf("unknown body encoding %q", b.Encoding)
	}
	return []byte(b.Text), nil
}

// Writer appends interactions to a file, one line each, redacted. It is
// safe for concurrent use; each line is written through to the file as the
// call ends, so memory does not grow with the recording.
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	redact *Redactor
	seq    int
	err    error
}

// Create starts a recording at path (replacing what was there) and writes
// its header.
func Create(path string, h Header, r *Redactor) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriter(f), redact: r}
	h.Format = Format
	h.Redacted = r.Names()
	if err := w.line(h); err != nil {
		_ = f.Close()
		return nil, err
	}
	return w, nil
}

// Write redacts and appends one interaction, numbering it.
func (w *Writer) Write(in *Interaction) error {
	w.redact.Interaction(in)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.seq++
	in.Seq = w.seq
	return w.line(in)
}

// line encodes v as one line and flushes it, so the file holds every
// finished call even if the process is killed.
func (w *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err == nil {
		b = append(b, '\n')
		_, err = w.w.Write(b)
	}
	if err == nil {
		err = w.w.Flush()
	}
	if err != nil && w.err == nil {
		w.err = err
	}
	return err
}

// Count is the number of interactions written so far.
func (w *Writer) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Close flushes and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// MaxLine bounds one line of a recording when it is read back.
const MaxLine = 64 << 20

// Read reads a recording: onHeader (when not nil) with its header, then fn
// for each interaction in order. A malformed line is an error naming its
// line number.
func Read(r io.Reader, onHeader func(Header) error, fn func(*Interaction) error) (Header, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var h Header
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		if n == 1 {
			if err := json.Unmarshal(line, &h); err != nil {
				return h, fmt.Errorf("line 1: not a recording header: %w", err)
			}
			if h.Format != Format {
				return h, fmt.Errorf("line 1: format %q, want %q", h.Format, Format)
			}
			if onHeader != nil {
				if err := onHeader(h); err != nil {
					return h, err
				}
			}
			continue
		}
		var in Interaction
		if err := json.Unmarshal(line, &in); err != nil {
			return h, fmt.Errorf("line %d: %w", n, err)
		}
		if err := fn(&in); err != nil {
			return h, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return h, fmt.Errorf("line %d: %w", n+1, err)
	}
	if n == 0 {
		return h, errors.New("empty file: not a recording")
	}
	return h, nil
}

// ReadFile is Read on the file at path.
func ReadFile(path string, onHeader func(Header) error, fn func(*Interaction) error) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	h, err := Read(f, onHeader, fn)
	if err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}
