package redisstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// byData files a record under the list its data names ("a", "b"), with
// its id as search text.
func byData(r store.Record) ([]string, string) {
	var l string
	_ = json.Unmarshal(r.Data, &l)
	return []string{l}, r.ID
}

// replicas returns n stores on one in-process Redis, as n replicas of the
// fake would hold them.
func replicas(t *testing.T, n int) (*miniredis.Miniredis, []*redisstore.Store) {
	t.Helper()
	mr := miniredis.RunT(t)
	var out []*redisstore.Store
	for range n {
		c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		s := redisstore.New(c, "wmsmock", time.Second)
		if err := s.Index("c", byData); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return mr, out
}

func ids(rs []store.Record) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// TestSharedRecords: what one replica writes, the others read, list and
// change; the lists stay in order through inserts out of time order,
// updates that move a record and deletes; a search counts matches within
// its window only.
func TestSharedRecords(t *testing.T) {
	_, rs := replicas(t, 3)
	a, b, c := rs[0], rs[1], rs[2]
	put := func(s *redisstore.Store, id, list string, at time.Duration) {
		t.Helper()
		if _, err := s.Insert("c", store.Record{ID: id, Created: t0.Add(at), Data: json.RawMessage(`"` + list + `"`)}); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "x1", "a", 1)
	put(b, "x2", "a", 2)
	put(c, "y3", "b", 3)
	put(a, "x0", "a", 0)
	put(b, "x2b", "a", 2)
	if _, err := c.Insert("c", store.Record{ID: "x1"}); !errors.Is(err, store.ErrExists) {
		t.Errorf("an id taken on another replica: %v, want ErrExists", err)
	}
	check := func(s *redisstore.Store, what string, q store.Query, want []string, wantTotal int) {
		t.Helper()
		if q.List == "" {
			q.List = "a"
		}
		got, total, err := s.Page("c", q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), want) || total != wantTotal {
			t.Errorf("%s: %v (total %d), want %v (total %d)", what, ids(got), total, want, wantTotal)
		}
	}
	check(c, "all of a", store.Query{Limit: 10}, []string{"x2b", "x2", "x1", "x0"}, 4)
	check(a, "a window", store.Query{Offset: 1, Limit: 2}, []string{"x2", "x1"}, 4)
	check(b, "past the end", store.Query{Offset: 9, Limit: 2}, []string{}, 4)
	check(b, "list b", store.Query{List: "b", Limit: 10}, []string{"y3"}, 1)
	check(a, "search", store.Query{Contains: "x2", Limit: 10}, []string{"x2b", "x2"}, 2)
	check(a, "search, second page", store.Query{Contains: "x", Offset: 1, Limit: 2}, []string{"x2", "x1"}, 4)
	check(a, "search window", store.Query{Contains: "x", Window: 2, Limit: 10}, []string{"x2b", "x2"}, 2)

	v0, _ := a.Version("c")
	if _, err := b.Update("c", "x0", func(r *store.Record) error {
		r.Created, r.Data = t0.Add(9), json.RawMessage(`"b"`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("c", "x2"); err != nil {
		t.Fatal(err)
	}
	if v1, _ := a.Version("c"); v1 == v0 {
		t.Error("the version did not move with another replica's writes")
	}
	check(a, "a after update and delete", store.Query{Limit: 10}, []string{"x2b", "x1"}, 2)
	check(a, "b after update", store.Query{List: "b", Limit: 10}, []string{"x0", "y3"}, 2)
	if r, err := a.Get("c", "x0"); err != nil || !r.Created.Equal(t0.Add(9)) {
		t.Errorf("Get after another replica's update: %+v %v", r, err)
	}
	if _, err := a.Get("c", "x2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after another replica's delete: %v", err)
	}
	if err := a.Delete("c", "x2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	boom := errors.New("boom")
	if _, err := a.Update("c", "x1", func(*store.Record) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Update's function error: %v", err)
	}

	snap, err := b.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Restore(store.Snapshot{}); err != nil {
		t.Fatal(err)
	}
	check(c, "a after an empty restore", store.Query{Limit: 10}, []string{}, 0)
	if err := a.Restore(snap); err != nil {
		t.Fatal(err)
	}
	check(c, "a after restore", store.Query{Limit: 10}, []string{"x2b", "x1"}, 2)
	check(b, "b after restore", store.Query{List: "b", Limit: 10}, []string{"x0", "y3"}, 2)
	if n1, _ := a.NextSeq("k"); n1 != 1 {
		t.Errorf("NextSeq: %d", n1)
	}
	if n2, _ := b.NextSeq("k"); n2 != 2 {
		t.Errorf("NextSeq on another replica: %d, want 2", n2)
	}
	bad := store.Snapshot{Collections: map[string][]store.Record{"c": {{ID: "", Seq: 1}}}}
	if err := a.Restore(bad); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("damaged snapshot: %v", err)
	}
	check(c, "a after a refused restore", store.Query{Limit: 10}, []string{"x2b", "x1"}, 2)
}

// TestConcurrentUpdates: updates of one record from three replicas at once
// lose none (each is a read-change-write on the record, retried when
// another replica wrote in between).
func TestConcurrentUpdates(t *testing.T) {
	_, rs := replicas(t, 3)
	if _, err := rs[0].Insert("c", store.Record{ID: "n", Created: t0, Data: json.RawMessage(`0`)}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, s := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := s.Update("c", "n", func(r *store.Record) error {
					var n int
					_ = json.Unmarshal(r.Data, &n)
					r.Data = json.RawMessage(fmt.Sprint(n + 1))
					return nil
				}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if r, _ := rs[1].Get("c", "n"); string(r.Data) != "30" {
		t.Errorf("after 30 concurrent increments: %s", r.Data)
	}
}

// TestRedisGoingAway: with Redis down every call fails with
// ErrUnavailable (never a silent empty answer), and the store serves
// again once Redis is back.
func TestRedisGoingAway(t *testing.T) {
	mr, rs := replicas(t, 1)
	s := rs[0]
	if _, err := s.Insert("c", store.Record{ID: "kept", Created: t0, Data: json.RawMessage(`"a"`)}); err != nil {
		t.Fatal(err)
	}
	mr.Close()
	if _, err := s.Get("c", "kept"); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("Get with Redis down: %v, want ErrUnavailable", err)
	}
	if _, _, err := s.Page("c", store.Query{List: "a", Limit: 5}); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("Page with Redis down: %v", err)
	}
	if _, err := s.Insert("c", store.Record{ID: "new"}); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("Insert with Redis down: %v", err)
	}
	if _, err := s.Update("c", "kept", func(*store.Record) error { return nil }); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("Update with Redis down: %v", err)
	}
	if err := s.Ping(); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("Ping with Redis down: %v", err)
	}
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(); err != nil {
		t.Errorf("Ping after Redis came back: %v", err)
	}
	if _, err := s.Get("c", "kept"); err != nil {
		t.Errorf("Get after Redis came back: %v", err)
	}
}
