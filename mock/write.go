package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// respond writes what the pipeline decided to w: the answer, or the
// refusal in the service's shape (mock/apierror, which also journals it
// under its Error ID).
func (c *call) respond(w *recorder, resp *handler.Response, err error) {
	if err != nil {
		w.errorID = c.s.errors.Write(w, c.r, err)
		c.rec.reason = err.Error() // for the journal: a 403 has no Error ID to look up
		return
	}
	c.write(w, resp)
}

// recovered answers a call whose work panicked with a 500 and an Error
// ID, or logs the panic when the answer had already begun.
func (c *call) recovered(v any) {
	if c.rec.wrote {
		c.s.logger.Error("panic after the answer began", "path", c.r.URL.Path, "panic", v)
		return
	}
	err := &apierror.Error{Kind: apierror.Internal, Reason: fmt.Sprintf("panic: %v", v)}
	c.rec.errorID = c.s.errors.Write(c.rec, c.r, err)
}

// write encodes a handler's answer. In strict mode the answer is checked
// against the document first, and an answer the document rejects is
// replaced by a 500: the fake must never hand a client an invalid body.
// Two answers are let through unchecked: a replayed one, which is what the
// service itself sent, and an override's deliberate one, which a test
// asked for as it stands.
func (c *call) write(w *recorder, resp *handler.Response) {
	r := c.r
	body, mediaType, err := encodeBody(resp)
	if err != nil {
		w.errorID = c.s.errors.Write(w, r, &apierror.Error{Kind: apierror.Internal, Reason: "encoding the answer", Cause: err})
		return
	}
	if c.s.strict && !c.replayed && (c.pinned == nil || !c.pinned.Override.Deliberate) {
		if problems := c.checkAnswer(resp, body, mediaType); problems != nil {
			w.errorID = c.s.errors.Write(w, r, &apierror.Error{Kind: apierror.Internal,
				Reason: "the answer does not match the document: " + strings.Join(problems, "; ")})
			return
		}
	}
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	if body != nil {
		// Both values in one allocation, on every answer with a body
		// (the keys are in canonical form, as Set would write them).
		vals := []string{mediaType, strconv.Itoa(len(body))}
		h["Content-Type"], h["Content-Length"] = vals[0:1:1], vals[1:2:2]
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
// routed to; a call routed nowhere (a download) is not checked.
func (c *call) checkAnswer(resp *handler.Response, body []byte, mediaType string) []string {
	op := c.op.Load()
	if c.api == nil || op == nil {
		return nil
	}
	hr := &http.Response{StatusCode: resp.Status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body)), Request: c.r}
	if body != nil {
		hr.Header.Set("Content-Type", mediaType)
	}
	return c.api.validator.Response(c.r, op, hr)
}
