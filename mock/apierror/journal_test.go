package apierror

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func entry(i int) Entry {
	return Entry{ID: fmt.Sprintf("id%02d", i), Reason: fmt.Sprintf("reason %d", i)}
}

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// TestJournalAddGet guards that an entry is found by its ID while the
// journal holds it, and that unknown IDs are not found.
func TestJournalAddGet(t *testing.T) {
	j := NewJournal(4)
	for i := range 3 {
		j.Add(entry(i))
	}
	for i := range 3 {
		got, ok := j.Get(entry(i).ID)
		if !ok || !reflect.DeepEqual(got, entry(i)) {
			t.Errorf("Get(%q) = %+v, %v; want %+v", entry(i).ID, got, ok, entry(i))
		}
	}
	if _, ok := j.Get("nope"); ok {
		t.Error("Get of an ID never added found something")
	}
}

// TestJournalEviction guards the bound: once full, each new entry pushes out
// the oldest one, whose ID is then no longer found, while the rest stay.
func TestJournalEviction(t *testing.T) {
	cases := []struct {
		capacity, added int
	}{
		{1, 1}, {1, 3}, {3, 3}, {3, 4}, {3, 7}, {5, 12},
		{0, 2}, // a capacity under one holds one entry
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("cap%d_add%d", tc.capacity, tc.added), func(t *testing.T) {
			j := NewJournal(tc.capacity)
			capacity := max(tc.capacity, 1)
			for i := range tc.added {
				j.Add(entry(i))
			}
			firstKept := max(tc.added-capacity, 0)
			for i := range tc.added {
				_, ok := j.Get(entry(i).ID)
				if want := i >= firstKept; ok != want {
					t.Errorf("entry %d held = %v, want %v", i, ok, want)
				}
			}
			if got := len(j.Recent(0)); got != tc.added-firstKept {
				t.Errorf("journal holds %d entries, want %d", got, tc.added-firstKept)
			}
		})
	}
}

// TestJournalEvictionKeepsReaddedID guards that pushing out an old entry
// does not forget a newer entry that reuses its ID.
func TestJournalEvictionKeepsReaddedID(t *testing.T) {
	j := NewJournal(2)
	j.Add(Entry{ID: "dup", Reason: "first"})
	j.Add(Entry{ID: "dup", Reason: "second"})
	j.Add(Entry{ID: "other"}) // pushes out the first "dup"
	got, ok := j.Get("dup")
	if !ok || got.Reason != "second" {
		t.Errorf(`Get("dup") = %+v, %v; want the second entry`, got, ok)
	}
}

// TestJournalRecent guards that Recent lists newest first and never more
// than asked for nor more than held, before and after the ring wraps.
func TestJournalRecent(t *testing.T) {
	cases := []struct {
		capacity, added, n int
		want               []string
	}{
		{5, 0, 3, []string{}},
		{5, 3, 0, []string{"id02", "id01", "id00"}},
		{5, 3, 2, []string{"id02", "id01"}},
		{5, 3, 10, []string{"id02", "id01", "id00"}},
		{5, 3, -1, []string{"id02", "id01", "id00"}},
		{3, 7, 0, []string{"id06", "id05", "id04"}},
		{3, 7, 2, []string{"id06", "id05"}},
		{3, 3, 3, []string{"id02", "id01", "id00"}},
		{3, 4, 3, []string{"id03", "id02", "id01"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("cap%d_add%d_n%d", tc.capacity, tc.added, tc.n), func(t *testing.T) {
			j := NewJournal(tc.capacity)
			for i := range tc.added {
				j.Add(entry(i))
			}
			if got := ids(j.Recent(tc.n)); !slices.Equal(got, tc.want) {
				t.Errorf("Recent(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
}
