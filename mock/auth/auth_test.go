package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/clock"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// maker builds an empty store of one kind; every behaviour test below runs
// against each kind, so the Redis store keeps the in-process one's semantics.
type maker func(t testing.TB, opts ...Option) Store

var makers = []struct {
	name string
	new  maker
}{
	{"memory", func(_ testing.TB, opts ...Option) Store { return NewMemory(opts...) }},
	{"redis", newRedis},
}

// newRedis is a Redis store on a fresh in-process miniredis.
func newRedis(t testing.TB, opts ...Option) Store {
	t.Helper()
	mr := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return NewRedis(c, "test:tokens", opts...)
}

// eachStore runs fn once per kind of store, as subtests.
func eachStore(t *testing.T, fn func(t *testing.T, mk maker)) {
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) { fn(t, m.new) })
	}
}

func seededWith(t testing.TB, mk maker) Store {
	t.Helper()
	m := mk(t, WithClock(clock.NewFake(t0)))
	if err := Seed(m, Fixtures()...); err != nil {
		t.Fatal(err)
	}
	return m
}

func seeded(t testing.TB) Store {
	t.Helper()
	return seededWith(t, makers[0].new)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func lookup(t testing.TB, s Store, value string) (Token, bool) {
	t.Helper()
	tok, ok, err := s.Lookup(value)
	if err != nil {
		t.Fatal(err)
	}
	return tok, ok
}

func list(t testing.TB, s Store) []Token {
	t.Helper()
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func check(t testing.TB, s Store, header string, now time.Time) (Token, Result) {
	t.Helper()
	tok, res, err := Check(s, header, now)
	if err != nil {
		t.Fatal(err)
	}
	return tok, res
}

func TestCheckHeader(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		tests := []struct {
			name   string
			header string
			want   Result
		}{
			{"missing", "", Missing},
			{"basic scheme", "Basic " + DevToken, BadScheme},
			{"token without scheme", DevToken, BadScheme},
			{"scheme prefix only", "Bearerx " + DevToken, BadScheme},
			{"leading space", " Bearer " + DevToken, BadScheme},
			{"tab separator", "Bearer\t" + DevToken, BadScheme},
			{"scheme alone", "Bearer", Malformed},
			{"scheme and space", "Bearer ", Malformed},
			{"two words", "Bearer " + DevToken + " extra", Malformed},
			{"trailing space", "Bearer " + DevToken + " ", Malformed},
			{"invalid char", "Bearer wmsmock-dev-token!", Malformed},
			{"non-ascii", "Bearer wmsmock-dév-token", Malformed},
			{"padding only", "Bearer ==", Malformed},
			{"padding in middle", "Bearer ab=c", Malformed},
			{"ok", "Bearer " + DevToken, OK},
			{"lower-case scheme", "bearer " + DevToken, OK},
			{"upper-case scheme", "BEARER " + DevToken, OK},
			{"several spaces", "Bearer   " + DevToken, OK},
			{"unknown token", "Bearer nope", Unknown},
			{"unknown token with padding", "Bearer nope==", Unknown},
			{"expired", "Bearer " + ExpiredToken, Expired},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if _, got := check(t, m, tc.header, t0); got != tc.want {
					t.Errorf("Check(%q) = %v, want %v", tc.header, got, tc.want)
				}
			})
		}
	})
}

func TestCheckTokenStates(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		expiry := t0.Add(time.Hour)
		tests := []struct {
			name    string
			expires *time.Time
			revoke  bool
			at      time.Time
			want    Result
		}{
			{"no expiry", nil, false, t0, OK},
			{"before expiry", &expiry, false, expiry.Add(-time.Nanosecond), OK},
			{"at expiry", &expiry, false, expiry, Expired},
			{"after expiry", &expiry, false, expiry.Add(time.Second), Expired},
			{"revoked", nil, true, t0, Revoked},
			{"revoked and expired", &expiry, true, expiry, Revoked},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				m := mk(t)
				tok, err := m.Add("t", "value", tc.expires)
				if err != nil {
					t.Fatal(err)
				}
				if tc.revoke {
					if err := m.Revoke(tok.ID); err != nil {
						t.Fatal(err)
					}
				}
				got, res := check(t, m, "Bearer value", tc.at)
				if res != tc.want {
					t.Fatalf("result = %v, want %v", res, tc.want)
				}
				if got.ID != tok.ID {
					t.Errorf("token id = %d, want %d", got.ID, tok.ID)
				}
				stored, _ := lookup(t, m, "value")
				if used := stored.LastUsed != nil; used != (res == OK) {
					t.Errorf("LastUsed set = %v after result %v", used, res)
				}
			})
		}
	})
}

func TestCheckTouchesOnlyThatToken(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		at := t0.Add(5 * time.Minute)
		got, res := check(t, m, "Bearer "+SecondToken, at)
		if res != OK || got.LastUsed == nil || !got.LastUsed.Equal(at) {
			t.Fatalf("Check = %+v, %v; want OK with LastUsed %v", got, res, at)
		}
		for _, tok := range list(t, m) {
			want := tok.Name == "second"
			if (tok.LastUsed != nil) != want {
				t.Errorf("token %q LastUsed = %v", tok.Name, tok.LastUsed)
			}
		}
		later := at.Add(time.Minute)
		must(0, m.Touch(got.ID, later))
		again, _ := lookup(t, m, SecondToken)
		if !again.LastUsed.Equal(later) {
			t.Errorf("after Touch LastUsed = %v, want %v", again.LastUsed, later)
		}
		if !got.LastUsed.Equal(at) {
			t.Errorf("an earlier copy changed with the store: %v", got.LastUsed)
		}
		must(0, m.Touch(9999, later)) // unknown id: no panic, no effect
	})
}

func TestAddErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		tests := []struct {
			name, tokName, value string
			want                 error
		}{
			{"duplicate name", "dev", "fresh-value", ErrDuplicateName},
			{"duplicate value", "other", DevToken, ErrDuplicateValue},
			{"empty name", "", "fresh-value", ErrInvalidName},
			{"empty value", "other", "", ErrInvalidValue},
			{"value with space", "other", "a b", ErrInvalidValue},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := m.Add(tc.tokName, tc.value, nil); !errors.Is(err, tc.want) {
					t.Errorf("Add = %v, want %v", err, tc.want)
				}
			})
		}
		if _, _, err := m.Create("dev"); !errors.Is(err, ErrDuplicateName) {
			t.Errorf("Create duplicate = %v, want ErrDuplicateName", err)
		}
		if n := len(list(t, m)); n != 3 {
			t.Errorf("failed adds changed the store: %d tokens", n)
		}
	})
}

func TestCreate(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := mk(t, WithClock(clock.NewFake(t0)), WithRand(bytes.NewReader(bytes.Repeat([]byte{0xAB}, 64))))
		tok, value, err := m.Create("ci")
		if err != nil {
			t.Fatal(err)
		}
		if want := ServiceValue(1, bytes.Repeat([]byte{0xAB}, 32)); value != want || !ValidValue(value) {
			t.Errorf("value %q: want the service's format, %q", value, want)
		}
		if tok.Hash != HashValue(value) || !tok.Created.Equal(t0) || tok.ID != 1 {
			t.Errorf("token = %+v", tok)
		}
		if _, res := check(t, m, "Bearer "+value, t0); res != OK {
			t.Errorf("created token: %v", res)
		}
		// Same random bytes again: the id in the value tells the two
		// tokens apart.
		tok2, value2, err := m.Create("ci2")
		if err != nil || value2 == value || tok2.ID != 2 || value2 != ServiceValue(2, bytes.Repeat([]byte{0xAB}, 32)) {
			t.Errorf("second token %+v %q: %v", tok2, value2, err)
		}
		// Exhausted source: an error, not a weak token.
		if _, _, err := m.Create("ci3"); err == nil {
			t.Error("Create with an empty random source succeeded")
		}
	})
}

func TestDelete(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		if dev, _ := lookup(t, m, DevToken); !dev.Pinned {
			t.Errorf("an added token is not pinned: %+v", dev)
		}
		second, _ := lookup(t, m, SecondToken)
		if err := m.Delete(second.ID); err != nil {
			t.Fatal(err)
		}
		if _, ok := lookup(t, m, SecondToken); ok {
			t.Error("Lookup found a deleted token")
		}
		if _, res := check(t, m, "Bearer "+SecondToken, t0); res != Unknown {
			t.Errorf("deleted token: %v, want unknown", res)
		}
		if err := m.Delete(second.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("second Delete = %v, want ErrNotFound", err)
		}
		if err := m.Revoke(second.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Revoke deleted = %v, want ErrNotFound", err)
		}
		// The name is free again once the token is gone.
		if _, err := m.Add("second", SecondToken, nil); err != nil {
			t.Errorf("re-adding a deleted name: %v", err)
		}
		// Added tokens are pinned; created ones are not. DeleteAll removes
		// only the latter.
		made, _, err := m.Create("made")
		if err != nil || made.Pinned {
			t.Fatalf("Create: %+v, %v; want an unpinned token", made, err)
		}
		if n := must(m.DeleteAll()); n != 1 {
			t.Errorf("DeleteAll removed %d, want 1 (the created token)", n)
		}
		for _, tok := range list(t, m) {
			if !tok.Pinned || tok.ID == made.ID {
				t.Errorf("after DeleteAll: %+v", tok)
			}
		}
		if len(list(t, m)) != 3 {
			t.Errorf("after DeleteAll: %d tokens, want the 3 added ones", len(list(t, m)))
		}
	})
}

func TestSnapshotNeverHoldsValues(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		_, created, err := m.Create("made")
		if err != nil {
			t.Fatal(err)
		}
		check(t, m, "Bearer "+DevToken, t0)
		b, err := json.Marshal(snapshot(t, m))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{DevToken, SecondToken, ExpiredToken, created} {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("snapshot contains the value %q: %s", v, b)
			}
		}
	})
}

func TestRestoreRoundTrip(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		check(t, m, "Bearer "+DevToken, t0)
		snap := snapshot(t, m)

		r := mk(t)
		if err := r.Restore(snap); err != nil {
			t.Fatal(err)
		}
		if got := snapshot(t, r); !slices.EqualFunc(got, snap, tokenEqual) {
			t.Errorf("restored %+v, want %+v", got, snap)
		}
		if _, res := check(t, r, "Bearer "+ExpiredToken, t0); res != Expired {
			t.Errorf("restored expired token: %v", res)
		}
		tok, _, err := r.Create("next")
		if err != nil || tok.ID != 4 {
			t.Errorf("Create after Restore: id %d, %v; want 4", tok.ID, err)
		}

		bad := []struct {
			name string
			edit func([]Token) []Token
		}{
			{"zero id", func(s []Token) []Token { s[0].ID = 0; return s }},
			{"repeated id", func(s []Token) []Token { s[1].ID = s[0].ID; return s }},
			{"repeated name", func(s []Token) []Token { s[1].Name = s[0].Name; return s }},
			{"repeated hash", func(s []Token) []Token { s[1].Hash = s[0].Hash; return s }},
			{"empty name", func(s []Token) []Token { s[2].Name = ""; return s }},
		}
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				r := seededWith(t, mk)
				before := snapshot(t, r)
				if err := r.Restore(tc.edit(snapshot(t, m))); err == nil {
					t.Fatal("Restore accepted a bad snapshot")
				}
				if !slices.EqualFunc(snapshot(t, r), before, tokenEqual) {
					t.Error("a refused Restore changed the store")
				}
			})
		}
	})
}

func snapshot(t *testing.T, s Store) []Token {
	t.Helper()
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func tokenEqual(a, b Token) bool {
	ta, _ := json.Marshal(a)
	tb, _ := json.Marshal(b)
	return bytes.Equal(ta, tb)
}

func TestConcurrentUse(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := mk(t)
		workers, each := 8, 200
		if _, ok := m.(*redisStore); ok {
			each = 40 // the same races, at a cost that suits a round trip per call
			if testenv.RaceEnabled {
				each = 10
			}
		}
		ids := make(chan int64, workers*each)
		var deleted sync.Map
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					tok, value, err := m.Create(fmt.Sprintf("w%d-%d", w, i))
					if err != nil {
						t.Error(err)
						return
					}
					ids <- tok.ID
					if got, res, err := Check(m, "Bearer "+value, t0); err != nil || res != OK || got.ID != tok.ID {
						t.Errorf("Check own token: %v id %d, want %d (%v)", res, got.ID, tok.ID, err)
					}
					if i%2 == 0 {
						if err := m.Delete(tok.ID); err != nil {
							t.Error(err)
						}
						deleted.Store(tok.ID, true)
						if _, ok, err := m.Lookup(value); ok || err != nil {
							t.Error("deleted token still found", err)
						}
					}
					if _, err := m.List(); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		close(ids)
		seen := map[int64]bool{}
		for id := range ids {
			if seen[id] {
				t.Fatalf("id %d handed out twice", id)
			}
			seen[id] = true
		}
		if len(seen) != workers*each {
			t.Fatalf("%d ids, want %d", len(seen), workers*each)
		}
		for id := range int64(workers * each) {
			if !seen[id+1] {
				t.Errorf("id %d never handed out", id+1)
			}
		}
		list := list(t, m)
		if len(list) != workers*each/2 {
			t.Errorf("%d tokens left, want %d", len(list), workers*each/2)
		}
		for i, tok := range list {
			if _, gone := deleted.Load(tok.ID); gone {
				t.Errorf("deleted id %d still listed", tok.ID)
			}
			if i > 0 && list[i-1].ID >= tok.ID {
				t.Errorf("List not sorted at %d", i)
			}
		}
	})
}

func TestResultString(t *testing.T) {
	for r, want := range map[Result]string{OK: "ok", Missing: "missing", BadScheme: "bad_scheme",
		Malformed: "malformed", Unknown: "unknown", Expired: "expired", Revoked: "revoked", Result(99): "invalid"} {
		if got := r.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", r, got, want)
		}
	}
}

func TestFixtures(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		fx := Fixtures()
		if fx[0].Value != DevToken || fx[0].Expires != nil {
			t.Errorf("first fixture %+v, want the non-expiring dev token", fx[0])
		}
		fx[0].Value = "changed"
		if Fixtures()[0].Value != DevToken {
			t.Error("Fixtures shares its slice between calls")
		}
		err := Seed(seededWith(t, mk), Fixtures()...)
		if !errors.Is(err, ErrDuplicateName) || !strings.Contains(err.Error(), `"dev"`) {
			t.Errorf("seeding twice: %v", err)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	m := NewMemory()
	for i := range 1000 {
		if _, _, err := m.Create(fmt.Sprint("t", i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := m.Add("dev", DevToken, nil); err != nil {
		b.Fatal(err)
	}
	header := "Bearer " + DevToken
	b.ReportAllocs()
	for b.Loop() {
		if _, res, _ := Check(m, header, t0); res != OK {
			b.Fatal(res)
		}
	}
}

func BenchmarkCheckParallel(b *testing.B) {
	m := seeded(b)
	header := "Bearer " + DevToken
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			Check(m, header, t0)
		}
	})
}
