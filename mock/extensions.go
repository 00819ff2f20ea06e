package mock

import (
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/extension"
	"github.com/wmsmock/wmsmock/profile"
)

// extensions are the calls the service answers beyond its schema
// (mock/extension), with the signer of the session tokens they hand out.
// A call reaches them at the route stage (stage_route.go).
type extensions struct {
	sessions *auth.Sessions
	server   *extension.Server
}

// newExtensions makes the signer (its key from the seed, so replicas of
// one fake read each other's sessions) and has sign-ins speak for the dev
// token, held as tokens says. The token check takes the signer's access
// tokens through sessions.
func newExtensions(seed int64, tokens auth.Store, p profile.Extensions) (extensions, error) {
	sessions := auth.NewSessions(seed)
	dev, ok, err := tokens.Lookup(auth.DevToken)
	if err != nil {
		return extensions{}, err
	}
	var devID int64
	if ok {
		devID = dev.ID
	}
	return extensions{sessions: sessions, server: extension.New(sessions, p, extension.SignInAs(devID))}, nil
}
