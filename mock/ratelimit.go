package mock

import (
	"net/http"
	"strconv"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
)

// rateHeaders are the conventional headers clients already know how to wait
// on; the service documents none, so sending them is the profile's choice.
func (s *Server) rateHeaders(d ratelimit.Decision, now time.Time) http.Header {
	if d.Limit == 0 || !s.profile.RateLimit.Headers {
		return nil
	}
	reset := d.ResetUnix()
	if reset < now.Unix() {
		reset = now.Unix()
	}
	// Keys are written in canonical form, as Header.Set would store them;
	// this runs on every accepted call.
	h := make(http.Header, 4)
	h["X-Ratelimit-Limit"] = []string{strconv.Itoa(d.Limit)}
	h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(d.Remaining)}
	h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(reset, 10)}
	if !d.Allowed {
		h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfterSeconds(), 10)}
	}
	return h
}

func (s *Server) tooManyRequests(d ratelimit.Decision, now time.Time) error {
	e := &apierror.Error{Kind: apierror.TooManyRequests, Header: s.rateHeaders(d, now),
		Reason: "over the rate limit of " + strconv.Itoa(d.Limit) + " calls"}
	return e.WithReply(s.profile.RateLimit.Reject)
}

func (s *Server) setRateHeaders(resp *handler.Response, d ratelimit.Decision, now time.Time) {
	h := s.rateHeaders(d, now)
	if len(h) == 0 {
		return
	}
	if resp.Header == nil {
		resp.Header = h
		return
	}
	for k, v := range h {
		resp.Header[k] = v
	}
}
