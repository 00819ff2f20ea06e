package auth

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessionsReadWhatTheyMint: a token reads back its claims until the
// instant it expires, as its own kind only; one changed character, or
// another fake's key, makes it not a session at all.
func TestSessionsReadWhatTheyMint(t *testing.T) {
	s := NewSessions(1)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v := s.Mint(Claims{Kind: KindAccess, TokenID: 7, Values: map[string]string{"scope": "openid"}}, now, time.Hour)
	if !LooksLikeSession(v) || !ValidValue(v) {
		t.Fatalf("%q is not a JWT a Bearer header can carry", v)
	}
	c, err := s.Read(v, KindAccess, now.Add(time.Hour-time.Second))
	if err != nil || c.TokenID != 7 || c.Values["scope"] != "openid" || !c.ExpiresAt().Equal(now.Add(time.Hour)) {
		t.Fatalf("read back %+v, %v", c, err)
	}
	if _, err := s.Read(v, KindAccess, now.Add(time.Hour)); !errors.Is(err, ErrSessionExpired) {
		t.Errorf("at its expiry: %v, want expired", err)
	}
	if _, err := s.Read(v, KindRefresh, now); !errors.Is(err, ErrSessionKind) {
		t.Errorf("read as a refresh token: %v", err)
	}
	if _, err := NewSessions(2).Read(v, KindAccess, now); !errors.Is(err, ErrNotSession) {
		t.Errorf("another seed's key: %v", err)
	}
	parts := strings.Split(v, ".")
	for i := range parts {
		p := append([]string(nil), parts...)
		b := []byte(p[i])
		b[len(b)/2] ^= 1
		p[i] = string(b)
		if _, err := s.Read(strings.Join(p, "."), KindAccess, now); !errors.Is(err, ErrNotSession) {
			t.Errorf("part %d changed: %v", i, err)
		}
	}
	if w := s.Mint(Claims{Kind: KindAccess, TokenID: 7}, now, time.Hour); w == v {
		t.Error("two tokens minted in the same second are the same")
	}
}

// TestCheckTakesSessions: with WithSessions an access token the signer
// made passes as the stored token it names, an expired one is
// SessionExpired (not Expired: clients refresh on it), a license or
// refresh token is not an access token, and a stored token that happens
// to have two dots is still the store's.
func TestCheckTakesSessions(t *testing.T) {
	store := NewMemory()
	dotted, err := store.Add("dotted", "a.b.c", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSessions(1)
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	access := s.Mint(Claims{Kind: KindAccess, TokenID: 42}, now, time.Hour)
	license := s.Mint(Claims{Kind: KindLicense, TokenID: 42}, now, time.Hour)
	for _, c := range []struct {
		name, value string
		at          time.Time
		id          int64
		want        Result
	}{
		{"access", access, now, 42, OK},
		{"access, expired", access, now.Add(time.Hour), 42, SessionExpired},
		{"license", license, now, 0, Unknown},
		{"stored with dots", "a.b.c", now, dotted.ID, OK},
	} {
		tok, got, err := Check(store, "Bearer "+c.value, c.at, WithSessions(s))
		if err != nil || got != c.want || tok.ID != c.id {
			t.Errorf("%s: %v id %d (%v), want %v id %d", c.name, got, tok.ID, err, c.want, c.id)
		}
	}
	if _, got, _ := Check(store, "Bearer "+access, now); got != Unknown {
		t.Errorf("without WithSessions a session is %v, want unknown", got)
	}
}
