package mock

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// readRequest is the stage that reads the query and the body: the query
// must decode (a malformed escape or a ";" separator is a Bad Request, not
// silently dropped), and the body is read once, within the size limit.
func (c *call) readRequest() (*handler.Response, error) {
	query, err := url.ParseQuery(c.r.URL.RawQuery)
	if err != nil {
		return nil, apierror.BadRequestf("%s: the query string cannot be decoded: %v", c.matched.ID, err)
	}
	body, bodyErr := readBody(c.r, c.s.bodyLimit)
	if bodyErr != nil {
		return nil, bodyErr.WithReply(c.s.profile.BodyLimit.Reject)
	}
	c.query, c.body = query, body
	return nil, nil
}

// readBody reads the whole request body, refusing one over the limit with
// a Bad Request rather than reading it all.
func readBody(r *http.Request, limit int64) ([]byte, *apierror.Error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, apierror.BadRequestf("request body of %d bytes is over the limit of %d bytes", r.ContentLength, limit)
	}
	var b []byte
	var err error
	if n := r.ContentLength; n > 0 {
		// The length is known and within the limit: one allocation, and
		// a body longer than announced is not read past it.
		b = make([]byte, n)
		var got int
		got, err = io.ReadFull(r.Body, b)
		b = b[:got]
	} else {
		b, err = io.ReadAll(io.LimitReader(r.Body, limit+1))
	}
	if err != nil {
		return nil, bodyReadError(err, len(b), r.ContentLength)
	}
	if int64(len(b)) > limit {
		return nil, apierror.BadRequestf("request body is over the limit of %d bytes", limit)
	}
	if len(b) == 0 {
		return nil, nil
	}
	return b, nil
}

// bodyReadError says why a request body could not be read, in the
// client's terms: it ended early, it did not arrive in time, or the
// connection failed.
func bodyReadError(err error, got int, announced int64) *apierror.Error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && announced > 0:
		return apierror.BadRequestf("the request body ended after %d of the %d bytes its Content-Length announced", got, announced)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return apierror.BadRequestf("the request body was not received within the request timeout (%d bytes arrived)", got)
	}
	return apierror.BadRequestf("reading the request body after %d bytes: %v", got, err)
}
