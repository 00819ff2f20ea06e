package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
)

// BenchmarkSearchScale measures one search page of a list holding 1,000,
// 100,000 and (with WMSMOCK_BENCH_1M=1) 1,000,000 records, the store alone:
//
//	WMSMOCK_BENCH_1M=1 go test ./mock/store -run '^$' -bench SearchScale
//
// Records are inserted among other short-lived allocations, as the fake's
// launches are. A search looks at the newest DefaultSearchWindow records
// whatever the list's length, so its p50 should stay flat from 100,000 on.
// This layout of the heap is milder than a running fake's: the growth a
// search showed at 1,000,000 runs when it read each record through its
// pointer (7.6 ms against 0.55 ms at 100,000) shows in the fake's own
// BenchmarkStoreScale, not here.
//
// update-oldest changes the oldest record in place; its cost should not
// grow with the list either, nor should delete-oldest's.
func BenchmarkSearchScale(b *testing.B) {
	sizes := []int{1_000, 100_000}
	if os.Getenv("WMSMOCK_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	ix := func(r store.Record) ([]string, string) {
		var f struct{ Name, Project string }
		_ = json.Unmarshal(r.Data, &f)
		return []string{"workspace:0"}, strings.ToLower(f.Name) + "\x00" + strings.ToLower(f.Project)
	}
	names := []string{"happy-turing", "sleepy-curie", "brave-hopper", "eager-lovelace", "jolly-babbage"}
	for _, n := range sizes {
		m := store.NewMemory()
		if err := m.Index("runs", ix); err != nil {
			b.Fatal(err)
		}
		// A launch allocates many small objects besides its record, most of
		// them short-lived: the ring keeps each for a while, so the holes
		// they leave lie all over the heap when later records fill them.
		junk := make([][]byte, 1<<16)
		for i := range n {
			data := fmt.Sprintf(`{"name":"%s-%d","project":"nf-core/rnaseq"}`, names[i%len(names)], i)
			if _, err := m.Insert("runs", store.Record{ID: strconv.Itoa(i), Created: t0.Add(time.Duration(i) * time.Second), Data: json.RawMessage(data)}); err != nil {
				b.Fatal(err)
			}
			for k, size := range []int{24, 48, 64, 144, 160, 32, 512} {
				junk[(i*7+k*7919)%len(junk)] = make([]byte, size)
			}
		}
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				page, total, err := m.Page("runs", store.Query{List: "workspace:0", Limit: 20, Contains: "happy"})
				took = append(took, time.Since(start))
				if err != nil || len(page) == 0 || total == 0 {
					b.Fatalf("search: %d records of %d, %v", len(page), total, err)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
		})
		// An update that keeps a record's place (a cancel, say) of the
		// oldest record: it must not move the list's newer entries.
		b.Run(fmt.Sprintf("records=%d/update-oldest", n), func(b *testing.B) {
			k := 0
			for b.Loop() {
				k++
				if _, err := m.Update("runs", "0", func(r *store.Record) error {
					r.Data = json.RawMessage(fmt.Sprintf(`{"name":"cancelled-%d","project":"nf-core/rnaseq"}`, k))
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// Deleting one of the oldest records closes a gap in one block of
		// the list, not in the whole list.
		b.Run(fmt.Sprintf("records=%d/delete-oldest", n), func(b *testing.B) {
			k := 0
			for b.Loop() {
				k++
				if err := m.Delete("runs", strconv.Itoa(k)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
