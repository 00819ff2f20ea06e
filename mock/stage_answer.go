package mock

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/internal/fnv1a"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// answer is the last stage: the answer an override pins
// (stage_faults.go), else the service's own behaviour where it has some,
// otherwise a body synthesized from the document (api.handle). The
// handler gets the body as the leniency stage read it.
func (c *call) answer() (*handler.Response, error) {
	r, a := c.r, c.api
	req := &handler.Request{
		HTTP: r, Version: a.version, Op: c.matched, PathParams: c.vars, Query: c.query,
		Body: c.body, Decoded: c.decoded, TokenID: c.tok.ID, Now: c.now, Key: requestKey(r, c.query, a.basePath, c.body),
	}
	resp, err := c.pinnedAnswer(req)
	if resp == nil && err == nil {
		resp, err = handleWithin(a, req)
	}
	return resp, err
}

// handleWithin runs the operation's handler. A handler given with
// WithHandler may never look at its context, so it runs on a goroutine of
// its own and the answer does not wait for it past the call's deadline;
// the answer is still written only by the call's goroutine, so the late
// work cannot touch the response.
func handleWithin(a *api, req *handler.Request) (*handler.Response, error) {
	ctx := req.HTTP.Context()
	if !a.external[req.Op] || ctx.Done() == nil {
		return a.handle(req)
	}
	type outcome struct {
		resp *handler.Response
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{err: &apierror.Error{Kind: apierror.Internal, Reason: fmt.Sprintf("panic: %v", v)}}
			}
		}()
		resp, err := a.handle(req)
		done <- outcome{resp, err}
	}()
	select {
	case o := <-done:
		return o.resp, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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
