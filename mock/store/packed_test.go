package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// packedCases are records a packed collection must give back byte for
// byte: the packable kind, and every kind it must keep as written.
var packedCases = []string{
	`{"taskId":1,"status":"RUNNING","name":"ALIGN (1)","tag":null,"cpus":2,"pcpu":97.5,"env":{"A":"b c"},"module":[]}`,
	`{"taskId":2,"status":"COMPLETED","name":"ALIGN (2)","tag":"x","cpus":2,"pcpu":1e3,"env":{ "A" : "b" },"module":["m"]}`,
	`{}`,
	`{"a":1}`,
	`{"esc\"aped":"v","\u00e9":"\\","":0}`,
	`{ "spaced": 1 }`,
	`{"a":1 ,"b":2}`,
	`{"a":1,"a":2}`,
	`[1,2,3]`,
	`"text"`,
	`null`,
}

// oddCases are not JSON: a store keeps what it is given, so these read
// back as written too (the fuzz test starts from them).
var oddCases = []string{
	``,
	"{\"bad\xff\":1}",
	`{"a":"unterminated}`,
	`{"a":}`,
	`{"a"1}`,
	"\x01",
	"\x02{}",
}

func TestPackedRecordsReadBackAsWritten(t *testing.T) {
	m := NewMemory()
	if err := m.Pack("tasks"); err != nil {
		t.Fatal(err)
	}
	var indexed []string
	if err := m.Index("tasks", func(r Record) ([]string, string) {
		indexed = append(indexed, string(r.Data))
		return []string{"all"}, string(r.Data)
	}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, data := range packedCases {
		if _, err := m.Insert("tasks", Record{ID: fmt.Sprint(i), Created: t0.Add(time.Duration(i)), Data: json.RawMessage(data)}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, got map[string]string) {
		t.Helper()
		for i, want := range packedCases {
			if g, ok := got[fmt.Sprint(i)]; !ok || g != want {
				t.Errorf("%s: record %d reads %q, was written %q", what, i, g, want)
			}
		}
	}
	read := func(what string) {
		t.Helper()
		got := map[string]string{}
		for i := range packedCases {
			r, err := m.Get("tasks", fmt.Sprint(i))
			if err != nil {
				t.Fatal(err)
			}
			got[r.ID] = string(r.Data)
		}
		check(what+": Get", got)
		got = map[string]string{}
		rs, _ := m.List("tasks")
		for _, r := range rs {
			got[r.ID] = string(r.Data)
		}
		check(what+": List", got)
		got = map[string]string{}
		page, _, _ := m.Page("tasks", Query{List: "all", Limit: len(packedCases)})
		for _, r := range page {
			got[r.ID] = string(r.Data)
		}
		check(what+": Page", got)
		got = map[string]string{}
		snap, _ := m.Snapshot()
		for _, r := range snap.Collections["tasks"] {
			got[r.ID] = string(r.Data)
		}
		check(what+": Snapshot", got)
		got = map[string]string{}
		ch, _ := m.Changes(0)
		for _, r := range ch.Records["tasks"] {
			got[r.ID] = string(r.Data)
		}
		check(what+": Changes", got)
		got = map[string]string{}
		for i := range packedCases {
			if _, err := m.Update("tasks", fmt.Sprint(i), func(r *Record) error {
				got[r.ID] = string(r.Data)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		check(what+": Update", got)
	}
	read("written")
	for i, want := range packedCases {
		if indexed[i] != want {
			t.Errorf("the indexer saw record %d as %q, written %q", i, indexed[i], want)
		}
	}
	// The packable ones are kept smaller than written.
	m.mu.RLock()
	c := m.colls["tasks"]
	for i := range 2 {
		if kept := c.recs[fmt.Sprint(i)].rec.Data; kept[0] != packedTag || len(kept) >= len(packedCases[i])*3/4 {
			t.Errorf("record %d is kept in %d bytes (tag %#x), written in %d", i, len(kept), kept[0], len(packedCases[i]))
		}
	}
	if !bytes.Equal(c.recs["5"].rec.Data, []byte(packedCases[5])) {
		t.Errorf("a record with spaces is kept as %q", c.recs["5"].rec.Data)
	}
	shapes := len(c.shapes.all)
	m.mu.RUnlock()
	if shapes != 5 { // the two tasks share one; {}, {"a"}, the escaped names, {"a","a"}
		t.Errorf("%d shapes, want 5", shapes)
	}

	// A restore keeps the collection packed; the records read back the same.
	snap, _ := m.Snapshot()
	if err := m.Restore(snap); err != nil {
		t.Fatal(err)
	}
	read("restored")
	m.mu.RLock()
	if kept := m.colls["tasks"].recs["0"].rec.Data; kept[0] != packedTag {
		t.Errorf("after a restore record 0 is kept as written: %q", kept)
	}
	m.mu.RUnlock()
}

// TestPackedTasksShareTheirValues: tasks as Nextflow reports them, most
// values recurring (process, status, executor, resources), are kept in
// well under half their text, and every one reads back as written.
func TestPackedTasksShareTheirValues(t *testing.T) {
	m := NewMemory()
	if err := m.Pack("tasks"); err != nil {
		t.Fatal(err)
	}
	task := func(i int) string {
		return fmt.Sprintf(`{"taskId":%d,"status":%q,"hash":"ab/%06x","name":"ALIGN (%d)","process":"ALIGN","executor":"local","cpus":2,"memory":4294967296,"submit":"2026-03-01T12:00:00Z","workdir":"/work/ab/%06x"}`,
			i, []string{"RUNNING", "COMPLETED", "FAILED"}[i/50%3], i, i, i)
	}
	written, kept := 0, 0
	for i := range 2000 {
		if _, err := m.Insert("tasks", Record{ID: fmt.Sprint(i), Data: json.RawMessage(task(i))}); err != nil {
			t.Fatal(err)
		}
		written += len(task(i))
	}
	m.mu.RLock()
	for _, it := range m.colls["tasks"].recs {
		kept += len(it.rec.Data)
	}
	d := m.colls["tasks"].shapes.all[0].dicts
	m.mu.RUnlock()
	if kept*2 > written {
		t.Errorf("2,000 tasks kept in %d bytes, written in %d", kept, written)
	}
	if len(d[0].vals) != 0 || len(d[1].vals) != 3 {
		t.Errorf("the taskId dictionary holds %d values, the status one %d: want 0 and 3", len(d[0].vals), len(d[1].vals))
	}
	for i := range 2000 {
		if r, err := m.Get("tasks", fmt.Sprint(i)); err != nil || string(r.Data) != task(i) {
			t.Fatalf("task %d reads %s, %v", i, r.Data, err)
		}
	}
}

// TestPackAfterRecordsAndShapeBound: packing a collection that holds
// records packs them, and past maxShapes new shapes are kept as written,
// still reading back exactly.
func TestPackAfterRecordsAndShapeBound(t *testing.T) {
	m := NewMemory()
	data := func(i int) string { return fmt.Sprintf(`{"k%d":%d,"v":"x"}`, i, i) }
	ins := func(i int) {
		if _, err := m.Insert("c", Record{ID: fmt.Sprint(i), Data: json.RawMessage(data(i))}); err != nil {
			t.Fatal(err)
		}
	}
	ins(0)
	if err := m.Pack("c"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= maxShapes+10; i++ {
		ins(i)
	}
	m.mu.RLock()
	c := m.colls["c"]
	if len(c.shapes.all) != maxShapes {
		t.Errorf("%d shapes, bound %d", len(c.shapes.all), maxShapes)
	}
	if c.recs["0"].rec.Data[0] != packedTag || c.recs[fmt.Sprint(maxShapes+5)].rec.Data[0] == packedTag {
		t.Error("the first record is not packed, or one past the bound is")
	}
	m.mu.RUnlock()
	for i := 0; i <= maxShapes+10; i++ {
		r, err := m.Get("c", fmt.Sprint(i))
		if err != nil || string(r.Data) != data(i) {
			t.Fatalf("record %d reads %q, %v", i, r.Data, err)
		}
	}
}

// FuzzPackedRoundTrip: whatever a record holds, a packed collection gives
// it back byte for byte.
func FuzzPackedRoundTrip(f *testing.F) {
	for _, c := range append(packedCases, oddCases...) {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Three times, so its values are learned (a repeat) and then
		// taken from the dictionaries; every kept form reads back.
		s := newShapes()
		for i := range 3 {
			kept := s.pack(data)
			if got := s.unpack(kept); !bytes.Equal(got, data) {
				t.Fatalf("pack %d: %q packs to %q and reads back %q", i, data, kept, got)
			}
		}
	})
}
