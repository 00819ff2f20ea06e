package mock

import (
	"net/http"
	"strconv"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/profile"
)

// limitRate is the rate limit stage: calls are counted per token over
// every API call (CONTRACT L1), and one over the limit is refused with
// Retry-After.
func (c *call) limitRate() (*handler.Response, error) {
	s := c.s
	key := rateKey(s.profile.RateLimit.Key, c.tok, c.result)
	decision, err := s.backend.Limiter().Decide(key)
	if hold := s.profile.RateLimit.Hold; err == nil && hold > 0 && !decision.Allowed && decision.RetryAfter <= hold {
		// The profile holds a call that would have room soon: it waits on
		// the fake's clock (bounded by the call's deadline) and is asked
		// for once more.
		if clock.Sleep(c.r.Context(), s.clock, decision.RetryAfter) == nil {
			decision, err = s.backend.Limiter().Decide(key)
		}
	}
	if err != nil {
		// Shared counters did not answer: neither a pass nor a 429.
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "counting the call: " + err.Error()}
	}
	c.decision = decision
	if !decision.Allowed {
		e := &apierror.Error{Kind: apierror.TooManyRequests, Header: c.rateHeaders(),
			Reason: "over the rate limit of " + strconv.Itoa(decision.Limit) + " calls",
			Values: map[string]string{profile.PlaceRetryAfter: strconv.FormatInt(decision.RetryAfterSeconds(), 10)}}
		return nil, e.WithReply(s.profile.RateLimit.Reject)
	}
	return nil, nil
}

// rateKey is what calls are counted under: the token, or the user when the
// profile says so (every token the fake holds is its one user's), and one
// shared key for the calls the profile lets through without a token.
func rateKey(by string, tok auth.Token, result auth.Result) string {
	switch {
	case result != auth.OK:
		return "anonymous"
	case by == profile.KeyUser:
		return "user"
	}
	return strconv.FormatInt(tok.ID, 10)
}

// rateHeaders are the headers of a rate-limited answer: Retry-After on a
// refusal, as the service sends it, and the conventional X-RateLimit-*
// ones on every answer when the profile asks for them (the service
// documents none and was not seen to send them).
func (c *call) rateHeaders() http.Header {
	d := c.decision
	if d.Limit == 0 || d.Allowed && !c.s.profile.RateLimit.Headers {
		// Nothing to add, as on nearly every call: no map made.
		return nil
	}
	h := make(http.Header, 4)
	// Keys are written in canonical form, as Header.Set would store them;
	// this runs on every accepted call when the profile asks for them.
	if !d.Allowed {
		h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfterSeconds(), 10)}
	}
	if c.s.profile.RateLimit.Headers {
		reset := d.ResetUnix()
		if now := c.now.Unix(); reset < now {
			reset = now
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

// setRateHeaders adds the rate headers to an answer a stage gave.
func (c *call) setRateHeaders(resp *handler.Response) {
	h := c.rateHeaders()
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
