package mock

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/ratelimit"
	"github.com/wmsmock/wmsmock/profile"
)

// extensions are the calls the service answers beyond its schema
// (mock/extension), with the signer of the session tokens they hand out.
type extensions struct {
	sessions *auth.Sessions
	server   *extension.Server
}

// setupExtensions makes the signer (its key from the seed, so replicas of
// one fake read each other's sessions), lets the token check take its
// access tokens, and has sign-ins speak for the dev token.
func (s *Server) setupExtensions(cfg settings) error {
	s.ext.sessions = auth.NewSessions(cfg.seed)
	s.authOptions = append(s.authOptions, auth.WithSessions(s.ext.sessions))
	dev, ok, err := s.backend.Tokens().Lookup(DevToken)
	if err != nil {
		return err
	}
	var devID int64
	if ok {
		devID = dev.ID
	}
	s.ext.server = extension.New(s.ext.sessions, s.profile.Extensions, extension.SignInAs(devID))
	return nil
}

// extensionFor is the extension route a call that no operation of the
// document matched addresses, if any.
func (s *Server) extensionFor(r *http.Request, a *api) *extension.Route {
	path, ok := a.below(r)
	if !ok {
		return nil
	}
	route, _ := extension.Match(r.Method, path)
	return route
}

// strictAny reports either strict mode: answers checked against the
// document, or requests held to it.
func (s *Server) strictAny() bool { return s.strict || s.profile.Requests.Strict }

// serveExtension answers a call to a route beyond the schema, which
// serveAPI has authenticated and counted. Strict mode and a profile
// switch turned off refuse it as the unknown route it is to the
// document; the journal names the route either way.
func (s *Server) serveExtension(r *http.Request, a *api, route *extension.Route, tok auth.Token, now time.Time,
	prog *progress, decision ratelimit.Decision) (*handler.Response, error) {
	prog.extension = route.Name
	switch {
	case s.strictAny():
		return nil, apierror.Forbiddenf("%s %s is %s, a call beyond the published schema: strict mode refuses it", r.Method, r.URL.Path, route.Name).
			WithReply(s.profile.UnknownRoute)
	case !extension.On(route, &s.profile.Extensions):
		return nil, apierror.Forbiddenf("%s %s is %s, a call beyond the published schema: extensions.%s is off in the profile", r.Method, r.URL.Path, route.Name, route.Switch).
			WithReply(s.profile.UnknownRoute)
	}
	prog.at(stageInput)
	body, bodyErr := readBody(r, s.bodyLimit)
	if bodyErr != nil {
		return nil, bodyErr.WithReply(s.profile.BodyLimit.Reject)
	}
	prog.at(stageAnswer)
	resp, err := s.ext.server.Serve(route, &extension.Call{HTTP: r, Body: body, Token: tok, Now: now, BaseURL: baseURL(r, a.basePath)})
	if err != nil {
		return nil, err
	}
	s.setRateHeaders(resp, decision, now)
	return resp, nil
}

// extensionAuthReply is how a route beyond the schema refuses a call
// without a usable token, when it has its own way (the license route's
// 401) and is served; ok is false when the profile's auth replies apply,
// as they do to a route strict mode or the profile turns away.
func (s *Server) extensionAuthReply(route *extension.Route) (profile.Reply, bool) {
	if route == nil || route.Unauthorized == 0 || s.strictAny() || !extension.On(route, &s.profile.Extensions) {
		return profile.Reply{}, false
	}
	return profile.Reply{Status: route.Unauthorized, Body: profile.BodyEmpty}, true
}

// baseURL is the API's base as the caller reached it.
func baseURL(r *http.Request, basePath string) string { return handler.Origin(r) + basePath }

// NewSession implements control.SessionBackend.
func (a admin) NewSession() (access, refresh string, expires time.Time, err error) {
	s := a.s
	switch {
	case s.strictAny():
		return "", "", time.Time{}, errors.New("strict mode refuses the session refresh (a call beyond the published schema), so a session could never be renewed")
	case !s.profile.Extensions.RefreshToken:
		return "", "", time.Time{}, errors.New("extensions.refresh_token is off in the profile, so a session could never be renewed")
	}
	dev, ok, err := s.backend.Tokens().Lookup(DevToken)
	if err != nil || !ok {
		return "", "", time.Time{}, fmt.Errorf("the dev token is not held (%v)", err)
	}
	now := s.clock.Now()
	ses := s.ext.server.NewSession(dev.ID, now)
	return ses.Access, ses.Refresh, now.Add(ses.ExpiresIn), nil
}
