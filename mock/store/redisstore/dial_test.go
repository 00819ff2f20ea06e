package redisstore_test

import (
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/store/redisstore"
)

// ParseURL takes what --store takes (redis:// or rediss://, a host, a
// port, a database) and refuses anything else with the form it wants.
func TestParseURL(t *testing.T) {
	for _, ok := range []string{"redis://127.0.0.1:6379/0", "redis://user:pw@redis:6380/3", "rediss://cache.example:6379"} {
		if _, err := redisstore.ParseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	opt, err := redisstore.ParseURL("redis://redis:6380/3")
	if err != nil || opt.Addr != "redis:6380" || opt.DB != 3 {
		t.Errorf("redis://redis:6380/3 read as %+v, %v", opt, err)
	}
	for _, bad := range []string{"", "127.0.0.1:6379", "http://redis:6379/0", "redis://redis:6379/notanumber"} {
		_, err := redisstore.ParseURL(bad)
		if err == nil || !strings.Contains(err.Error(), "redis://HOST:PORT/DB") {
			t.Errorf("%q: %v, want a refusal that shows the form", bad, err)
		}
	}
}

// Dial answers with a client that reaches the Redis named, and refuses an
// address where nothing answers within the timeout, naming it, so a wrong
// --store stops the start instead of failing calls later.
func TestDial(t *testing.T) {
	mr := miniredis.RunT(t)
	c, err := redisstore.Dial("redis://"+mr.Addr()+"/0", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := redisstore.New(c, "p", time.Second)
	defer s.Close()
	if _, err := s.Insert("c", store.Record{ID: "x", Data: json.RawMessage(`1`)}); err != nil {
		t.Fatal(err)
	}
	if len(mr.Keys()) == 0 {
		t.Error("the dialled client wrote nothing to the Redis named")
	}

	// A port that was free a moment ago: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	if _, err := redisstore.Dial("redis://"+addr+"/0", 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("Dial to %s where nothing listens: %v, want an error naming it", addr, err)
	}
	if _, err := redisstore.Dial("not a url", time.Second); err == nil {
		t.Error("Dial accepted a string that is no URL")
	}
}

// List reads a whole collection, newest first whatever the order of
// insertion, without what was deleted, and says when Redis is gone.
func TestList(t *testing.T) {
	mr, rs := replicas(t, 2)
	a, b := rs[0], rs[1]
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"mid", "old", "new", "gone"} {
		created := base.Add(time.Duration([]int{2, 1, 3, 4}[i]) * time.Hour)
		if _, err := a.Insert("l", store.Record{ID: id, Created: created, Data: json.RawMessage(`"a"`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Delete("l", "gone"); err != nil {
		t.Fatal(err)
	}
	got, err := b.List("l")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids(got), ",") != "new,mid,old" {
		t.Errorf("List through another replica: %v, want new,mid,old", ids(got))
	}
	if empty, err := b.List("none"); err != nil || len(empty) != 0 {
		t.Errorf("List of an empty collection: %v, %v", empty, err)
	}
	mr.Close()
	if _, err := b.List("l"); !errors.Is(err, redisstore.ErrUnavailable) {
		t.Errorf("List with Redis down: %v, want ErrUnavailable", err)
	}
}
