package store_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
)

// Pages and searches of long lists (many blocks, records coming in any
// order, moved, changed in place and deleted) are what a plain sort of the
// records gives.
func TestLongListsMatchASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	m := store.NewMemory()
	// Data is "list|text"; the list is one of two.
	ix := func(r store.Record) ([]string, string) {
		var s string
		_ = json.Unmarshal(r.Data, &s)
		list, text, _ := strings.Cut(s, "|")
		return []string{list}, text
	}
	if err := m.Index("c", ix); err != nil {
		t.Fatal(err)
	}
	type model struct {
		created    time.Time
		seq        uint64
		list, text string
	}
	live := map[string]*model{}
	var ids []string
	data := func(list, text string) json.RawMessage {
		b, _ := json.Marshal(list + "|" + text)
		return b
	}
	words := []string{"alpha", "beta", "gamma", "delta"}
	check := func(step int) {
		t.Helper()
		for _, list := range []string{"a", "b"} {
			var want []*model
			var wantIDs []string
			for id, r := range live {
				if r.list == list {
					want = append(want, r)
					wantIDs = append(wantIDs, id)
				}
			}
			order := make([]int, len(want))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(x, y int) int { // newest first
				if c := want[y].created.Compare(want[x].created); c != 0 {
					return c
				}
				return cmp.Compare(want[y].seq, want[x].seq)
			})
			sortedIDs := make([]string, len(order))
			for i, k := range order {
				sortedIDs[i] = wantIDs[k]
			}
			off, lim := rng.IntN(len(sortedIDs)+5), 1+rng.IntN(60)
			got, total, err := m.Page("c", store.Query{List: list, Offset: off, Limit: lim})
			if err != nil {
				t.Fatal(err)
			}
			want2 := sortedIDs[min(off, len(sortedIDs)):min(off+lim, len(sortedIDs))]
			if ids := recIDs(got); !slices.Equal(ids, want2) || total != len(sortedIDs) {
				t.Fatalf("step %d, list %s, offset %d, limit %d: %v (total %d), want %v (total %d)", step, list, off, lim, ids, total, want2, len(sortedIDs))
			}
			word, window := words[rng.IntN(len(words))], 1+rng.IntN(len(sortedIDs)+10)
			var matches []string
			for _, id := range sortedIDs[:min(window, len(sortedIDs))] {
				if strings.Contains(live[id].text, word) {
					matches = append(matches, id)
				}
			}
			off = rng.IntN(len(matches) + 3)
			got, total, err = m.Page("c", store.Query{List: list, Offset: off, Limit: lim, Contains: word, Window: window})
			if err != nil {
				t.Fatal(err)
			}
			want2 = matches[min(off, len(matches)):min(off+lim, len(matches))]
			if ids := recIDs(got); !slices.Equal(ids, want2) || total != len(matches) {
				t.Fatalf("step %d, list %s, search %q window %d offset %d: %v (total %d), want %v (total %d)", step, list, word, window, off, ids, total, want2, len(matches))
			}
		}
	}
	for step := range 10_000 {
		switch op := rng.IntN(10); {
		case op < 6 || len(ids) == 0:
			id := fmt.Sprint("r", step)
			list, text := []string{"a", "b"}[rng.IntN(2)], words[rng.IntN(len(words))]+fmt.Sprint(step)
			at := t0.Add(time.Duration(rng.IntN(2000)) * time.Second)
			r, err := m.Insert("c", store.Record{ID: id, Created: at, Data: data(list, text)})
			if err != nil {
				t.Fatal(err)
			}
			live[id] = &model{at, r.Seq, list, text}
			ids = append(ids, id)
		case op < 8: // in place, or moved to another time or list
			id := ids[rng.IntN(len(ids))]
			r := live[id]
			move := rng.IntN(2) == 0
			text := words[rng.IntN(len(words))] + "x"
			list, at := r.list, r.created
			if move {
				list, at = []string{"a", "b"}[rng.IntN(2)], t0.Add(time.Duration(rng.IntN(2000))*time.Second)
			}
			if _, err := m.Update("c", id, func(rec *store.Record) error {
				rec.Created, rec.Data = at, data(list, text)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			r.list, r.text, r.created = list, text, at
		default:
			k := rng.IntN(len(ids))
			if err := m.Delete("c", ids[k]); err != nil {
				t.Fatal(err)
			}
			delete(live, ids[k])
			ids = slices.Delete(ids, k, k+1)
		}
		if step%97 == 0 {
			check(step)
		}
	}
	check(-1)
	// The same after a restore (lists rebuilt at once).
	snap, _ := m.Snapshot()
	if err := m.Restore(snap); err != nil {
		t.Fatal(err)
	}
	check(-2)
}

func recIDs(rs []store.Record) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
