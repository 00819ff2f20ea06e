package auth

import (
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// Result says whether a request may proceed and, if not, why. Every refusal
// gets the same kind of answer by default (403), but the reason is logged and
// each can be given its own answer in the behaviour profile.
type Result int

// The outcomes of Check.
const (
	OK        Result = iota // a usable token
	Missing                 // no Authorization header (or an empty one)
	BadScheme               // a scheme other than Bearer
	Malformed               // Bearer, but no token or one with characters outside token68
	Unknown                 // a well-formed token the store does not hold
	Expired                 // the token's expiry time has passed
	Revoked                 // the token was revoked
	// SessionExpired is a session token (a JWT the fake signed: see
	// Sessions) past its expiry. Clients refresh on this one: Nextflow's
	// HTTP client asks for a new JWT when the service answers 401.
	SessionExpired
)

var resultNames = [...]string{"ok", "missing", "bad_scheme", "malformed", "unknown", "expired", "revoked", "session_expired"}

// String gives the reason as it appears in logs and profile keys.
func (r Result) String() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r]
	}
	return "invalid"
}

// CheckHeaders is Check over every Authorization header a request carries.
// More than one is refused as Malformed rather than checked one by one: a
// proxy or client that adds a second credential has made the request
// ambiguous, and letting whichever header comes first win would let a
// valid token vouch for an unknown one.
func CheckHeaders(store Store, values []string, now time.Time, opts ...CheckOption) (Token, Result, error) {
	return NewChecker(opts...).CheckHeaders(store, values, now)
}

// Checker is Check with its options applied once, for a caller that
// checks every call with the same ones (a server): applying them on each
// call made a heap value of them every time.
type Checker struct{ c checkConfig }

// NewChecker applies opts.
func NewChecker(opts ...CheckOption) Checker {
	var k Checker
	for _, o := range opts {
		o(&k.c)
	}
	return k
}

// CheckHeaders is CheckHeaders with k's options.
func (k Checker) CheckHeaders(store Store, values []string, now time.Time) (Token, Result, error) {
	switch len(values) {
	case 0:
		return Token{}, Missing, nil
	case 1:
		return k.Check(store, values[0], now)
	}
	return Token{}, Malformed, nil
}

// CheckOption widens what Check takes as a token.
type CheckOption func(*checkConfig)

type checkConfig struct {
	basicToken bool
	sessions   *Sessions
}

// WithSessions has Check take the access tokens s signed (see Sessions)
// besides those in the store: a value of a JWT's form that s signed is an
// access token of the store's token it names until it expires. Any other
// value goes to the store as before, so a stored token may have dots.
func WithSessions(s *Sessions) CheckOption { return func(c *checkConfig) { c.sessions = s } }

// BasicToken has Check take "Basic base64(@token:<token>)" as the token:
// what Nextflow's Tower client sends for a token that does not look like
// the service's own (plugin nf-tower, TowerClient: a token with two dots,
// a JWT, or one that decodes from base64 to a JSON object followed by a
// dot goes as Bearer; any other as basic credentials with the user
// "@token" and the token as the password). The service takes it as the
// token. Any other Basic credential is still BadScheme.
func BasicToken() CheckOption { return func(c *checkConfig) { c.basicToken = true } }

// basicTokenUser is the user part of the credential Nextflow sends.
const basicTokenUser = "@token:"

// fromBasic returns the token a Basic credential carries, if it is
// "@token:<token>" in base64 (padded as RFC 7617 has it, or not).
func fromBasic(credential string) (string, bool) {
	credential = strings.TrimSpace(credential)
	raw, err := base64.StdEncoding.DecodeString(credential)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(credential); err != nil {
			return "", false
		}
	}
	token, ok := strings.CutPrefix(string(raw), basicTokenUser)
	return token, ok
}

// Check decides whether the value of an Authorization header names a usable
// token at now. The accepted form is "Bearer <token68>": the scheme is matched
// case-insensitively (RFC 7235 section 2.1) and may be followed by one or
// more spaces, and the rest must be a single token68 word. On OK the token's
// LastUsed is set to now, in the store and in the returned copy.
//
// A store that cannot answer gives an error and no Result worth acting on:
// the caller must answer it as its own failure, never as a refused token
// (a 403 would tell the client its good token is bad) nor as an accepted
// one.
func Check(store Store, header string, now time.Time, opts ...CheckOption) (Token, Result, error) {
	return NewChecker(opts...).Check(store, header, now)
}

// Check is Check with k's options.
func (k Checker) Check(store Store, header string, now time.Time) (Token, Result, error) {
	if header == "" {
		return Token{}, Missing, nil
	}
	c := &k.c
	scheme, rest, _ := strings.Cut(header, " ")
	value := strings.TrimLeft(rest, " ")
	switch {
	case strings.EqualFold(scheme, "Bearer"):
	case strings.EqualFold(scheme, "Basic"):
		token, ok := fromBasic(value)
		if !c.basicToken || !ok {
			return Token{}, BadScheme, nil
		}
		value = token
	default:
		return Token{}, BadScheme, nil
	}
	if !ValidValue(value) {
		return Token{}, Malformed, nil
	}
	if c.sessions != nil && LooksLikeSession(value) {
		switch claims, err := c.sessions.Read(value, KindAccess, now); {
		case err == nil:
			at := now
			return Token{ID: claims.TokenID, Name: "session", Expires: ptr(claims.ExpiresAt()), LastUsed: &at}, OK, nil
		case errors.Is(err, ErrSessionExpired):
			return Token{ID: claims.TokenID, Name: "session", Expires: ptr(claims.ExpiresAt())}, SessionExpired, nil
		}
		// Not one of ours (or not an access token): the store decides.
	}
	var tok Token
	var ok bool
	var err error
	u, oneStep := store.(user)
	if oneStep {
		tok, ok, err = u.Use(value, now)
	} else {
		tok, ok, err = store.Lookup(value)
	}
	switch {
	case err != nil:
		return Token{}, Unknown, err
	case !ok:
		return Token{}, Unknown, nil
	case tok.Revoked:
		return tok, Revoked, nil
	case tok.Expired(now):
		return tok, Expired, nil
	}
	if !oneStep {
		if err := store.Touch(tok.ID, now); err != nil {
			return Token{}, Unknown, err
		}
	}
	tok.LastUsed = &now
	return tok, OK, nil
}

// user is a Store that can look a token up and, when it is usable at now,
// record its use in one step: for a shared store, one round trip instead
// of two on every call.
type user interface {
	// Use is Lookup, then Touch(id, now) when the token found is neither
	// revoked nor expired at now; the token comes back as it was before
	// (its LastUsed may be left out when it is usable: Check sets it).
	Use(value string, now time.Time) (Token, bool, error)
}

func ptr[T any](v T) *T { return &v }
