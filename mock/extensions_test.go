package mock_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/nfcli"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/profile"
)

// The calls beyond the published schema that Nextflow makes (mock/extension),
// replayed over real HTTP from its code (internal/nfcli): "auth login"
// through the OpenID sign-in, a Fusion license, and a launched run's
// session refreshed on a 401.

// extServer starts a fake on a loopback port, as Nextflow would reach it.
func extServer(t *testing.T, name string, opts ...mock.Option) (*mock.Server, *httptest.Server, *clock.Fake) {
	t.Helper()
	var dc = documents[0]
	for _, d := range documents {
		if d.name == name {
			dc = d
		}
	}
	srv, clk := newServer(t, dc.doc(t), opts...)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return srv, ts, clk
}

// browser opens the authorization address as a user's browser would,
// following the redirect back to the client's callback.
func browser(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// extensionsJournaled is the extension each journal entry names, oldest first.
func extensionsJournaled(t *testing.T, srv *mock.Server) []string {
	t.Helper()
	a := adminCall(t, srv.Handler(), "GET", control.AdminPrefix+"requests?n=1000", "", nil)
	var journal struct{ Requests []control.RequestEntry }
	if err := json.Unmarshal(a.body, &journal); err != nil {
		t.Fatalf("the request journal: %v: %.300s", err, a.body)
	}
	var out []string
	for _, e := range journal.Requests {
		if e.Extension != "" {
			out = append([]string{e.Extension}, out...)
		}
	}
	return out
}

// TestNextflowAuthLogin: "nextflow auth login" finds the sign-in through
// the discovery document below the API endpoint, is approved and sent
// back to its callback, exchanges the code with its PKCE verifier, and
// with the token it gets reads /user-info and creates the personal access
// token it saves, which then works.
func TestNextflowAuthLogin(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, ts, _ := extServer(t, dc.name)
			endpoint := ts.URL + mock.DefaultBasePath
			res, err := nfcli.Login(endpoint, browser)
			if err != nil {
				t.Fatal(err)
			}
			if res.UserName == "" || res.PAT == "" || strings.Count(res.AccessToken, ".") != 2 {
				t.Fatalf("login: %+v", res)
			}
			// The saved token is a personal access token of the fake.
			a := call(t, srv.Handler(), "GET", "/api/user-info", res.PAT, nil)
			if a.status != http.StatusOK {
				t.Errorf("GET /user-info with the PAT the login created: %d", a.status)
			}
			got := strings.Join(extensionsJournaled(t, srv), ",")
			if !strings.Contains(got, "openid-configuration,oauth-authorize,oauth-token") {
				t.Errorf("the journal names %q, want the three sign-in routes in order", got)
			}
		})
	}
}

// TestSignInRefusesWhatItCannotTrust: a code exchanged with another
// verifier, redirect address or client, or twice the same wrong way, is
// refused with OAuth's invalid_grant; a redirect address off the loopback
// host is refused without redirecting; an unsigned code is refused.
func TestSignInRefusesWhatItCannotTrust(t *testing.T) {
	srv, ts, clk := extServer(t, "embedded")
	h := srv.Handler()
	verifier := strings.Repeat("v", 43)
	challenge := "7w_YNF9DSfIdPf_pRjSq646_kPr-2-o9NAl16JGghdM" // S256 of 43 v's, as RFC 7636 computes it
	redirect := "http://127.0.0.1:9/callback"
	q := url.Values{"client_id": {nfcli.ClientID}, "response_type": {"code"}, "redirect_uri": {redirect}, "state": {"s1"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	a := call(t, h, "GET", "/api/oauth/authorize?"+q.Encode(), "", nil)
	if a.status != http.StatusFound {
		t.Fatalf("authorize: %d %s", a.status, a.body)
	}
	loc, _ := url.Parse(a.header.Get("Location"))
	code := loc.Query().Get("code")
	if loc.Host != "127.0.0.1:9" || loc.Query().Get("state") != "s1" || code == "" {
		t.Fatalf("redirect %s", loc)
	}
	exchange := func(form url.Values) (int, map[string]any) {
		resp, err := http.PostForm(ts.URL+"/api/oauth/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	good := url.Values{"grant_type": {"authorization_code"}, "client_id": {nfcli.ClientID}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirect}}
	for name, change := range map[string]func(url.Values){
		"another verifier": func(f url.Values) { f.Set("code_verifier", strings.Repeat("w", 43)) },
		"no verifier":      func(f url.Values) { f.Del("code_verifier") },
		"another redirect": func(f url.Values) { f.Set("redirect_uri", "http://127.0.0.1:10/callback") },
		"another client":   func(f url.Values) { f.Set("client_id", "tower_cli") },
		"a forged code":    func(f url.Values) { f.Set("code", code[:len(code)-2]+"xx") },
	} {
		f := url.Values{}
		for k, v := range good {
			f[k] = append([]string(nil), v...)
		}
		change(f)
		if st, m := exchange(f); st != http.StatusBadRequest || m["error"] != "invalid_grant" {
			t.Errorf("%s: %d %v, want 400 invalid_grant", name, st, m)
		}
	}
	if st, m := exchange(good); st != http.StatusOK || m["access_token"] == nil || m["refresh_token"] == nil {
		t.Errorf("the right exchange: %d %v", st, m)
	}
	clk.Advance(6 * time.Minute) // past code_ttl
	if st, m := exchange(good); st != http.StatusBadRequest || m["error"] != "invalid_grant" {
		t.Errorf("an expired code: %d %v", st, m)
	}
	q.Set("redirect_uri", "https://example.com/callback")
	if a := call(t, h, "GET", "/api/oauth/authorize?"+q.Encode(), "", nil); a.status != http.StatusBadRequest || a.header.Get("Location") != "" {
		t.Errorf("authorize to a remote host: %d, Location %q; want 400 and no redirect", a.status, a.header.Get("Location"))
	}
	q.Set("redirect_uri", redirect)
	q.Set("code_challenge_method", "plain")
	a = call(t, h, "GET", "/api/oauth/authorize?"+q.Encode(), "", nil)
	if loc, _ := url.Parse(a.header.Get("Location")); a.status != http.StatusFound || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("code") != "" {
		t.Errorf("plain PKCE: %d %s; want a redirect with error=invalid_request and no code", a.status, a.header.Get("Location"))
	}
}

// newSession asks the control API for the session the service gives a
// run it launches.
func newSession(t *testing.T, ts *httptest.Server) (string, string) {
	t.Helper()
	resp, err := http.Post(ts.URL+control.AdminPrefix+"sessions", "application/json", strings.NewReader(`{"workflowId":"4Bc","workspaceId":"2001"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		AccessToken, RefreshToken string
		Env                       map[string]string
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST sessions: %d %v", resp.StatusCode, err)
	}
	if m.Env["TOWER_ACCESS_TOKEN"] != m.AccessToken || m.Env["TOWER_REFRESH_TOKEN"] != m.RefreshToken ||
		m.Env["TOWER_API_ENDPOINT"] != ts.URL+mock.DefaultBasePath || m.Env["TOWER_WORKFLOW_ID"] != "4Bc" {
		t.Errorf("the session's environment: %v", m.Env)
	}
	return m.AccessToken, m.RefreshToken
}

// TestLaunchedRunRefreshesItsToken: a run's JWT works until access_ttl
// on the fake's clock; then calls answer 401 (session_expired), Nextflow's
// client renews it at /oauth/access_token from the cookies it is sent and
// makes the call again; past refresh_ttl the refresh itself is refused.
func TestLaunchedRunRefreshesItsToken(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, ts, clk := extServer(t, dc.name)
			access, refresh := newSession(t, ts)
			s := nfcli.NewSession(ts.URL+mock.DefaultBasePath, access, refresh)
			if _, st, err := s.Send("GET", "/user-info", nil); st != http.StatusOK || err != nil || s.Refreshes != 0 {
				t.Fatalf("a fresh session: %d %v, %d refreshes", st, err, s.Refreshes)
			}
			clk.Advance(time.Hour) // access_ttl
			if a := call(t, srv.Handler(), "GET", "/api/user-info", access, nil); a.status != http.StatusUnauthorized {
				t.Errorf("an expired session token: %d, want the profile's 401", a.status)
			}
			if _, st, err := s.Send("GET", "/user-info", nil); st != http.StatusOK || err != nil || s.Refreshes != 1 {
				t.Fatalf("after access_ttl: %d %v, %d refreshes; want 200 after one refresh", st, err, s.Refreshes)
			}
			if s.Access == access || s.Refresh == refresh {
				t.Error("the refresh gave back the same tokens")
			}
			if a := call(t, srv.Handler(), "GET", "/api/user-info", s.Access, nil); a.status != http.StatusOK {
				t.Errorf("the renewed token: %d", a.status)
			}
			clk.Advance(721 * time.Hour) // past refresh_ttl of both refresh tokens
			if _, st, _ := s.Send("GET", "/user-info", nil); st != http.StatusUnauthorized || s.Refreshes != 1 {
				t.Errorf("past refresh_ttl: %d after %d refreshes; want the 401 to stand", st, s.Refreshes)
			}
			// A stored token expired is still the profile's 403: only
			// sessions are refreshed.
			if a := call(t, srv.Handler(), "GET", "/api/user-info", expiredToken, nil); a.status != http.StatusForbidden {
				t.Errorf("an expired personal token: %d, want 403", a.status)
			}
		})
	}
}

// TestFusionLicense: a Fusion-enabled run gets a signed license good for
// license_ttl on the fake's clock, with its session (renewed on the way
// when it has expired) or a personal token; a token the fake does not
// hold gets 401, which Nextflow reads as an invalid token; a body without
// a product is a Bad Request with an Error ID.
func TestFusionLicense(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			srv, ts, clk := extServer(t, dc.name)
			access, refresh := newSession(t, ts)
			s := nfcli.NewSession(ts.URL+mock.DefaultBasePath, access, refresh)
			now := clk.Now()
			lic, err := s.FusionLicense("fusion", "2.4", "4Bc", "2001")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(lic.SignedToken, ".") != 2 || !lic.ExpiresAt.Equal(now.Add(24*time.Hour).Truncate(time.Second)) {
				t.Errorf("license %+v, want a JWT expiring 24h after %s", lic, now)
			}
			clk.Advance(2 * time.Hour)
			if _, err := s.FusionLicense("fusion", "", "", ""); err != nil || s.Refreshes != 1 {
				t.Errorf("with an expired session: %v after %d refreshes; want a license after one", err, s.Refreshes)
			}
			pat := nfcli.NewSession(ts.URL+mock.DefaultBasePath, devToken, "")
			if _, err := pat.FusionLicense("fusion", "2.4", "", "2001"); err != nil {
				t.Errorf("with a personal token: %v", err)
			}
			bad := nfcli.NewSession(ts.URL+mock.DefaultBasePath, "not-a-token-we-hold", "")
			if _, err := bad.FusionLicense("fusion", "2.4", "", ""); err == nil || !strings.Contains(err.Error(), "401") {
				t.Errorf("with an unknown token: %v, want Nextflow's 401 error", err)
			}
			a := call(t, srv.Handler(), "POST", "/api/license/token/", devToken, []byte(`{"version":"2.4"}`))
			if a.status != http.StatusBadRequest {
				t.Fatalf("no product: %d %s", a.status, a.body)
			}
			if e, ok := errorEntry(t, srv, errorID(t, a)); !ok || !strings.Contains(e.Reason, "product is required") {
				t.Errorf("no product: the Error ID's entry %+v does not say product is required", e)
			}
		})
	}
}

// TestStrictModeRefusesExtensions: with either strict mode, or with a
// profile switch off, every route beyond the schema is refused as an
// unknown route, and the journal names it; the control API mints no
// session a client could never renew.
func TestStrictModeRefusesExtensions(t *testing.T) {
	off := profile.Default()
	off.Extensions.OpenID, off.Extensions.LicenseToken, off.Extensions.RefreshToken = false, false, false
	for name, opt := range map[string]mock.Option{
		"strict requests":  mock.WithStrictRequests(),
		"strict responses": mock.WithStrictResponses(),
		"profile off":      mock.WithProfile(off),
	} {
		t.Run(name, func(t *testing.T) {
			srv, ts, _ := extServer(t, "published", opt)
			h := srv.Handler()
			for _, c := range []struct{ method, path, token, body string }{
				{"GET", "/api/.well-known/openid-configuration", "", ""},
				{"GET", "/api/oauth/authorize?response_type=code", "", ""},
				{"POST", "/api/oauth/token", "", "grant_type=refresh_token"},
				{"POST", "/api/license/token/", devToken, `{"product":"fusion"}`},
				{"POST", "/api/oauth/access_token", "", "grant_type=refresh_token"},
			} {
				a := call(t, h, c.method, c.path, c.token, []byte(c.body))
				if a.status != http.StatusForbidden {
					t.Errorf("%s %s: %d, want the unknown route's 403", c.method, c.path, a.status)
				}
			}
			// Without a usable token the license route is refused as any
			// call is (403), not with its own 401, which only a served
			// route gives.
			if a := call(t, h, "POST", "/api/license/token/", "", []byte(`{"product":"fusion"}`)); a.status != http.StatusForbidden {
				t.Errorf("license without a token: %d, want 403", a.status)
			}
			got := extensionsJournaled(t, srv)
			want := "openid-configuration,oauth-authorize,oauth-token,license-token,refresh-token"
			if strings.Join(got, ",") != want {
				t.Errorf("journal names %q, want %q", got, want)
			}
			resp, err := http.Post(ts.URL+control.AdminPrefix+"sessions", "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusConflict {
				t.Errorf("POST sessions: %d, want 409", resp.StatusCode)
			}
		})
	}
}
