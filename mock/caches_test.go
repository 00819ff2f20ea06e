package mock_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock"
)

// The server's caches are one set within one budget, reported at
// /_mock/admin/caches: a repeated call is a hit, and however many distinct
// calls come, the caches together hold no more than the budget.
func TestCachesReport(t *testing.T) {
	const budget = 400
	srv, _ := newServer(t, embedded(t), mock.WithCacheBudget(budget))
	stats := func() map[string]memo.Stat {
		t.Helper()
		a := adminCall(t, srv.Handler(), "GET", "/_mock/admin/caches", "", nil)
		var body struct{ Caches []memo.Stat }
		if a.status != 200 || json.Unmarshal(a.body, &body) != nil {
			t.Fatalf("caches: %d %s", a.status, a.body)
		}
		out := map[string]memo.Stat{}
		for _, s := range body.Caches {
			out[s.Name] = s
		}
		return out
	}
	for range 3 {
		ok(t, srv.Handler(), call(t, srv.Handler(), "GET", "/api/service-info", devToken, nil), 200, "service info")
	}
	answers, found := stats()["synthesized answers"]
	if !found || answers.Hits < 2 {
		t.Fatalf("synthesized answers after three identical calls: %+v (found %v)", answers, found)
	}
	for i := range 500 {
		call(t, srv.Handler(), "GET", fmt.Sprintf("/api/workflow?max=%d&search=x%d", 1+i%50, i), devToken, nil)
	}
	total, limits := 0, 0
	for _, s := range stats() {
		total += s.Entries
		limits += s.Limit
		if s.Entries > s.Limit {
			t.Errorf("%s holds %d entries over its limit %d", s.Name, s.Entries, s.Limit)
		}
	}
	if total > budget || limits > budget {
		t.Errorf("the caches hold %d entries with limits adding to %d, over the budget of %d", total, limits, budget)
	}
	if _, err := mock.New(mock.WithCacheBudget(-1)); err == nil {
		t.Error("a negative budget was accepted")
	}
}
