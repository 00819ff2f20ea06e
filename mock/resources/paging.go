package resources

import (
	"cmp"
	"fmt"
	"net/url"
	"strconv"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// Page is one window of a list: skip Offset items, then take at most Max.
type Page struct {
	Offset, Max int
	// All is set when the operation has no paging parameters: the whole
	// list is answered.
	All bool
}

// ParsePage reads an operation's page-size and offset parameters
// (CONTRACT P1). An absent size takes the profile's default for the
// operation where it has one, else the operation's documented default,
// else the profile's general one; a size over the profile's bound (the
// operation's, else the general one) is lowered to it.
// A size of 0 asks for no items, which still reports the total. Negative
// or non-numeric values are a Bad Request; the document's own validation
// usually refuses them first, but a document may declare no minimum.
func ParsePage(q url.Values, op *spec.Operation, prof profile.Paging) (Page, error) {
	p := op.Paging
	if p == nil {
		return Page{All: true}, nil
	}
	own := prof.Operations[op.ID]
	pg := Page{Max: cmp.Or(own.DefaultMax, p.DefaultMax, prof.DefaultMax)}
	limit := cmp.Or(own.MaxLimit, prof.MaxLimit)
	if p.MaxParam != "" && q.Has(p.MaxParam) {
		n, err := strconv.Atoi(q.Get(p.MaxParam))
		if err != nil || n < 0 {
			return Page{}, Fail(ErrBadInput, "query parameter %s=%q is not a page size (0 or more)", p.MaxParam, q.Get(p.MaxParam))
		}
		pg.Max = n
	}
	if limit > 0 && pg.Max > limit {
		pg.Max = limit
	}
	if p.OffsetParam != "" && q.Has(p.OffsetParam) {
		n, err := strconv.Atoi(q.Get(p.OffsetParam))
		if err != nil || n < 0 {
			return Page{}, Fail(ErrBadInput, "query parameter %s=%q is not an offset (0 or more)", p.OffsetParam, q.Get(p.OffsetParam))
		}
		pg.Offset = n
	}
	return pg, nil
}

// Holds reports whether the i-th item (from 0) of a list is on the page.
func (pg Page) Holds(i int) bool {
	return pg.All || i >= pg.Offset && i-pg.Offset < pg.Max
}

// More reports whether items follow the page in a list of total items.
func (pg Page) More(total int) bool {
	return !pg.All && pg.Offset < total && total-pg.Offset > pg.Max
}

// Slice returns the page's window of items (empty, never nil, past the
// end) and whether more items follow it.
func Slice[T any](items []T, pg Page) (page []T, hasMore bool) {
	if pg.All {
		return items, false
	}
	if pg.Offset >= len(items) {
		return []T{}, false
	}
	end := pg.Offset + min(pg.Max, len(items)-pg.Offset)
	return items[pg.Offset:end], pg.More(len(items))
}

// Listing is what a list call starts from: the page it asks for, by the
// profile's paging rules, and where its answer keeps the items it lists.
type Listing struct {
	Page
	Schema *spec.Schema // the answer's schema
	Key    string       // the answer's member that holds the items
	Item   *spec.Schema // one item's schema
}

// listing reads a list call's page and its answer's list shape; what
// names the items, for the error a document without such a list gets.
func (s *Service) listing(req *handler.Request, what string) (Listing, error) {
	pg, err := ParsePage(req.Query, req.Op, s.d.Profile.Paging)
	if err != nil {
		return Listing{}, err
	}
	sch := SuccessSchema(req.Op)
	key, item := sch.ListShape()
	if key == "" {
		return Listing{}, fmt.Errorf("resources: %s has no list of %s in its answer", req.Op.ID, what)
	}
	return Listing{pg, sch, key, item}, nil
}
