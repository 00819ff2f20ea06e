package memo

import (
	"errors"
	"sync"
	"testing"
)

func TestDoBuildsOnceAndCaches(t *testing.T) {
	c := New[string, int](4)
	builds := 0
	build := func() (int, error) { builds++; return 7, nil }
	for range 3 {
		v, err := c.Do("a", build)
		if err != nil || v != 7 {
			t.Fatalf("Do = %d, %v; want 7, nil", v, err)
		}
	}
	if builds != 1 {
		t.Fatalf("built %d times, want 1", builds)
	}
}

func TestDoDoesNotCacheErrors(t *testing.T) {
	c := New[string, int](4)
	boom := errors.New("boom")
	if _, err := c.Do("a", func() (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if _, ok := c.Get("a"); ok {
		t.Fatal("a failed build was cached")
	}
}

// A full cache forgets its oldest generation, not everything: an entry in
// use survives any number of others passing through, and the cache never
// holds more than its limit.
func TestGenerations(t *testing.T) {
	c := New[int, int](8) // two generations of 4
	c.Put(-1, -1)         // the entry in use
	for i := range 100 {
		c.Put(i, i)
		if _, ok := c.Get(-1); !ok {
			t.Fatalf("the entry in use was forgotten after %d others", i+1)
		}
		if c.Len() > 8 {
			t.Fatalf("Len = %d, over the limit of 8", c.Len())
		}
	}
	if _, ok := c.Get(0); ok {
		t.Error("an entry unused for 100 puts is still cached")
	}
	if v, ok := c.Get(99); !ok || v != 99 {
		t.Errorf("Get(99) = %d, %v; want the newest entry", v, ok)
	}
	c.Put(99, 100) // replacing keeps one entry
	if v, _ := c.Get(99); v != 100 {
		t.Errorf("Get(99) after a replace = %d", v)
	}
}

// A set splits its budget among its caches by weight, and reports their
// hits and misses.
func TestSet(t *testing.T) {
	s := NewSet(300)
	a := NewIn[string, int](s, "answers", 2)
	b := NewIn[int, bool](s, "verdicts", 1)
	for i := range 1000 {
		a.Put(string(rune('a'+i%26))+string(rune(i)), i)
		b.Put(i, true)
	}
	if a.Len() > 200 || b.Len() > 100 {
		t.Errorf("entries %d and %d, over shares of 200 and 100", a.Len(), b.Len())
	}
	b.Get(999)
	b.Get(-5)
	stats := s.Stats()
	if len(stats) != 2 || stats[0].Name != "answers" || stats[1].Name != "verdicts" {
		t.Fatalf("Stats = %+v", stats)
	}
	if v := stats[1]; v.Limit != 100 || v.Hits != 1 || v.Misses != 1 || v.Entries != b.Len() {
		t.Errorf("verdicts: %+v", v)
	}
	if stats[0].Limit != 200 {
		t.Errorf("answers limit %d, want 200", stats[0].Limit)
	}
	if NewSet(0).budget != DefaultBudget {
		t.Error("a zero budget is not the default")
	}
}

// Adding a cache to a set shrinks the others' shares, dropping what they
// can no longer hold.
func TestSetShrinks(t *testing.T) {
	s := NewSet(100)
	a := NewIn[int, int](s, "a", 1)
	for i := range 100 {
		a.Put(i, i)
	}
	NewIn[int, int](s, "b", 3)
	if a.Len() > 25 {
		t.Errorf("a holds %d entries after its share fell to 25", a.Len())
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New[int, int](16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := (g*1000 + i) % 40
				v, _ := c.Do(k, func() (int, error) { return k * 2, nil })
				if v != k*2 {
					t.Errorf("Do(%d) = %d", k, v)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := c.Len(); n > 16 {
		t.Fatalf("Len = %d, over the bound of 16", n)
	}
}
