package extension

import "testing"

// TestMatch: a route answers its path with or without one trailing slash
// (Nextflow writes /license/token/, a hand-written client may not), never
// with two, and only for its method.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		method, path, want string
	}{
		{"POST", "/license/token/", "license-token"},
		{"POST", "/license/token", "license-token"},
		{"POST", "/license/token//", ""},
		{"GET", "/license/token/", ""},
		{"GET", "/.well-known/openid-configuration", "openid-configuration"},
		{"GET", "/.well-known/openid-configuration/", "openid-configuration"},
		{"POST", "/oauth/access_token", "refresh-token"},
		{"POST", "/oauth/token", "oauth-token"},
		{"GET", "/oauth/authorize", "oauth-authorize"},
		{"GET", "/oauth", ""},
	} {
		r, ok := Match(c.method, c.path)
		got := ""
		if ok {
			got = r.Name
		}
		if got != c.want {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, got, c.want)
		}
	}
	for _, r := range Routes() {
		if r.Evidence == "" || r.Switch == "" {
			t.Errorf("%s has no evidence or no profile switch", r.Name)
		}
	}
}

// TestLoopback: the sign-in redirects to http addresses on loopback hosts
// only.
func TestLoopback(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://127.0.0.1:4567/callback":  true,
		"http://[::1]:4567/callback":      true,
		"http://localhost:4567/callback":  true,
		"https://127.0.0.1:4567/callback": false,
		"http://example.com/callback":     false,
		"http://127.0.0.1.example.com/":   false,
		"http://user@127.0.0.1/callback":  false,
		"":                                false,
		"javascript:alert(1)":             false,
	} {
		if got := loopback(raw); got != want {
			t.Errorf("loopback(%q) = %v, want %v", raw, got, want)
		}
	}
}
