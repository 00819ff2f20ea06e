package nfcli

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"
)

// What follows replays, over real HTTP, the calls Nextflow makes with a
// session rather than a personal access token: "nextflow auth login"
// (AuthCommandImpl.performOidcLogin with libseqera's lib-platform-oidc:
// OidcDiscovery, OidcLoginFlow, OidcCallbackServer, OidcTokenExchange),
// a Fusion license (TowerFusionToken.getLicenseToken) and the refresh of a
// launched run's JWT on a 401 (libseqera's HxClient and HxTokenManager as
// TowerClient sets them up; TowerXAuth for the same over cookies).

// ClientID is the OpenID client Nextflow signs in as.
const ClientID = "nextflow_cli"

// LoginResult is what "nextflow auth login" ends with.
type LoginResult struct {
	// AccessToken is the sign-in's token; UserName whom /user-info names
	// with it; PAT the personal access token it then created and would
	// save to its configuration.
	AccessToken string
	UserName    string
	PAT         string
}

// Login signs in at endpoint (the API's base URL) as the command does: it
// discovers the endpoints, starts a callback server on 127.0.0.1, has
// browse open the authorization address (a user's browser; a test gives
// an HTTP client that follows redirects), exchanges the code with its
// PKCE verifier, reads /user-info with the new token and creates a
// personal access token with it.
func Login(endpoint string, browse func(string) error) (LoginResult, error) {
	var res LoginResult
	hc := &http.Client{Timeout: 10 * time.Second}
	// OidcDiscovery: below the API endpoint, no token; 200 or the login
	// fails; both endpoints must be there.
	disc, err := getJSON(hc, strings.TrimSuffix(endpoint, "/")+"/.well-known/openid-configuration", "")
	if err != nil {
		return res, fmt.Errorf("OIDC discovery: %w", err)
	}
	authz, _ := disc["authorization_endpoint"].(string)
	tokenURL, _ := disc["token_endpoint"].(string)
	if authz == "" || tokenURL == "" {
		return res, fmt.Errorf("OIDC discovery: authorization_endpoint or token_endpoint missing: %v", disc)
	}
	// PkceUtil: a random verifier, its S256 challenge, a random state.
	verifier, state := random(32), random(16)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])

	// OidcCallbackServer: 127.0.0.1 on a free port, path /callback; an
	// error parameter, a state that differs or no code fail the login.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	redirect := "http://" + ln.Addr().String() + "/callback"
	codes := make(chan string, 1)
	fails := make(chan error, 1)
	cb := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case r.URL.Path != "/callback":
			http.NotFound(w, r)
			return
		case q.Get("error") != "":
			fails <- fmt.Errorf("authentication error: %s (%s)", q.Get("error"), q.Get("error_description"))
		case q.Get("state") != state:
			fails <- errors.New("OAuth state mismatch")
		case q.Get("code") == "":
			fails <- errors.New("callback missing authorization code")
		default:
			codes <- q.Get("code")
		}
		_, _ = io.WriteString(w, "<html><body>You can close this window.</body></html>")
	})}
	go func() { _ = cb.Serve(ln) }()
	defer cb.Close()

	q := url.Values{"client_id": {ClientID}, "response_type": {"code"}, "scope": {"openid profile email offline_access"},
		"redirect_uri": {redirect}, "state": {state}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	sep := "?"
	if strings.Contains(authz, "?") {
		sep = "&"
	}
	if err := browse(authz + sep + q.Encode()); err != nil {
		return res, fmt.Errorf("opening the authorization address: %w", err)
	}
	var code string
	select {
	case code = <-codes:
	case err := <-fails:
		return res, err
	case <-time.After(10 * time.Second):
		return res, errors.New("no callback within 10s")
	}

	// OidcTokenExchange: a form post; 200 with access_token or it fails.
	form := url.Values{"grant_type": {"authorization_code"}, "client_id": {ClientID}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {redirect}}
	tok, err := postForm(hc, tokenURL, form)
	if err != nil {
		return res, fmt.Errorf("token exchange: %w", err)
	}
	if res.AccessToken, _ = tok["access_token"].(string); res.AccessToken == "" {
		return res, fmt.Errorf("token exchange: no access_token: %v", tok)
	}
	// getUserInfo, then generatePAT: POST /tokens {name} with the new
	// token; 200 and accessKey or the login fails.
	info, err := getJSON(hc, endpoint+"/user-info", res.AccessToken)
	if err != nil {
		return res, fmt.Errorf("user-info: %w", err)
	}
	user, _ := info["user"].(map[string]any)
	res.UserName, _ = user["userName"].(string)
	created, status, err := sendJSON(hc, http.MethodPost, endpoint+"/tokens", res.AccessToken, map[string]any{"name": "nextflow-auth-wmsmock-" + random(4)})
	if err != nil || status != http.StatusOK {
		return res, fmt.Errorf("generating the PAT: HTTP %d %v %v", status, created, err)
	}
	res.PAT, _ = created["accessKey"].(string)
	if res.PAT == "" {
		return res, fmt.Errorf("generating the PAT: no accessKey: %v", created)
	}
	return res, nil
}

// Session is Nextflow's HTTP client for a run the service launched: a JWT
// and a refresh token (TOWER_ACCESS_TOKEN, TOWER_REFRESH_TOKEN), renewed
// through {endpoint}/oauth/access_token when a call answers 401, then the
// call made once more. The new tokens are read from the cookies JWT and
// JWT_REFRESH_TOKEN, else from access_token and refresh_token in the body.
type Session struct {
	Endpoint string
	Access   string
	Refresh  string
	// Refreshes counts the renewals made.
	Refreshes int
	jar       *cookiejar.Jar
	hc        *http.Client
}

// NewSession returns a client holding the pair.
func NewSession(endpoint, access, refresh string) *Session {
	jar, _ := cookiejar.New(nil)
	return &Session{Endpoint: strings.TrimSuffix(endpoint, "/"), Access: access, Refresh: refresh, jar: jar,
		hc: &http.Client{Timeout: 10 * time.Second, Jar: jar}}
}

// Send makes a JSON call with the session's token (Bearer: it has a
// JWT's form), renewing it once on a 401.
func (s *Session) Send(method, path string, body any) (map[string]any, int, error) {
	out, status, err := sendJSON(s.hc, method, s.Endpoint+path, s.Access, body)
	if err != nil || status != http.StatusUnauthorized || s.Refresh == "" || strings.Count(s.Access, ".") != 2 {
		return out, status, err
	}
	if err := s.renew(); err != nil {
		return out, status, err
	}
	return sendJSON(s.hc, method, s.Endpoint+path, s.Access, body)
}

// renew is HxTokenManager's refresh.
func (s *Session) renew() error {
	req, _ := http.NewRequest(http.MethodPost, s.Endpoint+"/oauth/access_token",
		strings.NewReader("grant_type=refresh_token&refresh_token="+url.QueryEscape(s.Refresh)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("refresh: HTTP %d %.200s", resp.StatusCode, raw)
	}
	s.Refreshes++
	u, _ := url.Parse(s.Endpoint)
	var access, refresh string
	for _, c := range s.jar.Cookies(u) {
		switch c.Name {
		case "JWT":
			access = c.Value
		case "JWT_REFRESH_TOKEN":
			refresh = c.Value
		}
	}
	if access == "" {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		access, _ = m["access_token"].(string)
		refresh, _ = m["refresh_token"].(string)
	}
	if access == "" {
		return errors.New("refresh: no JWT cookie and no access_token")
	}
	s.Access = access
	if refresh != "" {
		s.Refresh = refresh
	}
	return nil
}

// License is what TowerFusionToken keeps of a license answer.
type License struct {
	SignedToken string
	ExpiresAt   time.Time
}

// FusionLicense is TowerFusionToken.getLicenseToken through the session:
// POST {endpoint}/license/token/ with product, version ("unknown" when
// not set), workflowId and workspaceId (text, or null); 200 is parsed
// (expiresAt with Instant.parse), 401 is an invalid token, anything else a
// bad response.
func (s *Session) FusionLicense(product, version, workflowID, workspaceID string) (License, error) {
	if version == "" {
		version = "unknown"
	}
	body := map[string]any{"product": product, "version": version, "workflowId": nullable(workflowID), "workspaceId": nullable(workspaceID)}
	out, status, err := s.Send(http.MethodPost, "/license/token/", body)
	switch {
	case err != nil:
		return License{}, err
	case status == http.StatusUnauthorized:
		return License{}, errors.New("Unauthorized [401] - the access token is not valid")
	case status != http.StatusOK:
		return License{}, fmt.Errorf("invalid response: HTTP %d %v", status, out)
	}
	signed, _ := out["signedToken"].(string)
	exp, _ := out["expiresAt"].(string)
	at, err := time.Parse(time.RFC3339Nano, exp)
	if err != nil || signed == "" {
		return License{}, fmt.Errorf("license answer: signedToken %q, expiresAt %q (%v)", signed, exp, err)
	}
	return License{SignedToken: signed, ExpiresAt: at}, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func getJSON(hc *http.Client, u, token string) (map[string]any, error) {
	out, status, err := sendJSON(hc, http.MethodGet, u, token, nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d %v", status, out)
	}
	return out, err
}

func postForm(hc *http.Client, u string, form url.Values) (map[string]any, error) {
	resp, err := hc.PostForm(u, form)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decodeAnswer(resp)
}

func sendJSON(hc *http.Client, method, u, token string, body any) (map[string]any, int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return nil, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	out, err := decodeAnswer(resp)
	if resp.StatusCode/100 != 2 {
		err = nil // the status says it; the body may be empty
	}
	return out, resp.StatusCode, err
}

func decodeAnswer(resp *http.Response) (map[string]any, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return map[string]any{"status": resp.StatusCode, "body": string(raw)}, fmt.Errorf("HTTP %d %.200s", resp.StatusCode, raw)
	}
	m := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("not a JSON object: %.200s", raw)
		}
	}
	return m, nil
}
