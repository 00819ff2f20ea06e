package store_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func rec(id string, created time.Time) store.Record {
	return store.Record{ID: id, Created: created, Updated: created, Data: json.RawMessage(`{"id":"` + id + `"}`)}
}

func TestMemoryCRUD(t *testing.T) {
	m := store.NewMemory()
	if _, err := m.Insert("things", rec("a", t0)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Insert("things", rec("a", t0)); !errors.Is(err, store.ErrExists) {
		t.Errorf("duplicate insert: %v, want ErrExists", err)
	}
	if _, err := m.Insert("", rec("b", t0)); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("no collection: %v, want ErrInvalid", err)
	}
	if _, err := m.Insert("things", rec("", t0)); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("no id: %v, want ErrInvalid", err)
	}
	got, err := m.Get("things", "a")
	if err != nil || string(got.Data) != `{"id":"a"}` || got.Seq == 0 {
		t.Fatalf("get: %+v %v", got, err)
	}
	// A returned record is a copy: changing it changes nothing stored.
	got.Data[2] = 'X'
	if again, _ := m.Get("things", "a"); string(again.Data) != `{"id":"a"}` {
		t.Errorf("the store shares its bytes with callers: %s", again.Data)
	}
	upd, err := m.Update("things", "a", func(r *store.Record) error {
		r.Data = json.RawMessage(`{"v":2}`)
		r.ID, r.Seq = "hijack", 99 // ignored
		return nil
	})
	if err != nil || upd.ID != "a" || upd.Seq != got.Seq || string(upd.Data) != `{"v":2}` {
		t.Fatalf("update: %+v %v", upd, err)
	}
	boom := errors.New("boom")
	if _, err := m.Update("things", "a", func(r *store.Record) error { r.Data = nil; return boom }); !errors.Is(err, boom) {
		t.Errorf("update error: %v", err)
	}
	if r, _ := m.Get("things", "a"); string(r.Data) != `{"v":2}` {
		t.Errorf("a failed update changed the record: %s", r.Data)
	}
	if _, err := m.Update("things", "zz", func(*store.Record) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update missing: %v", err)
	}
	if err := m.Delete("things", "a"); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete("things", "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := m.Get("things", "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get deleted: %v", err)
	}
}

// TestListIsNewestFirst: by creation time, and by insertion order when two
// records were created at the same instant (a fake clock standing still).
func TestListIsNewestFirst(t *testing.T) {
	m := store.NewMemory()
	for _, r := range []store.Record{rec("old", t0.Add(-time.Hour)), rec("same1", t0), rec("same2", t0), rec("older", t0.Add(-2*time.Hour))} {
		if _, err := m.Insert("c", r); err != nil {
			t.Fatal(err)
		}
	}
	rs, _ := m.List("c")
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "same2,same1,old,older" {
		t.Errorf("order %s", got)
	}
	if rs, _ := m.List("empty"); rs == nil || len(rs) != 0 {
		t.Errorf("an unknown collection lists as %v, want an empty list", rs)
	}
}

func TestNextSeq(t *testing.T) {
	m := store.NewMemory()
	for want := int64(1); want <= 3; want++ {
		if n, _ := m.NextSeq("c"); n != want {
			t.Fatalf("NextSeq %d, want %d", n, want)
		}
	}
	if n, _ := m.NextSeq("other"); n != 1 {
		t.Errorf("counters are per collection: %d", n)
	}
}

// TestConcurrentUse: many writers, no lost or duplicated record (run with
// -race).
func TestConcurrentUse(t *testing.T) {
	m := store.NewMemory()
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := m.Insert("c", rec(id, t0)); err != nil {
					t.Error(err)
				}
				if _, err := m.Update("counter", "n", func(r *store.Record) error {
					var n int
					_ = json.Unmarshal(r.Data, &n)
					r.Data, _ = json.Marshal(n + 1)
					return nil
				}); errors.Is(err, store.ErrNotFound) {
					_, _ = m.Insert("counter", store.Record{ID: "n", Data: json.RawMessage(`0`)})
				}
				if i%2 == 1 {
					if err := m.Delete("c", fmt.Sprintf("w%d-%d", w, i-1)); err != nil {
						t.Error(err)
					}
				}
				_, _ = m.List("c")
			}
		}()
	}
	wg.Wait()
	rs, _ := m.List("c")
	if len(rs) != workers*each/2 {
		t.Errorf("%d records, want %d", len(rs), workers*each/2)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if seen[r.ID] {
			t.Errorf("%s listed twice", r.ID)
		}
		seen[r.ID] = true
	}
}

func TestSnapshotRestore(t *testing.T) {
	m := store.NewMemory()
	_, _ = m.Insert("a", rec("1", t0))
	_, _ = m.Insert("a", rec("2", t0.Add(time.Second)))
	_, _ = m.Insert("b/x", rec("q", t0))
	_, _ = m.NextSeq("a")
	snap, _ := m.Snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back store.Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	n := store.NewMemory()
	if err := n.Restore(back); err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"a", "b/x"} {
		x, _ := m.List(coll)
		y, _ := n.List(coll)
		if fmt.Sprint(x) != fmt.Sprint(y) {
			t.Errorf("%s: restored %v, want %v", coll, y, x)
		}
	}
	if s, _ := n.NextSeq("a"); s != 2 {
		t.Errorf("counter after restore %d, want 2", s)
	}
	// New inserts never reuse a restored Seq.
	r, _ := n.Insert("a", rec("3", t0))
	if r.Seq <= snap.Seq {
		t.Errorf("seq %d after restore, want > %d", r.Seq, snap.Seq)
	}
}

func TestRestoreRefusesDamage(t *testing.T) {
	good := rec("1", t0)
	good.Seq = 1
	cases := map[string]store.Snapshot{
		"empty collection name": {Collections: map[string][]store.Record{"": {good}}},
		"empty id":              {Collections: map[string][]store.Record{"a": {{Seq: 1}}}},
		"repeated id":           {Collections: map[string][]store.Record{"a": {good, good}}},
		"missing seq":           {Collections: map[string][]store.Record{"a": {rec("1", t0)}}},
		"bad json":              {Collections: map[string][]store.Record{"a": {{ID: "1", Seq: 1, Data: json.RawMessage(`{`)}}}},
		"negative counter":      {Counters: map[string]int64{"a": -1}},
	}
	for name, snap := range cases {
		t.Run(name, func(t *testing.T) {
			m := store.NewMemory()
			_, _ = m.Insert("keep", rec("k", t0))
			if err := m.Restore(snap); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("Restore: %v, want ErrInvalid", err)
			}
			if _, err := m.Get("keep", "k"); err != nil {
				t.Errorf("a refused snapshot changed the store: %v", err)
			}
		})
	}
}

func TestStateFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if _, err := store.ReadFile(path); !errors.Is(err, store.ErrNoFile) {
		t.Fatalf("missing file: %v, want ErrNoFile", err)
	}
	f := store.File{SavedAt: t0, Parts: map[string]json.RawMessage{"x": json.RawMessage(`{"a":1}`)}}
	if err := store.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	if err := store.WriteFile(path, f); err != nil { // over an existing file
		t.Fatal(err)
	}
	got, err := store.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var part bytes.Buffer
	_ = json.Compact(&part, got.Parts["x"])
	if got.Format != store.FileFormat || got.Version != store.FileVersion || part.String() != `{"a":1}` || !got.SavedAt.Equal(t0) {
		t.Errorf("read back %+v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if info, _ := os.Stat(path); info.Mode().Perm()&0o077 != 0 {
		t.Errorf("state file mode %v: readable by others", info.Mode())
	}
}

func TestReadFileRefusesDamage(t *testing.T) {
	cases := map[string]string{
		"empty":          "",
		"not json":       "this is not a state file",
		"truncated":      `{"format":"wmsmock-state","version":1,"parts":{"records":`,
		"other format":   `{"format":"something-else","version":1,"parts":{}}`,
		"newer version":  `{"format":"wmsmock-state","version":99,"parts":{}}`,
		"unknown field":  `{"format":"wmsmock-state","version":1,"parts":{},"extra":true}`,
		"trailing stuff": `{"format":"wmsmock-state","version":1,"parts":{}} {}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := store.ReadFile(path)
			if err == nil || errors.Is(err, store.ErrNoFile) {
				t.Fatalf("ReadFile accepted a damaged file: %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestAutosave: a save per tick, errors reported, and it stops with its
// context. Ticks come from a channel, so nothing waits on real time.
func TestAutosave(t *testing.T) {
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	saved := make(chan struct{}, 3)
	var reported []error
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		store.Autosave(ctx, ticks, func() error {
			n++
			saved <- struct{}{}
			if n == 2 {
				return errors.New("disk full")
			}
			return nil
		}, func(err error) { reported = append(reported, err) })
	}()
	for range 3 {
		ticks <- t0
		<-saved
	}
	cancel()
	<-done
	if n != 3 || len(reported) != 1 || reported[0].Error() != "disk full" {
		t.Errorf("saves %d, reported %v", n, reported)
	}
}

// TestVersion: a collection's version moves on with every change to it
// (insert, update, delete, restore) and with nothing else: not a read, not
// a failed update, not a change to another collection.
func TestVersion(t *testing.T) {
	m := store.NewMemory()
	last := map[string]uint64{}
	expect := func(what string, coll string, changed bool) {
		t.Helper()
		v, err := m.Version(coll)
		if err != nil {
			t.Fatal(err)
		}
		if moved := v != last[coll]; moved != changed {
			t.Errorf("%s: version of %q moved %v, want %v", what, coll, moved, changed)
		}
		last[coll] = v
	}
	expect("empty", "things", false)
	if _, err := m.Insert("things", rec("a", t0)); err != nil {
		t.Fatal(err)
	}
	expect("insert", "things", true)
	expect("insert elsewhere", "others", false)
	_, _ = m.Get("things", "a")
	_, _ = m.List("things")
	expect("reads", "things", false)
	_, _ = m.Update("things", "a", func(*store.Record) error { return errors.New("no") })
	expect("failed update", "things", false)
	_, _ = m.Update("things", "a", func(r *store.Record) error { r.Data = json.RawMessage(`{"v":1}`); return nil })
	expect("update", "things", true)
	if _, err := m.Insert("others", rec("b", t0)); err != nil {
		t.Fatal(err)
	}
	expect("a change to another collection", "things", false)
	expect("insert", "others", true)
	snap, _ := m.Snapshot()
	if err := m.Delete("things", "a"); err != nil {
		t.Fatal(err)
	}
	expect("delete", "things", true)
	if err := m.Restore(snap); err != nil {
		t.Fatal(err)
	}
	expect("restore brings a collection back", "things", true)
	expect("restore", "others", true)
	if err := m.Restore(store.Snapshot{}); err != nil {
		t.Fatal(err)
	}
	expect("restore empties a collection", "things", true)
}

// TestRemoveTemporary: the temporary files of interrupted saves of one
// path go, and nothing else does (the state file, another path's files, a
// name that only looks alike).
func TestRemoveTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "st[1].json") // glob characters match literally
	keep := []string{"st[1].json", ".other.json.tmp-123", "st[1].json.tmp-9", ".st[1].json.bak"}
	gone := []string{".st[1].json.tmp-1", ".st[1].json.tmp-2345"}
	for _, n := range append(slices.Clone(keep), gone...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n, err := store.RemoveTemporary(path)
	if err != nil || n != len(gone) {
		t.Fatalf("RemoveTemporary: %d, %v; want %d removed", n, err, len(gone))
	}
	for _, k := range keep {
		if _, err := os.Stat(filepath.Join(dir, k)); err != nil {
			t.Errorf("%s was removed: %v", k, err)
		}
	}
	for _, g := range gone {
		if _, err := os.Stat(filepath.Join(dir, g)); err == nil {
			t.Errorf("%s survived", g)
		}
	}
}

// TestPageKeepsListsInOrder: an indexer's lists stay newest first through
// inserts (in and out of time order), updates that move a record in time
// or to another list, deletes and a restore; a page reads a window of its
// list, and a search counts only matches within its window.
func TestPageKeepsListsInOrder(t *testing.T) {
	m := store.NewMemory()
	// The list is the record's data ("a" or "b"); the text its id.
	byData := func(r store.Record) ([]string, string) {
		var l string
		_ = json.Unmarshal(r.Data, &l)
		return []string{l}, r.ID
	}
	put := func(id, list string, at time.Duration) {
		t.Helper()
		if _, err := m.Insert("c", store.Record{ID: id, Created: t0.Add(at), Data: json.RawMessage(`"` + list + `"`)}); err != nil {
			t.Fatal(err)
		}
	}
	put("x1", "a", 1) // filed before the indexer exists
	if err := m.Index("c", byData); err != nil {
		t.Fatal(err)
	}
	put("x2", "a", 2)
	put("y3", "b", 3)
	put("x0", "a", 0) // older than all: goes to the end
	put("x2b", "a", 2)
	page := func(q store.Query) ([]string, int) {
		t.Helper()
		q.List = cmp.Or(q.List, "a")
		rs, total, err := m.Page("c", q)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
		return ids, total
	}
	check := func(what string, q store.Query, want []string, wantTotal int) {
		t.Helper()
		if got, total := page(q); !slices.Equal(got, want) || total != wantTotal {
			t.Errorf("%s: %v (total %d), want %v (total %d)", what, got, total, want, wantTotal)
		}
	}
	check("all of a", store.Query{Limit: 10}, []string{"x2b", "x2", "x1", "x0"}, 4)
	check("a window", store.Query{Offset: 1, Limit: 2}, []string{"x2", "x1"}, 4)
	check("past the end", store.Query{Offset: 9, Limit: 2}, []string{}, 4)
	check("list b", store.Query{List: "b", Limit: 10}, []string{"y3"}, 1)
	check("no such list", store.Query{List: "z", Limit: 10}, []string{}, 0)
	check("search", store.Query{Contains: "x2", Limit: 10}, []string{"x2b", "x2"}, 2)
	check("search, second page", store.Query{Contains: "x", Offset: 1, Limit: 2}, []string{"x2", "x1"}, 4)
	check("search window", store.Query{Contains: "x", Window: 2, Limit: 10}, []string{"x2b", "x2"}, 2)

	// x0 moves to list b and becomes the newest; x2 is deleted.
	if _, err := m.Update("c", "x0", func(r *store.Record) error {
		r.Created, r.Data = t0.Add(9), json.RawMessage(`"b"`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete("c", "x2"); err != nil {
		t.Fatal(err)
	}
	check("a after update and delete", store.Query{Limit: 10}, []string{"x2b", "x1"}, 2)
	check("b after update", store.Query{List: "b", Limit: 10}, []string{"x0", "y3"}, 2)

	snap, _ := m.Snapshot()
	if err := m.Restore(store.Snapshot{}); err != nil {
		t.Fatal(err)
	}
	check("a after an empty restore", store.Query{Limit: 10}, []string{}, 0)
	if err := m.Restore(snap); err != nil {
		t.Fatal(err)
	}
	check("a after restore", store.Query{Limit: 10}, []string{"x2b", "x1"}, 2)
	check("b after restore", store.Query{List: "b", Limit: 10}, []string{"x0", "y3"}, 2)
	if _, _, err := m.Page("c", store.Query{List: "a", Offset: -1}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("negative offset: %v", err)
	}
}

// A search matches each record's current text: after an update that
// changes it, after a restore, and for texts larger than a block of the
// store's text arena.
func TestSearchFollowsText(t *testing.T) {
	m := store.NewMemory()
	byData := func(r store.Record) ([]string, string) {
		var s string
		_ = json.Unmarshal(r.Data, &s)
		return []string{"l"}, s
	}
	if err := m.Index("c", byData); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("z", 70_000) + "needle"
	for i, text := range []string{"alpha", "beta", big, "gamma"} {
		b, _ := json.Marshal(text)
		if _, err := m.Insert("c", store.Record{ID: fmt.Sprint(i), Created: t0.Add(time.Duration(i)), Data: b}); err != nil {
			t.Fatal(err)
		}
	}
	search := func(what, s string, want ...string) {
		t.Helper()
		rs, total, err := m.Page("c", store.Query{List: "l", Limit: 10, Contains: s})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, r := range rs {
			got = append(got, r.ID)
		}
		if !slices.Equal(got, want) || total != len(want) {
			t.Errorf("%s: search %q found %v (total %d), want %v", what, s, got, total, want)
		}
	}
	search("filed", "needle", "2")
	search("filed", "a", "3", "1", "0")
	if _, err := m.Update("c", "0", func(r *store.Record) error { r.Data = json.RawMessage(`"delta"`); return nil }); err != nil {
		t.Fatal(err)
	}
	search("after an update", "alpha")
	search("after an update", "delta", "0")
	snap, _ := m.Snapshot()
	if err := m.Restore(snap); err != nil {
		t.Fatal(err)
	}
	search("after a restore", "delta", "0")
	search("after a restore", "a", "3", "1", "0")
	search("after a restore", "needle", "2")
}

// TestPageSharesReadOnly: a page hands out the store's own bytes (lists are
// read far more than anything), so it must be safe to keep and append to
// them while the record changes: an append never writes into the store,
// and an update leaves the bytes a reader holds as they were.
func TestPageSharesReadOnly(t *testing.T) {
	m := store.NewMemory()
	if err := m.Index("c", func(store.Record) ([]string, string) { return []string{"all"}, "" }); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Insert("c", rec("a", t0)); err != nil {
		t.Fatal(err)
	}
	page, _, err := m.Page("c", store.Query{List: "all", Limit: 10})
	if err != nil || len(page) != 1 {
		t.Fatalf("page: %v %v", page, err)
	}
	held := page[0].Data
	other, _, _ := m.Page("c", store.Query{List: "all", Limit: 10})
	grown := append(held, "one"...)
	_ = append(other[0].Data, "two"...) // another reader's append
	if string(grown) != `{"id":"a"}one` {
		t.Fatalf("two readers' appends wrote into one array: %s", grown)
	}
	if again, _ := m.Get("c", "a"); string(again.Data) != `{"id":"a"}` {
		t.Fatalf("an append to a page's data reached the store: %s", again.Data)
	}
	if _, err := m.Update("c", "a", func(r *store.Record) error {
		r.Data = append(r.Data[:0], `{"id":"b"}`...) // the update's copy, rewritten in place
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if string(held) != `{"id":"a"}` {
		t.Fatalf("an update changed the bytes a page handed out: %s", held)
	}
	if again, _ := m.Get("c", "a"); string(again.Data) != `{"id":"b"}` {
		t.Fatalf("update not stored: %s", again.Data)
	}
}
