package mock

import (
	"strings"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// selectVersion finds, up front, the served version the call asks for with
// Accept-Version; absent means the profile's default (CONTRACT V1). A
// version not served is refused at its stage, checkVersion.
func (c *call) selectVersion() {
	s := c.s
	v := strings.TrimSpace(c.r.Header.Get("Accept-Version"))
	if v == "" {
		v = s.profile.Versions.Default
	}
	a, ok := s.versions.get(v)
	if !ok && s.profile.Versions.UnservedAsDefault {
		a, ok = s.versions.get(s.profile.Versions.Default)
	}
	if !ok {
		c.versionErr = apierror.BadRequestf("Accept-Version %q is not served (served: %s)", v,
			strings.Join(s.versions.names, ", ")).WithReply(s.profile.Versions.Unserved)
		return
	}
	c.api = a
}

// checkVersion is the version stage: a call for a version the fake does
// not serve is a Bad Request.
func (c *call) checkVersion() (*handler.Response, error) {
	return nil, c.versionErr
}
