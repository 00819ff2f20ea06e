// Package extension answers the calls the service makes beyond its
// published schema, which its own clients depend on: the OpenID Connect
// sign-in Nextflow's "auth login" goes through, the Fusion license token a
// Fusion-enabled run asks for, and the refresh of a launched run's session.
// No OpenAPI document describes them, so they cannot be driven by one; each
// is a fixed route here, with the public evidence that the service answers
// it, and the behaviour profile turns each on or off (extensions:). The
// server refuses them all in strict mode.
//
// Their tokens are the fake's signed session tokens (auth.Sessions): a
// sign-in or a refresh yields a JWT that the fake then takes as an access
// token until it expires on the fake's clock, and a refresh token, both
// costing nothing to keep.
package extension

import (
	"net/http"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/profile"
)

// Route is one call beyond the schema.
type Route struct {
	// Name is how the request journal, the docs and calibrate name it.
	Name string
	// Switch is its key under the profile's extensions section.
	Switch string
	Method string
	// Path is below the API's base path, as the clients build it from
	// their endpoint.
	Path string
	// Open routes are answered without a token, as the service answers
	// them (a sign-in comes before any token; a refresh carries only its
	// refresh token).
	Open bool
	// Unauthorized, when set, refuses a call without a usable token with
	// this status instead of the profile's auth replies: the license
	// endpoint's client reads 401 as a bad token.
	Unauthorized int
	// Evidence names the public source that shows the service answering
	// it, and what its client sends and reads.
	Evidence string
}

// The routes, in the order the docs list them.
var routes = []Route{
	{Name: "openid-configuration", Switch: "openid", Method: http.MethodGet, Path: "/.well-known/openid-configuration", Open: true,
		Evidence: "Nextflow's auth login (plugin nf-tower AuthCommandImpl, libseqera lib-platform-oidc OidcDiscovery) reads authorization_endpoint and token_endpoint from it, below the API endpoint"},
	{Name: "oauth-authorize", Switch: "openid", Method: http.MethodGet, Path: "/oauth/authorize", Open: true,
		Evidence: "lib-platform-oidc OidcLoginFlow opens it in a browser with client_id, response_type=code, scope, redirect_uri (127.0.0.1), state, code_challenge and code_challenge_method=S256, and waits for the redirect with code and state"},
	{Name: "oauth-token", Switch: "openid", Method: http.MethodPost, Path: "/oauth/token", Open: true,
		Evidence: "lib-platform-oidc OidcTokenExchange posts grant_type=authorization_code, client_id, code, code_verifier and redirect_uri as a form and reads access_token"},
	{Name: "license-token", Switch: "license_token", Method: http.MethodPost, Path: "/license/token/", Unauthorized: http.StatusUnauthorized,
		Evidence: "Nextflow's TowerFusionToken (plugin nf-tower) posts {product, version, workflowId, workspaceId} for a Fusion-enabled run, reads signedToken and expiresAt, and takes 401 as an invalid access token"},
	{Name: "refresh-token", Switch: "refresh_token", Method: http.MethodPost, Path: "/oauth/access_token", Open: true,
		Evidence: "Nextflow's TowerClient and TowerXAuth (plugin nf-tower), through libseqera's HxClient, post grant_type=refresh_token&refresh_token= on a 401 when TOWER_REFRESH_TOKEN is set, and read the new tokens from the cookies JWT and JWT_REFRESH_TOKEN"},
}

// Routes lists every route beyond the schema, for documentation and for
// calibrate's list of what it does not probe.
func Routes() []Route { return append([]Route(nil), routes...) }

// Match finds the route a call addresses, path being below the API's base
// path. A route written without a trailing slash also answers with one,
// and one written with it also answers without, as the service's
// framework matches paths.
func Match(method, path string) (*Route, bool) {
	for i := range routes {
		r := &routes[i]
		if r.Method == method && strings.TrimSuffix(r.Path, "/") == strings.TrimSuffix(path, "/") && !strings.HasSuffix(path, "//") {
			return r, true
		}
	}
	return nil, false
}

// On reports whether the profile's switch for r is on.
func On(r *Route, p *profile.Extensions) bool {
	switch r.Switch {
	case "openid":
		return p.OpenID
	case "license_token":
		return p.LicenseToken
	case "refresh_token":
		return p.RefreshToken
	}
	return false
}

// Call is a call to a route, as the server's pipeline passed it on.
type Call struct {
	HTTP *http.Request
	Body []byte
	// Token is the caller's access token; its ID is zero on an open
	// route called without one.
	Token auth.Token
	Now   time.Time
	// BaseURL is the API's base as the caller reached it
	// (http://127.0.0.1:8080/api), for the addresses a discovery
	// document gives.
	BaseURL string
}

// Server answers the routes.
type Server struct {
	sessions *auth.Sessions
	cfg      profile.Extensions
	// signInToken is the access token a sign-in speaks for: the seeded
	// user's own (the fake's dev token).
	signInToken int64
}

// Option configures a Server.
type Option func(*Server)

// SignInAs makes sign-ins speak for the stored token tokenID.
func SignInAs(tokenID int64) Option { return func(s *Server) { s.signInToken = tokenID } }

// New returns a Server that signs with sessions, with the lifetimes of cfg.
func New(sessions *auth.Sessions, cfg profile.Extensions, opts ...Option) *Server {
	s := &Server{sessions: sessions, cfg: cfg}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Serve answers c, a call to r. The OAuth routes answer their errors in
// OAuth's own shape, as values; the license route's Bad Request is an
// error, answered as the service's others are.
func (s *Server) Serve(r *Route, c *Call) (*handler.Response, error) {
	switch r.Name {
	case "openid-configuration":
		return s.discovery(c), nil
	case "oauth-authorize":
		return s.authorize(c), nil
	case "oauth-token":
		return s.token(c), nil
	case "license-token":
		return s.license(c)
	case "refresh-token":
		return s.refresh(c), nil
	}
	return nil, apierror.Forbiddenf("no extension %s", r.Name)
}
