// Package auth holds the fake's access tokens and decides whether a request's
// Authorization header names a usable one.
//
// The contract (A1-A3) makes every call carry "Authorization: Bearer <token>"
// and answers an invalid or expired token with 403. A token is shown to its
// owner once, when it is created, so the store keeps only a SHA-256 hash of
// each value: nothing the fake exports, logs or persists can hand a token back.
//
// This package says only *why* a request was refused (a Result); which status
// and body the refusal gets is the behaviour profile's business.
package auth

import (
	"github.com/wmsmock/wmsmock/internal/token68"

	"crypto/sha256"
	"errors"
	"time"
)

// Token is what the store knows about one access token. The value itself is
// absent on purpose; Hash is its SHA-256.
type Token struct {
	ID       int64      `json:"id"`
	Name     string     `json:"name"`
	Hash     [32]byte   `json:"hash"`
	Created  time.Time  `json:"created"`
	Expires  *time.Time `json:"expires,omitempty"`
	LastUsed *time.Time `json:"lastUsed,omitempty"`
	Revoked  bool       `json:"revoked,omitempty"`
	// Pinned marks a token the fake was configured with (built-in, profile
	// or --token ones): DELETE /tokens/delete-all leaves it, and a reset
	// brings it back.
	Pinned bool `json:"pinned,omitempty"`
}

// Expired reports whether the token can no longer be used at now. A token
// stops working at the instant it expires, not one tick later.
func (t Token) Expired(now time.Time) bool {
	return t.Expires != nil && !now.Before(*t.Expires)
}

// Errors returned by a Store. Callers map them to answers (409 for a
// duplicate name, 403 for an unknown id, as the real service does).
var (
	ErrDuplicateName  = errors.New("auth: a token with this name already exists")
	ErrDuplicateValue = errors.New("auth: a token with this value already exists")
	ErrInvalidName    = errors.New("auth: token name must not be empty")
	ErrInvalidValue   = errors.New("auth: token value must be a non-empty token68 string")
	ErrNotFound       = errors.New("auth: no token with this id")
	// ErrUnavailable wraps a failure to reach a shared store (Redis). It
	// is never a reason to refuse a token: the fake answers it as its own
	// failure (500 with an Error ID), so a client is not told that a good
	// token is bad while the store is down.
	ErrUnavailable = errors.New("auth: token store unavailable")
)

// Store keeps tokens. It is an interface so that several fake replicas can
// share one store without touching handlers: NewMemory builds the in-process
// one, NewRedis the shared one. Every method is safe for concurrent
// use. Methods that can fail for want of the store return an error wrapping
// ErrUnavailable then; the in-process store never does.
type Store interface {
	// Add stores a token whose value the caller chose: the fake's
	// configured tokens (fixtures, profile tokens, --token), which are
	// pinned. It fails with ErrDuplicateName, ErrDuplicateValue,
	// ErrInvalidName or ErrInvalidValue.
	Add(name, value string, expires *time.Time) (Token, error)
	// Create stores a token with a freshly generated value and returns that
	// value: this is the only time anybody sees it.
	Create(name string) (Token, string, error)
	// Lookup finds the token with this value, whatever its state (revoked and
	// expired tokens are returned too, so the caller can tell why it refuses).
	Lookup(value string) (Token, bool, error)
	// Touch records that the token was used at the given time. An unknown id
	// is ignored: the token may have been deleted by a concurrent request.
	Touch(id int64, at time.Time) error
	// Revoke keeps the token listed but makes it unusable.
	Revoke(id int64) error
	// List returns every token, sorted by ID.
	List() ([]Token, error)
	// Delete removes one token, or returns ErrNotFound.
	Delete(id int64) error
	// DeleteAll removes every token that is not pinned and returns how
	// many it removed.
	DeleteAll() (int, error)
	// Snapshot returns every token, for saving. It holds hashes only, so a
	// snapshot written to disk cannot leak a usable token.
	Snapshot() ([]Token, error)
	// Restore replaces the store's contents with a snapshot. A snapshot
	// with a non-positive or repeated id, name or hash is refused and the
	// store left as it was. New ids continue after the highest restored.
	Restore([]Token) error
}

// HashValue is the one-way function the store keys tokens by.
func HashValue(v string) [32]byte { return sha256.Sum256([]byte(v)) }

// addable checks the name and value Store.Add is given, as every store
// must, and returns the value's hash.
func addable(name, value string) ([32]byte, error) {
	switch {
	case name == "":
		return [32]byte{}, ErrInvalidName
	case !ValidValue(value):
		return [32]byte{}, ErrInvalidValue
	}
	return HashValue(value), nil
}

// ValidValue reports whether v can be sent as a bearer credential (see
// token68.Valid). A value outside that set could never arrive in a
// well-formed header, so stores refuse it up front.
func ValidValue(v string) bool { return token68.Valid(v) }
