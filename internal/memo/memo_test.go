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

func TestBoundedStartsOverWhenFull(t *testing.T) {
	c := New[int, int](3)
	for i := range 3 {
		c.Put(i, i)
	}
	c.Put(1, 10) // replacing a present key never empties the cache
	if c.Len() != 3 {
		t.Fatalf("Len = %d after replacing, want 3", c.Len())
	}
	if v, _ := c.Get(1); v != 10 {
		t.Fatalf("Get(1) = %d, want 10", v)
	}
	c.Put(3, 3)
	if c.Len() != 1 {
		t.Fatalf("Len = %d after overflowing, want 1", c.Len())
	}
	if _, ok := c.Get(0); ok {
		t.Fatal("an entry survived the cache starting over")
	}
	if v, ok := c.Get(3); !ok || v != 3 {
		t.Fatalf("Get(3) = %d, %v; want the newest entry", v, ok)
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
