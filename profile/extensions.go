package profile

import "time"

// Extensions turns on the calls the service answers beyond its published
// schema, which its own clients make (the evidence for each is in
// default.yaml and docs/extensions.md), and sets the lifetimes of the
// session tokens they hand out. Strict mode refuses them all, whatever
// the switches say: they are not in the schema.
type Extensions struct {
	// OpenID is the sign-in: the discovery document and the authorization
	// and token endpoints it names.
	OpenID bool `yaml:"openid"`
	// LicenseToken is Fusion's license: POST /license/token/.
	LicenseToken bool `yaml:"license_token"`
	// RefreshToken is POST /oauth/access_token with a refresh token.
	RefreshToken bool `yaml:"refresh_token"`
	// AccessTTL is how long a session's access token (a JWT) works;
	// RefreshTTL how long its refresh token does; LicenseTTL how long a
	// Fusion license token is good for; CodeTTL how long a sign-in's
	// authorization code may wait to be exchanged.
	AccessTTL  time.Duration `yaml:"access_ttl"`
	RefreshTTL time.Duration `yaml:"refresh_ttl"`
	LicenseTTL time.Duration `yaml:"license_ttl"`
	CodeTTL    time.Duration `yaml:"code_ttl"`
}

func (e *Extensions) validate(v *validator) {
	for _, d := range []struct {
		key string
		ttl time.Duration
	}{
		{"extensions.access_ttl", e.AccessTTL},
		{"extensions.refresh_ttl", e.RefreshTTL},
		{"extensions.license_ttl", e.LicenseTTL},
		{"extensions.code_ttl", e.CodeTTL},
	} {
		if d.ttl < time.Second {
			v.add(d.key, "must be at least 1s, got %s", d.ttl)
		}
	}
	if e.RefreshTTL < e.AccessTTL {
		v.add("extensions.refresh_ttl", "must be at least access_ttl (%s), got %s: a refresh token that ends first can never be used", e.AccessTTL, e.RefreshTTL)
	}
}
