package mock

import (
	"net/http"
	"strconv"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/profile"
)

// rateHeaders are the headers of a rate-limited answer: Retry-After on a
// refusal, as the service sends it, and the conventional X-RateLimit-*
// ones on every answer when the profile asks for them (the service
// documents none and was not seen to send them).
func (s *Server) rateHeaders(d ratelimit.Decision, now time.Time) http.Header {
	if d.Limit == 0 {
		return nil
	}
	h := make(http.Header, 4)
	// Keys are written in canonical form, as Header.Set would store them;
	// this runs on every accepted call when the profile asks for them.
	if !d.Allowed {
		h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfterSeconds(), 10)}
	}
	if s.profile.RateLimit.Headers {
		reset := d.ResetUnix()
		if reset < now.Unix() {
			reset = now.Unix()
		}
		h["X-Ratelimit-Limit"] = []string{strconv.Itoa(d.Limit)}
		h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(d.Remaining)}
		h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(reset, 10)}
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

func (s *Server) tooManyRequests(d ratelimit.Decision, now time.Time) error {
	e := &apierror.Error{Kind: apierror.TooManyRequests, Header: s.rateHeaders(d, now),
		Reason: "over the rate limit of " + strconv.Itoa(d.Limit) + " calls",
		Values: map[string]string{profile.PlaceRetryAfter: strconv.FormatInt(d.RetryAfterSeconds(), 10)}}
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
