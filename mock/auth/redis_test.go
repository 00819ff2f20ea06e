package auth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/clock"
)

// sharedPair is two Redis stores on one miniredis, as two replicas see it.
func sharedPair(t *testing.T) (*miniredis.Miniredis, Shared, Shared) {
	t.Helper()
	mr := miniredis.RunT(t)
	mk := func() Shared {
		c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
		t.Cleanup(func() { _ = c.Close() })
		return NewRedis(c, "wmsmock:tokens", WithClock(clock.NewFake(t0)), WithTimeout(time.Second))
	}
	return mr, mk(), mk()
}

// TestRedisEnsureIsIdempotent: every replica seeds the configured tokens at
// start; the second finds them and keeps their ids, adds nothing, and
// brings back a configured token that was revoked or renamed.
func TestRedisEnsureIsIdempotent(t *testing.T) {
	_, a, b := sharedPair(t)
	first, err := a.Ensure(Fixtures()...)
	if err != nil {
		t.Fatal(err)
	}
	made, value, err := a.Create("ci")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Revoke(first[1].ID); err != nil {
		t.Fatal(err)
	}
	again, err := b.Ensure(Fixtures()...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if again[i].ID != first[i].ID || again[i].Name != first[i].Name || !again[i].Pinned || again[i].Revoked {
			t.Errorf("fixture %d on the second replica: %+v, first %+v", i, again[i], first[i])
		}
	}
	all := list(t, b)
	if len(all) != len(first)+1 {
		t.Fatalf("%d tokens after the second seed, want %d: %+v", len(all), len(first)+1, all)
	}
	if tok, res := check(t, b, "Bearer "+value, t0); res != OK || tok.ID != made.ID {
		t.Errorf("a token created on A, checked on B: %v %+v", res, tok)
	}

	// Configuration wins: the dev token's name given a new value replaces
	// its hash (the old value stops working), keeping the id.
	cfg := Fixtures()
	cfg[0].Value = "rotated-dev-token"
	changed, err := b.Ensure(cfg[0])
	if err != nil {
		t.Fatal(err)
	}
	if changed[0].ID != first[0].ID {
		t.Errorf("rotated token id %d, want %d", changed[0].ID, first[0].ID)
	}
	if _, res := check(t, a, "Bearer "+DevToken, t0); res != Unknown {
		t.Errorf("the old dev value after rotation: %v", res)
	}
	if _, res := check(t, a, "Bearer rotated-dev-token", t0); res != OK {
		t.Errorf("the new dev value: %v", res)
	}
}

// TestRedisRestoreNeverReusesIDs: a reset (Restore to the configured
// tokens) through one replica is seen by the other, and ids go on after
// the highest ever handed out, so a deleted token's id never comes back.
func TestRedisRestoreNeverReusesIDs(t *testing.T) {
	_, a, b := sharedPair(t)
	configured, err := a.Ensure(Fixtures()...)
	if err != nil {
		t.Fatal(err)
	}
	made, value, err := a.Create("ci")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(configured); err != nil {
		t.Fatal(err)
	}
	if _, res := check(t, a, "Bearer "+value, t0); res != Unknown {
		t.Errorf("a created token after the reset on B: %v, want unknown", res)
	}
	next, _, err := a.Create("ci")
	if err != nil {
		t.Fatal(err)
	}
	if next.ID <= made.ID {
		t.Errorf("id %d after reset, want more than %d", next.ID, made.ID)
	}
}

// TestRedisDownIsAnErrorNotARefusal: with Redis gone, every method fails
// with ErrUnavailable, and Check gives an error instead of a Result a
// caller could turn into 403 (or a silent accept).
func TestRedisDownIsAnErrorNotARefusal(t *testing.T) {
	mr, a, _ := sharedPair(t)
	tok, err := a.Add("dev", DevToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	mr.Close()
	if _, _, err := Check(a, "Bearer "+DevToken, t0); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Check with Redis down: %v, want ErrUnavailable", err)
	}
	errs := map[string]error{}
	_, _, errs["Lookup"] = a.Lookup(DevToken)
	errs["Touch"] = a.Touch(tok.ID, t0)
	_, errs["List"] = a.List()
	_, errs["DeleteAll"] = a.DeleteAll()
	errs["Revoke"] = a.Revoke(tok.ID)
	errs["Delete"] = a.Delete(tok.ID)
	_, _, errs["Create"] = a.Create("x")
	_, errs["Add"] = a.Add("y", "value-y", nil)
	errs["Restore"] = a.Restore(nil)
	_, errs["Ensure"] = a.Ensure(Fixtures()...)
	for m, err := range errs {
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want ErrUnavailable", m, err)
		}
	}
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, res := check(t, a, "Bearer "+DevToken, t0); res != OK {
		t.Errorf("once Redis is back: %v", res)
	}
}

// TestRedisNeverStoresValues: nothing in Redis holds a token's value.
func TestRedisNeverStoresValues(t *testing.T) {
	mr, a, _ := sharedPair(t)
	if _, err := a.Ensure(Fixtures()...); err != nil {
		t.Fatal(err)
	}
	_, value, err := a.Create("ci")
	if err != nil {
		t.Fatal(err)
	}
	dump := mr.Dump()
	for _, v := range []string{DevToken, SecondToken, value} {
		if strings.Contains(dump, v) {
			t.Errorf("Redis holds the value %q", v)
		}
	}
	if !strings.Contains(dump, "ci") {
		t.Fatalf("the dump does not even hold the names: %.300s", dump)
	}
}
