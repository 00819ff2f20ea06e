package mock

import (
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/profile"
)

// authenticate is the first stage: a usable Bearer token on every call,
// including operations whose document declares no security (CONTRACT A1,
// A3), unless the profile lets those through.
func (c *call) authenticate() (*handler.Response, error) {
	s := c.s
	tok, result, err := s.checker.CheckHeaders(s.backend.Tokens(), c.r.Header.Values("Authorization"), c.now)
	if err != nil {
		// A shared token store did not answer: the fake's failure, not
		// the caller's, so never a 403 and never a pass.
		return nil, &apierror.Error{Kind: apierror.Internal, Reason: "checking the token: " + err.Error()}
	}
	c.tok, c.result = tok, result
	anonymousOK := !s.profile.Auth.RequireOnUnsecured && c.matched != nil && !c.matched.Secured || c.ext != nil && c.ext.Open
	if result == auth.OK || anonymousOK {
		return nil, nil
	}
	reply := authReply(&s.profile.Auth, result)
	if own, ok := c.extensionAuthReply(); ok { // stage_route.go
		reply = own
	}
	return nil, apierror.Forbiddenf("authentication failed: %s", result).WithReply(reply)
}

// authReply is the profile's refusal for a failed bearer check.
func authReply(a *profile.Auth, r auth.Result) profile.Reply {
	switch r {
	case auth.Missing:
		return a.Missing
	case auth.BadScheme:
		return a.BadScheme
	case auth.Malformed:
		return a.Malformed
	case auth.Expired:
		return a.Expired
	case auth.Revoked:
		return a.Revoked
	case auth.SessionExpired:
		return a.SessionExpired
	}
	return a.Unknown
}
