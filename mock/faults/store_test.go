package faults

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/profile"
)

// stores runs a test on every kind of Store: memory, miniredis, and a
// real redis-server when installed.
func stores(t *testing.T, test func(t *testing.T, open func() Store)) {
	t.Run("memory", func(t *testing.T) {
		m := NewMemory()
		test(t, func() Store { return m })
	})
	redisAt := func(t *testing.T, addr string) {
		test(t, func() Store {
			c := redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { _ = c.Close() })
			return NewRedis(c, "wmsmock:faults", 0)
		})
	}
	t.Run("miniredis", func(t *testing.T) { redisAt(t, miniredis.RunT(t).Addr()) })
	t.Run("redis-server", func(t *testing.T) { redisAt(t, testenv.RedisServer(t)) })
}

func fault(t *testing.T, f Fault) Stored {
	t.Helper()
	s, err := storedFault(f, SourceAdmin)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ids(rules []Stored) []string {
	order(rules)
	out := []string{}
	for _, r := range rules {
		out = append(out, r.ID)
	}
	return out
}

// The contract every Store keeps: ids and order, versions that move with
// every change, uses counted and spent exactly, pinned rules that a reset
// brings back and pinning again leaves alone.
func TestStoreContract(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		st := open()
		v0, _ := st.Version()
		a, err := st.Add(fault(t, Fault{Status: 503}))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := st.Add(Stored{Kind: KindOverride, Source: SourceLibrary, Rule: []byte(`{"operation":"x","status":200}`)})
		if a.ID != "fault-1" || b.ID != "override-2" {
			t.Fatalf("ids %s %s, want fault-1 override-2 (one numbering for both kinds)", a.ID, b.ID)
		}
		v1, _ := st.Version()
		if v1 == v0 {
			t.Error("adding did not change the version")
		}
		if err := Pin(st, Pinning{Source: SourceProfile, Faults: []Fault{{Status: 500}, {Status: 502}}}); err != nil {
			t.Fatal(err)
		}
		rules, v2, err := st.Rules()
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids(rules)); got != "[override-2 fault-1 profile-fault-1 profile-fault-2]" {
			t.Errorf("order %s: added rules newest first, then pinned ones in their order", got)
		}
		if v2 == v1 {
			t.Error("pinning did not change the version")
		}

		// Uses: counted from 1, the one reaching the limit spends the rule.
		for want := int64(1); want <= 2; want++ {
			if n, err := st.Hit("profile-fault-1", 2); err != nil || n != want {
				t.Fatalf("hit %d: %d %v", want, n, err)
			}
		}
		if n, _ := st.Hit("profile-fault-1", 2); n != 0 {
			t.Errorf("a spent rule was hit again: %d", n)
		}
		if n, _ := st.Seen("profile-fault-1"); n != 0 {
			t.Errorf("a spent rule was seen: %d", n)
		}
		if n, _ := st.Seen("fault-1"); n != 1 {
			t.Errorf("seen %d", n)
		}
		st.Hit("fault-1", 0)
		if hits, _ := st.Hits(); hits["fault-1"] != 1 || hits["profile-fault-1"] != 0 {
			t.Errorf("hits %v", hits)
		}
		rules, _, _ = st.Rules()
		if got := fmt.Sprint(ids(rules)); got != "[override-2 fault-1 profile-fault-2]" {
			t.Errorf("after spending profile-fault-1: %s", got)
		}

		// Pinning the same rules again (a second replica starting) leaves
		// a spent one spent; a changed one is replaced, a dropped one goes.
		if err := Pin(st, Pinning{Source: SourceProfile, Faults: []Fault{{Status: 500}, {Status: 502}}}); err != nil {
			t.Fatal(err)
		}
		if rules, _, _ = st.Rules(); fmt.Sprint(ids(rules)) != "[override-2 fault-1 profile-fault-2]" {
			t.Errorf("pinning again brought back a spent rule: %s", ids(rules))
		}
		if err := Pin(st, Pinning{Source: SourceProfile, Faults: []Fault{{Status: 504}}}); err != nil {
			t.Fatal(err)
		}
		rules, _, _ = st.Rules()
		if fmt.Sprint(ids(rules)) != "[override-2 fault-1 profile-fault-1]" {
			t.Errorf("pinning other rules: %s", ids(rules))
		}

		if ok, _ := st.Remove("fault-1"); !ok {
			t.Error("Remove fault-1: not there")
		}
		if ok, _ := st.Remove("fault-1"); ok {
			t.Error("Remove twice")
		}
		if n, _ := st.RemoveKind(KindOverride); n != 1 {
			t.Errorf("RemoveKind: %d", n)
		}
		st.Add(fault(t, Fault{Status: 503}))
		st.Hit("profile-fault-1", 0)
		if err := st.Reset(); err != nil {
			t.Fatal(err)
		}
		rules, _, _ = st.Rules()
		hits, _ := st.Hits()
		if fmt.Sprint(ids(rules)) != "[profile-fault-1]" || len(hits) != 0 {
			t.Errorf("after a reset: %s, hits %v; want the pinned rule alone, uncounted", ids(rules), hits)
		}
		if n, _ := st.Hit("profile-fault-1", 0); n != 1 {
			t.Errorf("first hit after a reset: %d", n)
		}
	})
}

// No more than profile.MaxFaultRules at once, pinned ones included.
func TestStoreCap(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		st := open()
		if err := Pin(st, Pinning{Source: SourceProfile, Faults: []Fault{{Status: 500}}}); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < profile.MaxFaultRules; i++ {
			if _, err := st.Add(fault(t, Fault{Status: 503})); err != nil {
				t.Fatalf("rule %d: %v", i+1, err)
			}
		}
		if _, err := st.Add(fault(t, Fault{Status: 503})); !errors.Is(err, ErrFull) || !errors.Is(err, ErrInvalid) {
			t.Fatalf("rule %d: %v, want ErrFull", profile.MaxFaultRules+1, err)
		}
		st.Remove("fault-1")
		if _, err := st.Add(fault(t, Fault{Status: 503})); err != nil {
			t.Errorf("after removing one: %v", err)
		}
	})
}

// Uses are counted exactly under concurrent calls: a rule for 5 calls acts
// on 5 of 200, whichever goroutine (or replica) makes them.
func TestStoreCountsUsesExactly(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		a, b := open(), open()
		r, err := a.Add(fault(t, Fault{Status: 503, Times: 5}))
		if err != nil {
			t.Fatal(err)
		}
		var got atomic.Int64
		seen := make([]atomic.Bool, 6)
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st := a
				if i%2 == 1 {
					st = b
				}
				n, err := st.Hit(r.ID, 5)
				if err != nil {
					t.Error(err)
					return
				}
				if n > 0 {
					got.Add(1)
					if n > 5 || seen[n].Swap(true) {
						t.Errorf("use %d given twice or past the limit", n)
					}
				}
			}()
		}
		wg.Wait()
		if got.Load() != 5 {
			t.Errorf("%d uses, want 5", got.Load())
		}
	})
}

// A Redis that does not answer is an error wrapping ErrUnavailable, never
// a silent "no rule".
func TestRedisStoreUnavailable(t *testing.T) {
	mr := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	st := NewRedis(c, "p", 200*time.Millisecond)
	mr.Close()
	if _, err := st.Version(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Version: %v", err)
	}
	if _, err := st.Hit("fault-1", 0); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Hit: %v", err)
	}
}
