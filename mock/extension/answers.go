package extension

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/handler"
)

// discovery is the OpenID Connect discovery document: enough for a client
// to find where to sign in and where to exchange the code. Endpoints are
// absolute, under the base the client called.
func (s *Server) discovery(c *Call) *handler.Response {
	return handler.JSON(http.StatusOK, map[string]any{
		"issuer":                                c.BaseURL,
		"authorization_endpoint":                c.BaseURL + "/oauth/authorize",
		"token_endpoint":                        c.BaseURL + "/oauth/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"HS256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
	})
}

// authorize stands in for the service's sign-in page: there is no one to
// ask, so every well-formed request is approved at once as the seeded user
// and sent back to the client's loopback redirect with a code. The code is
// a signed token holding the PKCE challenge and the redirect address, so
// the exchange can check both without a store.
//
// A request whose redirect address cannot be trusted (not http on a
// loopback host, as native clients listen) is answered here, never
// redirected: the fake must not send a browser elsewhere.
func (s *Server) authorize(c *Call) *handler.Response {
	q := c.HTTP.URL.Query()
	redirect := q.Get("redirect_uri")
	if !loopback(redirect) {
		return oauthError(http.StatusBadRequest, "invalid_request", "redirect_uri must be an http address on a loopback host (127.0.0.1, ::1 or localhost)")
	}
	back := func(values url.Values) *handler.Response {
		u, _ := url.Parse(redirect) // loopback parsed it
		all := u.Query()
		for k, v := range values {
			all[k] = v
		}
		if st := q.Get("state"); st != "" {
			all.Set("state", st)
		}
		u.RawQuery = all.Encode()
		return &handler.Response{Status: http.StatusFound, Header: http.Header{"Location": {u.String()}}}
	}
	fail := func(code, why string) *handler.Response {
		return back(url.Values{"error": {code}, "error_description": {why}})
	}
	switch {
	case q.Get("response_type") != "code":
		return fail("unsupported_response_type", "response_type must be code")
	case q.Get("client_id") == "":
		return fail("invalid_request", "client_id is required")
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) < 43:
		return fail("invalid_request", "a code_challenge of 43 or more characters with code_challenge_method=S256 is required")
	}
	code := s.sessions.Mint(auth.Claims{Kind: auth.KindCode, TokenID: s.signInToken, Values: map[string]string{
		"challenge": q.Get("code_challenge"), "redirect": redirect, "client": q.Get("client_id"), "scope": q.Get("scope"),
	}}, c.Now, s.cfg.CodeTTL)
	return back(url.Values{"code": {code}})
}

// loopback reports whether raw is an http URL on a loopback host.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// token exchanges an authorization code (with its PKCE verifier) or a
// refresh token for a session, answered as OAuth 2.0 token endpoints
// answer (RFC 6749, section 5).
func (s *Server) token(c *Call) *handler.Response {
	form, bad := readForm(c)
	if bad != nil {
		return bad
	}
	switch form.Get("grant_type") {
	case "authorization_code":
		claims, err := s.sessions.Read(form.Get("code"), auth.KindCode, c.Now)
		switch {
		case err != nil:
			return oauthError(http.StatusBadRequest, "invalid_grant", "the code is not one this server issued, or it has expired")
		case form.Get("redirect_uri") != claims.Values["redirect"]:
			return oauthError(http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the one the code was issued for")
		case form.Get("client_id") != claims.Values["client"]:
			return oauthError(http.StatusBadRequest, "invalid_grant", "client_id differs from the one the code was issued for")
		case pkceChallenge(form.Get("code_verifier")) != claims.Values["challenge"]:
			return oauthError(http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		}
		return handler.JSON(http.StatusOK, s.session(claims, c.Now, claims.Values["scope"]).body())
	case "refresh_token":
		claims, ok := s.readRefresh(form.Get("refresh_token"), c.Now)
		if !ok {
			return oauthError(http.StatusBadRequest, "invalid_grant", "the refresh token is not one this server issued, or it has expired")
		}
		return handler.JSON(http.StatusOK, s.session(claims, c.Now, "").body())
	}
	return oauthError(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
}

// refresh is the session refresh a run the service launched makes: the
// new access and refresh tokens go out as the cookies its client reads,
// and as a JSON body too, which the same client's newer code reads.
func (s *Server) refresh(c *Call) *handler.Response {
	form, bad := readForm(c)
	if bad != nil {
		return bad
	}
	if form.Get("grant_type") != "refresh_token" {
		return oauthError(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be refresh_token")
	}
	claims, ok := s.readRefresh(form.Get("refresh_token"), c.Now)
	if !ok {
		return oauthError(http.StatusBadRequest, "invalid_grant", "the refresh token is not one this server issued, or it has expired")
	}
	ses := s.session(claims, c.Now, "")
	resp := handler.JSON(http.StatusOK, ses.body())
	resp.Header = http.Header{}
	for _, ck := range []*http.Cookie{
		{Name: "JWT", Value: ses.Access, Path: "/", HttpOnly: true, MaxAge: int(s.cfg.AccessTTL / time.Second)},
		{Name: "JWT_REFRESH_TOKEN", Value: ses.Refresh, Path: "/", HttpOnly: true, MaxAge: int(s.cfg.RefreshTTL / time.Second)},
	} {
		resp.Header.Add("Set-Cookie", ck.String())
	}
	return resp
}

func (s *Server) readRefresh(value string, now time.Time) (auth.Claims, bool) {
	claims, err := s.sessions.Read(value, auth.KindRefresh, now)
	return claims, err == nil
}

// Session is an access token and the refresh token that renews it.
type Session struct {
	Access    string
	Refresh   string
	ExpiresIn time.Duration
}

func (ses Session) body() map[string]any {
	return map[string]any{
		"access_token": ses.Access, "refresh_token": ses.Refresh,
		"token_type": "Bearer", "expires_in": int64(ses.ExpiresIn / time.Second),
	}
}

// session mints a new pair for whoever from speaks for.
func (s *Server) session(from auth.Claims, now time.Time, scope string) Session {
	base := auth.Claims{TokenID: from.TokenID}
	if scope != "" {
		base.Values = map[string]string{"scope": scope}
	}
	access, refresh := base, base
	access.Kind, refresh.Kind = auth.KindAccess, auth.KindRefresh
	return Session{
		Access:    s.sessions.Mint(access, now, s.cfg.AccessTTL),
		Refresh:   s.sessions.Mint(refresh, now, s.cfg.RefreshTTL),
		ExpiresIn: s.cfg.AccessTTL,
	}
}

// NewSession mints a session speaking for the stored token tokenID: what
// the service gives a run it launches (TOWER_ACCESS_TOKEN and
// TOWER_REFRESH_TOKEN), for the control API to hand to a Nextflow started
// by hand as if the service had started it.
func (s *Server) NewSession(tokenID int64, now time.Time) Session {
	return s.session(auth.Claims{TokenID: tokenID}, now, "")
}

// license is a Fusion license token for the product asked for, signed and
// good for the profile's license_ttl on the fake's clock.
func (s *Server) license(c *Call) (*handler.Response, error) {
	var req struct {
		Product     *string `json:"product"`
		Version     *string `json:"version"`
		WorkflowID  any     `json:"workflowId"`
		WorkspaceID any     `json:"workspaceId"`
	}
	if err := json.Unmarshal(c.Body, &req); err != nil {
		return nil, apierror.BadRequestf("license token: the body is not a JSON object of product, version, workflowId and workspaceId: %v", err)
	}
	if req.Product == nil || strings.TrimSpace(*req.Product) == "" {
		return nil, apierror.BadRequestf("license token: product is required")
	}
	values := map[string]string{"product": *req.Product}
	if req.Version != nil {
		values["version"] = *req.Version
	}
	for k, v := range map[string]any{"workflowId": req.WorkflowID, "workspaceId": req.WorkspaceID} {
		switch v := v.(type) {
		case string:
			values[k] = v
		case float64: // Nextflow sends text; a number names the same id
			values[k] = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	expires := c.Now.Add(s.cfg.LicenseTTL).UTC().Truncate(time.Second)
	signed := s.sessions.Mint(auth.Claims{Kind: auth.KindLicense, TokenID: c.Token.ID, Values: values}, c.Now, s.cfg.LicenseTTL)
	return handler.JSON(http.StatusOK, map[string]any{"signedToken": signed, "expiresAt": expires.Format(time.RFC3339)}), nil
}

// readForm reads an application/x-www-form-urlencoded body, as OAuth
// endpoints take their parameters.
func readForm(c *Call) (url.Values, *handler.Response) {
	mt, _, err := mime.ParseMediaType(c.HTTP.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, oauthError(http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	form, err := url.ParseQuery(string(c.Body))
	if err != nil {
		return nil, oauthError(http.StatusBadRequest, "invalid_request", "the form cannot be decoded: "+err.Error())
	}
	return form, nil
}

// pkceChallenge is the S256 challenge of a verifier (RFC 7636, 4.2).
func pkceChallenge(verifier string) string {
	if verifier == "" {
		return "\x00" // matches no challenge
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oauthError is an OAuth 2.0 error answer (RFC 6749, 5.2), the shape the
// sign-in and refresh endpoints use.
func oauthError(status int, code, why string) *handler.Response {
	return handler.JSON(status, map[string]string{"error": code, "error_description": why})
}
