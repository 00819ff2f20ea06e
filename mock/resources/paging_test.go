package resources_test

import (
	"math"
	"net/url"
	"slices"
	"testing"

	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

func TestParsePage(t *testing.T) {
	prof := profile.Paging{DefaultMax: 50, MaxLimit: 100}
	paging := &spec.Paging{MaxParam: "max", OffsetParam: "offset"}
	documented := &spec.Paging{MaxParam: "max", OffsetParam: "offset", DefaultMax: 20}
	cases := []struct {
		name   string
		query  string
		paging *spec.Paging
		want   resources.Page
		bad    bool
	}{
		{"defaults", "", paging, resources.Page{Max: 50}, false},
		{"documented default", "", documented, resources.Page{Max: 20}, false},
		{"given", "max=5&offset=10", paging, resources.Page{Max: 5, Offset: 10}, false},
		{"zero size", "max=0", paging, resources.Page{Max: 0}, false},
		{"over the bound", "max=1000", paging, resources.Page{Max: 100}, false},
		{"negative max", "max=-1", paging, resources.Page{}, true},
		{"negative offset", "offset=-3", paging, resources.Page{}, true},
		{"not a number", "max=ten", paging, resources.Page{}, true},
		{"no paging", "max=3", nil, resources.Page{All: true}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, _ := url.ParseQuery(c.query)
			got, err := resources.ParsePage(q, &spec.Operation{ID: "ListThings", Paging: c.paging}, prof)
			if c.bad {
				if err == nil {
					t.Fatalf("accepted %q", c.query)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v %v, want %+v", got, err, c.want)
			}
		})
	}
}

func TestSlice(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	cases := []struct {
		pg      resources.Page
		want    []int
		hasMore bool
	}{
		{resources.Page{Max: 2}, []int{1, 2}, true},
		{resources.Page{Max: 2, Offset: 3}, []int{4, 5}, false},
		{resources.Page{Max: 10, Offset: 4}, []int{5}, false},
		{resources.Page{Max: 2, Offset: 5}, []int{}, false},
		{resources.Page{Max: 2, Offset: 99}, []int{}, false},
		{resources.Page{Max: 0, Offset: 1}, []int{}, true},
		{resources.Page{All: true}, items, false},
		{resources.Page{Max: math.MaxInt, Offset: 1}, []int{2, 3, 4, 5}, false},
		{resources.Page{Max: math.MaxInt, Offset: math.MaxInt}, []int{}, false},
	}
	for _, c := range cases {
		// Holds and More, which a list uses to page in one pass, agree
		// with Slice.
		var held []int
		for i, it := range items {
			if c.pg.Holds(i) {
				held = append(held, it)
			}
		}
		if !slices.Equal(held, c.want) && len(held)+len(c.want) > 0 || c.pg.More(len(items)) != c.hasMore {
			t.Errorf("%+v: Holds kept %v, More %v; want %v %v", c.pg, held, c.pg.More(len(items)), c.want, c.hasMore)
		}
		got, more := resources.Slice(items, c.pg)
		if got == nil || len(got) != len(c.want) || more != c.hasMore {
			t.Errorf("%+v: got %v %v, want %v %v", c.pg, got, more, c.want, c.hasMore)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%+v: got %v, want %v", c.pg, got, c.want)
			}
		}
	}
}

// A profile's bounds for one operation win over the document's default and
// the profile's general bounds; other operations keep those.
func TestParsePagePerOperation(t *testing.T) {
	prof := profile.Paging{DefaultMax: 50, MaxLimit: 100,
		Operations: map[string]profile.PageBounds{"ListWorkflows": {DefaultMax: 7, MaxLimit: 9}}}
	documented := &spec.Paging{MaxParam: "max", OffsetParam: "offset", DefaultMax: 20}
	none, _ := url.ParseQuery("")
	large, _ := url.ParseQuery("max=1000")
	for _, c := range []struct {
		op    string
		q     url.Values
		want  int
		cause string
	}{
		{"ListWorkflows", none, 7, "the operation's profile default wins over the documented 20"},
		{"ListWorkflows", large, 9, "the operation's profile bound"},
		{"ListPipelines", none, 20, "the documented default"},
		{"ListPipelines", large, 100, "the general bound"},
	} {
		got, err := resources.ParsePage(c.q, &spec.Operation{ID: c.op, Paging: documented}, prof)
		if err != nil || got.Max != c.want {
			t.Errorf("%s %v: max %d (%v), want %d: %s", c.op, c.q, got.Max, err, c.want, c.cause)
		}
	}
}
