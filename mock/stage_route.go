package mock

import (
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/profile"
)

// match finds, up front, the operation the call addresses in its version
// (api.match), or else the route beyond the schema it addresses, if any
// (mock/extension).
func (c *call) match() {
	if c.api == nil {
		return
	}
	var routed bool
	if c.matched, c.vars, routed = c.api.match(c.r); routed {
		return
	}
	c.matched = nil
	if path, ok := c.api.below(c.r); ok {
		c.ext, _ = extension.Match(c.r.Method, path)
	}
}

// checkRoute is the route stage: an unknown path or method is a 403, like
// the service (A4), which the profile may answer the two apart; a call
// beyond the schema is answered here (serveExtension).
func (c *call) checkRoute() (*handler.Response, error) {
	if c.matched == nil {
		if c.ext != nil {
			return c.serveExtension()
		}
		return nil, c.api.unrouted(c.r, c.s.profile)
	}
	c.op.Store(c.matched)
	return nil, nil
}

// serveExtension answers a call to a route beyond the schema, which the
// stages before have authenticated and counted. Strict mode and a profile
// switch turned off refuse it as the unknown route it is to the document;
// the journal names the route either way.
func (c *call) serveExtension() (*handler.Response, error) {
	s, r, route := c.s, c.r, c.ext
	c.extension = route.Name
	switch {
	case s.strictAny():
		return nil, apierror.Forbiddenf("%s %s is %s, a call beyond the published schema: strict mode refuses it", r.Method, r.URL.Path, route.Name).
			WithReply(s.profile.UnknownRoute)
	case !extension.On(route, &s.profile.Extensions):
		return nil, apierror.Forbiddenf("%s %s is %s, a call beyond the published schema: extensions.%s is off in the profile", r.Method, r.URL.Path, route.Name, route.Switch).
			WithReply(s.profile.UnknownRoute)
	}
	c.at(stageInput)
	body, err := readBody(r, s.bodyLimit) // stage_input.go
	if err != nil {
		return nil, err.WithReply(s.profile.BodyLimit.Reject)
	}
	c.at(stageAnswer)
	return s.ext.server.Serve(route, &extension.Call{HTTP: r, Body: body, Token: c.tok, Now: c.now,
		BaseURL: handler.Origin(r) + c.api.basePath})
}

// extensionAuthReply is how a route beyond the schema refuses a call
// without a usable token, when it has its own way (the license route's
// 401) and is served; ok is false when the profile's auth replies apply,
// as they do to a route strict mode or the profile turns away.
func (c *call) extensionAuthReply() (profile.Reply, bool) {
	s, route := c.s, c.ext
	if route == nil || route.Unauthorized == 0 || s.strictAny() || !extension.On(route, &s.profile.Extensions) {
		return profile.Reply{}, false
	}
	return profile.Reply{Status: route.Unauthorized, Body: profile.BodyEmpty}, true
}
