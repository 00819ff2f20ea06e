package store_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
)

// A save after a few writes copies those records only, whatever the size
// of the store: the rule that keeps a save from blocking requests.
func TestMirrorCopiesOnlyChanges(t *testing.T) {
	m := store.NewMemory()
	const n = 5000
	for i := range n {
		if _, err := m.Insert("runs", rec(strconv.Itoa(i), t0.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	mr := store.NewMirror(m)
	snap, err := mr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := store.CopiedByChanges(m); got != n {
		t.Errorf("first save copied %d records, want all %d", got, n)
	}
	if len(snap.Collections["runs"]) != n {
		t.Fatalf("first save holds %d runs, want %d", len(snap.Collections["runs"]), n)
	}
	// Two updates, one insert, one delete, and one insert deleted again.
	for _, id := range []string{"10", "4000"} {
		if _, err := m.Update("runs", id, func(r *store.Record) error { r.Data = json.RawMessage(`{"changed":true}`); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = m.Insert("runs", rec("new", t0.Add(-time.Hour)))
	_ = m.Delete("runs", "7")
	_, _ = m.Insert("runs", rec("gone", t0))
	_ = m.Delete("runs", "gone")
	if _, err := mr.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if got := store.CopiedByChanges(m); got != 3 {
		t.Errorf("a save after 3 changed records copied %d under the lock, want 3", got)
	}
	if _, err := mr.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if got := store.CopiedByChanges(m); got != 0 {
		t.Errorf("a save with nothing changed copied %d records, want 0", got)
	}
	// After a restore everything is new to the mirror: one whole copy.
	whole, _ := m.Snapshot()
	if err := m.Restore(whole); err != nil {
		t.Fatal(err)
	}
	if _, err := mr.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if got := store.CopiedByChanges(m); got != n {
		t.Errorf("the save after a restore copied %d, want %d", got, n)
	}
	// A second mirror of the same store takes the changes in turn: each
	// is handed everything, so neither misses what went to the other.
	other := store.NewMirror(m)
	_, _ = m.Insert("runs", rec("late", t0))
	for _, x := range []*store.Mirror{other, mr} {
		s, err := x.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if got := len(s.Collections["runs"]); got != n+1 {
			t.Errorf("a mirror saved %d runs, want %d", got, n+1)
		}
	}
}

// Whatever the writes between saves, the mirror's snapshot is the store's
// whole snapshot, and a file written from it restores the same store.
func TestMirrorMatchesSnapshot(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	m := store.NewMemory()
	mr := store.NewMirror(m)
	dir := t.TempDir()
	ids := map[string][]string{}
	colls := []string{"runs", "pipelines", "tokens"}
	for round := range 40 {
		for range rng.IntN(30) {
			coll := colls[rng.IntN(len(colls))]
			switch op := rng.IntN(10); {
			case op < 5 || len(ids[coll]) == 0:
				id := fmt.Sprintf("r%d-%d", round, rng.IntN(1_000_000))
				if _, err := m.Insert(coll, rec(id, t0.Add(time.Duration(rng.IntN(100))*time.Minute))); err == nil {
					ids[coll] = append(ids[coll], id)
				}
			case op < 8:
				id := ids[coll][rng.IntN(len(ids[coll]))]
				_, _ = m.Update(coll, id, func(r *store.Record) error {
					r.Data = json.RawMessage(fmt.Sprintf(`{"round":%d}`, round))
					r.Created = r.Created.Add(time.Minute)
					return nil
				})
			case op < 9:
				k := rng.IntN(len(ids[coll]))
				_ = m.Delete(coll, ids[coll][k])
				ids[coll] = append(ids[coll][:k], ids[coll][k+1:]...)
			default:
				_, _ = m.NextSeq(coll)
			}
		}
		if round == 20 { // a reset in the middle
			if err := m.Restore(store.Snapshot{}); err != nil {
				t.Fatal(err)
			}
			ids = map[string][]string{}
		}
		got, err := mr.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := m.Snapshot()
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Fatalf("round %d: the mirror's snapshot\n%s\ndiffers from the store's\n%s", round, gb, wb)
		}
		path := filepath.Join(dir, "state.json")
		if err := store.WriteFile(path, store.File{SavedAt: t0, Parts: map[string]json.RawMessage{"records": gb}}); err != nil {
			t.Fatal(err)
		}
		f, err := store.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var back store.Snapshot
		if err := json.Unmarshal(f.Parts["records"], &back); err != nil {
			t.Fatal(err)
		}
		n := store.NewMemory()
		if err := n.Restore(back); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		again, _ := n.Snapshot()
		if ab, _ := json.Marshal(again); string(ab) != string(wb) {
			t.Fatalf("round %d: the file restores\n%s\nnot\n%s", round, ab, wb)
		}
	}
}

// The mirror shares the stored bytes; a later update must not change a
// snapshot already taken (the store replaces a record's bytes, never
// writes into them).
func TestMirrorSnapshotIsStable(t *testing.T) {
	m := store.NewMemory()
	_, _ = m.Insert("runs", rec("a", t0))
	mr := store.NewMirror(m)
	snap, _ := mr.Snapshot()
	before, _ := json.Marshal(snap)
	_, _ = m.Update("runs", "a", func(r *store.Record) error {
		copy(r.Data, `{"id":"X"}`)
		return nil
	})
	_ = m.Delete("runs", "a")
	after, _ := json.Marshal(snap)
	if string(before) != string(after) {
		t.Errorf("a snapshot changed after a later write:\n%s\n%s", before, after)
	}
}

// BenchmarkSaveLockHold measures how long a save holds the store's lock
// with 100,000 stored runs and 5 changed since the previous save:
//
//	go test ./mock/store -run '^$' -bench SaveLockHold
//
// whole-copy is the store's Snapshot (what a save copied before, all of
// it under the lock), changes is the Tracker's Changes (all a save does
// under the lock now), and mirror the whole of a save's copy, most of it
// outside the lock (applying the changes, sorting), with the heap its
// copy of the store takes per record.
func BenchmarkSaveLockHold(b *testing.B) {
	const n = 100_000
	m := store.NewMemory()
	data := json.RawMessage(`{"id":"x","runName":"happy-turing","projectName":"nf-core/rnaseq","status":"SUCCEEDED","workDir":"s3://bucket/work/0123456789abcdef"}`)
	for i := range n {
		if _, err := m.Insert("runs", store.Record{ID: strconv.Itoa(i), Created: t0.Add(time.Duration(i) * time.Second), Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	change := func(i int) {
		for k := range 5 {
			id := strconv.Itoa((i*7 + k*13_001) % n)
			if _, err := m.Update("runs", id, func(r *store.Record) error { r.Updated = r.Updated.Add(time.Second); return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("whole-copy", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			change(i)
			i++
			b.StartTimer()
			if _, err := m.Snapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("changes", func(b *testing.B) {
		ch, _ := m.Changes(0) // the first call copies everything once
		i := 0
		for b.Loop() {
			b.StopTimer()
			change(i)
			i++
			b.StartTimer()
			var err error
			if ch, err = m.Changes(ch.Mark); err != nil {
				b.Fatal(err)
			}
			if len(ch.Records["runs"]) != 5 {
				b.Fatalf("%d changed records, want 5", len(ch.Records["runs"]))
			}
		}
	})
	b.Run("mirror", func(b *testing.B) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		mr := store.NewMirror(m)
		_, _ = mr.Snapshot()
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRecord := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		i := 0
		for b.Loop() {
			b.StopTimer()
			change(i)
			i++
			b.StartTimer()
			s, err := mr.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Collections["runs"]) != n {
				b.Fatalf("%d runs saved, want %d", len(s.Collections["runs"]), n)
			}
		}
		b.ReportMetric(perRecord, "B-mirror/record") // after the loop, which resets metrics
	})
}
