package ring

import (
	"slices"
	"testing"
)

func TestBufferKeepsTheMostRecent(t *testing.T) {
	b := New[int](3)
	if got := b.Recent(0); len(got) != 0 {
		t.Fatalf("empty buffer: %v", got)
	}
	for i := 1; i <= 3; i++ {
		if _, evicted := b.Add(i); evicted {
			t.Fatalf("Add(%d) evicted from a buffer that was not full", i)
		}
	}
	old, evicted := b.Add(4)
	if !evicted || old != 1 {
		t.Fatalf("Add(4) evicted %d, %v; want 1, true", old, evicted)
	}
	if got := b.Recent(0); !slices.Equal(got, []int{4, 3, 2}) {
		t.Errorf("Recent(0) = %v, want [4 3 2]", got)
	}
	if got := b.Recent(2); !slices.Equal(got, []int{4, 3}) {
		t.Errorf("Recent(2) = %v, want [4 3]", got)
	}
	if b.Len() != 3 {
		t.Errorf("Len = %d", b.Len())
	}
}

func TestCapacityAtLeastOne(t *testing.T) {
	b := New[string](0)
	b.Add("a")
	b.Add("b")
	if got := b.Recent(0); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Recent = %v", got)
	}
}
