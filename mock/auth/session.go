package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Session tokens are the short-lived credentials the service hands out
// beside its personal access tokens: the JWT and refresh token a run the
// service launched is started with (Nextflow's TOWER_ACCESS_TOKEN and
// TOWER_REFRESH_TOKEN), what a browser sign-in ends with, a Fusion license.
// Clients tell them from access keys by their form (three dot-separated
// parts) and refresh them when the service answers 401.
//
// The fake signs them (HMAC-SHA256, a JWT any library can read) instead of
// storing them: checking one needs no store, so they cost nothing per
// token, work on every replica that shares the key, and end at their
// expiry on the fake's clock. The price is that a refresh token cannot be
// spent once only; it stays good until it expires.
//
// The standard library does all of this in a page; a JWT library would add
// a dependency and a choice of algorithms the fake has no use for.

// Session kinds: what a signed token may be used for. A token is read
// only as the kind asked for, so a refresh token or a license never
// passes as an access token.
const (
	KindAccess  = "access"
	KindRefresh = "refresh"
	KindCode    = "code" // an OpenID Connect authorization code
	KindLicense = "license"
)

// Claims are what a session token carries.
type Claims struct {
	// Kind is one of the Kind constants.
	Kind string `json:"typ"`
	// TokenID is the access token the session speaks for: calls made with
	// it are counted, and owned, as that token's.
	TokenID  int64 `json:"tid"`
	IssuedAt int64 `json:"iat"`
	Expires  int64 `json:"exp"`
	// ID tells apart two tokens minted in the same second.
	ID string `json:"jti,omitempty"`
	// Values holds what a kind needs besides: an authorization code's
	// PKCE challenge and redirect address, a license's product.
	Values map[string]string `json:"ext,omitempty"`
}

// ExpiresAt is the instant the token stops working.
func (c Claims) ExpiresAt() time.Time { return time.Unix(c.Expires, 0).UTC() }

// Sessions mints and reads session tokens under one key.
type Sessions struct {
	key []byte
	seq sequence
}

// NewSessions returns a signer whose key is derived from seed: fakes
// started with the same seed (replicas of one fake) read each other's
// tokens, and a test can mint one for the fake it runs.
func NewSessions(seed int64) *Sessions {
	sum := sha256.Sum256([]byte("wmsmock session key " + strconv.FormatInt(seed, 10)))
	return &Sessions{key: sum[:]}
}

// jwtHeader is the fixed first part of every token.
var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// Mint signs c, filling IssuedAt and Expires from now and ttl, and ID.
func (s *Sessions) Mint(c Claims, now time.Time, ttl time.Duration) string {
	c.IssuedAt = now.Unix()
	c.Expires = now.Add(ttl).Unix()
	c.ID = strconv.FormatUint(s.seq.next(), 36)
	payload, _ := json.Marshal(c) // Claims always encodes
	body := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + s.sign(body)
}

func (s *Sessions) sign(body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Errors of Read.
var (
	// ErrNotSession is a value that is not a token this signer made: not
	// three parts, another header, or a signature that does not hold.
	ErrNotSession = errors.New("auth: not a session token of this fake")
	// ErrSessionKind is a good token of another kind than asked for.
	ErrSessionKind = errors.New("auth: a session token of another kind")
	// ErrSessionExpired is a good token past its expiry.
	ErrSessionExpired = errors.New("auth: the session token has expired")
)

// LooksLikeSession reports whether v has a session token's form (three
// dot-separated parts), as clients decide whether to refresh it.
func LooksLikeSession(v string) bool { return strings.Count(v, ".") == 2 }

// Read checks value's signature and kind and that it has not expired at
// now, and returns its claims. An expired token's claims come back with
// ErrSessionExpired, so a caller can say whose it was.
func (s *Sessions) Read(value, kind string, now time.Time) (Claims, error) {
	head, rest, ok := strings.Cut(value, ".")
	if !ok || head != jwtHeader {
		return Claims{}, ErrNotSession
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.sign(head+"."+payload))) {
		return Claims{}, ErrNotSession
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return Claims{}, ErrNotSession
	}
	var c Claims
	if json.Unmarshal(raw, &c) != nil {
		return Claims{}, ErrNotSession
	}
	if c.Kind != kind {
		return c, ErrSessionKind
	}
	if !now.Before(c.ExpiresAt()) {
		return c, ErrSessionExpired
	}
	return c, nil
}

// sequence numbers the tokens a signer mints.
type sequence struct{ n atomic.Uint64 }

func (q *sequence) next() uint64 { return q.n.Add(1) }
