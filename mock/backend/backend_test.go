package backend_test

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/ratewindow"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/clock"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/mock/store"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// seeder puts one run and one reported task in the records, the way the
// server's resources seed theirs, and counts what it was asked to do.
type seeder struct {
	records       func() store.Store
	seeds, indexe atomic.Int32
}

func (s *seeder) Seed() error {
	s.seeds.Add(1)
	for _, r := range []struct{ coll, id string }{{"workflows", "seeded-run"}, {"tasks", "seeded-run/1"}} {
		if _, err := s.records().Insert(r.coll, store.Record{ID: r.id, Created: epoch, Data: []byte(`{}`)}); err != nil {
			return err
		}
	}
	return nil
}

func (s *seeder) IndexRefs() error { s.indexe.Add(1); return nil }

// kind opens backends of one kind; open again with the same place gives
// a backend on the state the first one left (a second replica, or the
// next start), where the kind keeps state beyond the process.
type kind struct {
	name       string
	persistent bool // a second open sees the first one's state
	redis      *redis.Client
	open       func(t *testing.T, opts ...backend.Option) *backend.Backend
}

func kinds(t *testing.T) []kind {
	file := filepath.Join(t.TempDir(), "state.json")
	out := []kind{
		{name: "memory", open: func(t *testing.T, opts ...backend.Option) *backend.Backend {
			return must(t)(backend.NewMemory(opts...))
		}},
		{name: "file", persistent: true, open: func(t *testing.T, opts ...backend.Option) *backend.Backend {
			return must(t)(backend.NewFile(file, 0, opts...))
		}},
	}
	onRedis := func(name, addr string) kind {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { _ = c.Close() })
		return kind{name: name, persistent: true, redis: c, open: func(t *testing.T, opts ...backend.Option) *backend.Backend {
			return must(t)(backend.NewRedis(c, "contract", opts...))
		}}
	}
	out = append(out, onRedis("miniredis", miniredis.RunT(t).Addr()))
	if testing.Short() {
		return out
	}
	return append(out, onRedis("redis-server", testenv.RedisServer(t)))
}

func must(t *testing.T) func(*backend.Backend, error) *backend.Backend {
	return func(b *backend.Backend, err error) *backend.Backend {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// load opens a backend with the contract's options and loads it.
func load(t *testing.T, k kind, clk clock.Clock) (*backend.Backend, *seeder) {
	t.Helper()
	windows, err := ratewindow.Parse("2/1m")
	if err != nil {
		t.Fatal(err)
	}
	b := k.open(t, backend.WithClock(clk), backend.WithRateLimit(windows),
		backend.WithTokens(auth.Fixture{Name: "dev", Value: "contract-dev-token"}))
	sd := &seeder{records: b.Records}
	if err := b.Load(sd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, sd
}

// TestContract runs the same cases over every kind of backend: memory,
// state file, miniredis and (where installed, outside -short) a real
// redis-server.
func TestContract(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			b, sd := load(t, k, clk)

			// Seeded once; the configured token is there, pinned.
			if sd.seeds.Load() != 1 {
				t.Fatalf("seeded %d times, want 1", sd.seeds.Load())
			}
			if _, err := b.Records().Get("tasks", "seeded-run/1"); err != nil {
				t.Fatalf("the seeded task: %v", err)
			}
			dev, found, err := b.Tokens().Lookup("contract-dev-token")
			if err != nil || !found || !dev.Pinned {
				t.Fatalf("configured token: %+v %v %v", dev, found, err)
			}
			if err := b.Health(); err != nil {
				t.Fatalf("health: %v", err)
			}

			// What the API would change: a reported run, a token, calls.
			if _, err := b.Records().Insert("workflows", store.Record{ID: "reported-run", Created: epoch, Data: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			_, created, err := b.Tokens().Create("made")
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []bool{true, true, false} {
				d, err := b.Limiter().Decide("k")
				if err != nil || d.Allowed != want {
					t.Fatalf("call %d: allowed %v (%v), want %v", i+1, d.Allowed, err, want)
				}
			}
			moved, err := b.Clock().Move(time.Hour)
			if err != nil || !moved.Equal(epoch.Add(time.Hour)) {
				t.Fatalf("clock moved to %v (%v)", moved, err)
			}

			// A second open (the next start, another replica) sees it all
			// where the kind keeps state; the seed is not added again.
			if err := b.Save(); err != nil {
				t.Fatal(err)
			}
			if k.persistent {
				b2, sd2 := load(t, k, clk)
				if sd2.seeds.Load() != 0 || sd2.indexe.Load() != 1 {
					t.Errorf("second open: seeded %d, indexed %d times; want 0 and 1", sd2.seeds.Load(), sd2.indexe.Load())
				}
				if _, err := b2.Records().Get("workflows", "reported-run"); err != nil {
					t.Errorf("second open: the reported run: %v", err)
				}
				if _, found, err := b2.Tokens().Lookup(created); !found || err != nil {
					t.Errorf("second open: the created token: %v %v", found, err)
				}
				if err := b2.Clock().Sync(); err != nil || !b2.Clock().Now().Equal(epoch.Add(time.Hour)) {
					t.Errorf("second open: clock at %v (%v), want an hour on", b2.Clock().Now(), err)
				}
			}

			// Reset: the seed, the configured tokens, no calls counted;
			// the clock stays where it is.
			if err := b.Reset(); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Records().Get("workflows", "reported-run"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("after reset, the reported run: %v", err)
			}
			if _, err := b.Records().Get("workflows", "seeded-run"); err != nil {
				t.Errorf("after reset, the seeded run: %v", err)
			}
			if _, found, _ := b.Tokens().Lookup(created); found {
				t.Error("after reset, the created token is still there")
			}
			if _, found, _ := b.Tokens().Lookup("contract-dev-token"); !found {
				t.Error("after reset, the configured token is gone")
			}
			if d, err := b.Limiter().Decide("k"); err != nil || !d.Allowed {
				t.Errorf("after reset, a call is refused: %+v %v", d, err)
			}
			if !b.Clock().Now().Equal(epoch.Add(time.Hour)) {
				t.Errorf("reset moved the clock to %v", b.Clock().Now())
			}
		})
	}
}

// TestRedisEmptied: a Redis that lost its data (restarted without
// persistence, flushed) is filled again the first time a token is not
// found: the seed and the configured tokens come back, and the token is
// found.
func TestRedisEmptied(t *testing.T) {
	for _, k := range kinds(t) {
		if k.redis == nil {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			b, sd := load(t, k, clock.NewFake(epoch))
			if err := k.redis.FlushAll(t.Context()).Err(); err != nil {
				t.Fatal(err)
			}
			tok, result, err := auth.Check(b.Tokens(), "Bearer contract-dev-token", epoch)
			if err != nil || result != auth.OK || !tok.Pinned {
				t.Fatalf("the dev token after the flush: %v %v %+v", result, err, tok)
			}
			if sd.seeds.Load() != 2 {
				t.Errorf("seeded %d times, want 2 (start and refill)", sd.seeds.Load())
			}
			if _, err := b.Records().Get("workflows", "seeded-run"); err != nil {
				t.Errorf("the seed after the refill: %v", err)
			}
			// A token unknown to a Redis that was not emptied stays unknown,
			// and costs no second seeding.
			if _, result, err := auth.Check(b.Tokens(), "Bearer nobody", epoch); err != nil || result != auth.Unknown {
				t.Errorf("an unknown token: %v %v", result, err)
			}
			if sd.seeds.Load() != 2 {
				t.Errorf("an unknown token seeded again (%d)", sd.seeds.Load())
			}
		})
	}
}

// TestRedisDown: health and every call say so when Redis does not answer,
// rather than deciding on stale state.
func TestRedisDown(t *testing.T) {
	m := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	b := must(t)(backend.NewRedis(c, "down", backend.WithTokens(auth.Fixture{Name: "dev", Value: "contract-dev-token"})))
	if err := b.Load(&seeder{records: b.Records}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if err := b.Health(); err == nil {
		t.Error("health is nil with Redis down")
	}
	if _, _, err := auth.Check(b.Tokens(), "Bearer contract-dev-token", epoch); err == nil {
		t.Error("a token check succeeded with Redis down")
	}
	if _, err := b.Clock().Move(time.Minute); err == nil {
		t.Error("the shared clock moved with Redis down")
	}
}

// TestOptionsThatDoNotGo: the kinds refuse what they cannot keep.
func TestOptionsThatDoNotGo(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	defer c.Close()
	for name, open := range map[string]func() (*backend.Backend, error){
		"file without records": func() (*backend.Backend, error) {
			return backend.NewFile(filepath.Join(t.TempDir(), "s"), 0, backend.WithoutRecords())
		},
		"file, empty path":     func() (*backend.Backend, error) { return backend.NewFile(" ", 0) },
		"file, negative saves": func() (*backend.Backend, error) { return backend.NewFile("s", -1) },
		"redis, nil client":    func() (*backend.Backend, error) { return backend.NewRedis(nil, "p") },
		"redis, no prefix":     func() (*backend.Backend, error) { return backend.NewRedis(c, " ") },
		"redis, own records": func() (*backend.Backend, error) {
			return backend.NewRedis(c, "p", backend.WithRecords(store.NewMemory()))
		},
		"redis, no records": func() (*backend.Backend, error) { return backend.NewRedis(c, "p", backend.WithoutRecords()) },
		"a token twice": func() (*backend.Backend, error) {
			return backend.NewMemory(backend.WithTokens(auth.Fixture{Name: "a", Value: "v1"}, auth.Fixture{Name: "a", Value: "v2"}))
		},
		"a token twice, redis": func() (*backend.Backend, error) {
			return backend.NewRedis(c, "p", backend.WithTokens(auth.Fixture{Name: "a", Value: "v1"}, auth.Fixture{Name: "b", Value: "v1"}))
		},
	} {
		if _, err := open(); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

// TestWithoutRecords: a backend that keeps no records still holds tokens
// and resets them.
func TestWithoutRecords(t *testing.T) {
	b := must(t)(backend.NewMemory(backend.WithoutRecords(), backend.WithTokens(auth.Fixture{Name: "dev", Value: "v"})))
	if err := b.Load(nil); err != nil || b.Records() != nil {
		t.Fatalf("load: %v, records %v", err, b.Records())
	}
	if _, _, err := b.Tokens().Create("x"); err != nil {
		t.Fatal(err)
	}
	if err := b.Reset(); err != nil {
		t.Fatal(err)
	}
	if list, _ := b.Tokens().List(); len(list) != 1 {
		t.Errorf("after reset: %d tokens, want the configured one", len(list))
	}
}

// TestDamagedFile: a state file that cannot be read stops the start.
func TestDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	b := must(t)(backend.NewFile(path, 0))
	if err := b.Load(&seeder{records: b.Records}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"savedAt":"2025-03-01T12:00:00Z","parts":{"records":{}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	b = must(t)(backend.NewFile(path, 0))
	err := b.Load(&seeder{records: b.Records})
	if err == nil || !strings.Contains(err.Error(), "will not start") {
		t.Fatalf("load of a damaged file: %v", err)
	}
}

// TestFileConfigurationWins: a state file saved under one configuration
// and restored under another keeps the tokens users made, and the
// configured ones are those of this start (a changed --token replaces the
// saved value), the only pinned ones.
func TestFileConfigurationWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	open := func(value string) *backend.Backend {
		b := must(t)(backend.NewFile(path, 0, backend.WithLogger(slog.New(slog.DiscardHandler)),
			backend.WithTokens(auth.Fixture{Name: "ci", Value: value})))
		if err := b.Load(&seeder{records: b.Records}); err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := open("ci-value-1")
	_, mine, err := b.Tokens().Create("mine")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = open("ci-value-2")
	defer b.Close()
	if _, found, _ := b.Tokens().Lookup("ci-value-1"); found {
		t.Error("the value configured before is still accepted")
	}
	if tok, found, _ := b.Tokens().Lookup("ci-value-2"); !found || !tok.Pinned {
		t.Errorf("the configured value: found %v, %+v", found, tok)
	}
	if tok, found, _ := b.Tokens().Lookup(mine); !found || tok.Pinned {
		t.Errorf("the user's token: found %v, %+v", found, tok)
	}
}

// TestFaultRules: every kind keeps fault rules; on Redis a second replica
// sees and spends the same ones, a state file does not save them (they
// are a test's setting), and a reset leaves only the pinned ones.
func TestFaultRules(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			b, _ := load(t, k, clock.NewFake(epoch))
			if err := faults.Pin(b.Faults(), faults.Pinning{Source: faults.SourceProfile, Faults: []faults.Fault{{Status: 500}}}); err != nil {
				t.Fatal(err)
			}
			e, err := faults.AddFault(b.Faults(), faults.Fault{Status: 503, Times: 2}, faults.SourceAdmin)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := b.Faults().Hit(e.ID, 2); n != 1 || err != nil {
				t.Fatalf("first use: %d %v", n, err)
			}
			if err := b.Save(); err != nil {
				t.Fatal(err)
			}
			if k.redis != nil {
				b2, _ := load(t, k, clock.NewFake(epoch))
				if n, err := b2.Faults().Hit(e.ID, 2); n != 2 || err != nil {
					t.Errorf("the second replica's use of the rule: %d %v, want the second", n, err)
				}
			} else if k.persistent {
				b2, _ := load(t, k, clock.NewFake(epoch))
				if rules, _, _ := b2.Faults().Rules(); len(rules) != 0 {
					t.Errorf("a state file brought back %d fault rules", len(rules))
				}
			}
			if _, err := faults.AddFault(b.Faults(), faults.Fault{Status: 502}, faults.SourceAdmin); err != nil {
				t.Fatal(err)
			}
			if err := b.Reset(); err != nil {
				t.Fatal(err)
			}
			rules, _, err := b.Faults().Rules()
			if err != nil || len(rules) != 1 || rules[0].ID != "profile-fault-1" {
				t.Errorf("after a reset: %+v %v, want the pinned rule alone", rules, err)
			}
		})
	}
}
