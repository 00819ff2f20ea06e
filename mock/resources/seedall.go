package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// A fresh fake holds a few entries of every collection the document has,
// not only of those the hand-written seed names, so that whichever
// endpoints a client integrates with it can list and describe something
// before it creates anything. A collection the hand-written seed fills is
// left as the seed has it.
//
// Seeding stays cheap because an entry stores little: its name and its
// context (the personal one, and the seeded workspace where the
// collection is kept per workspace). The rest of an answer is synthesized
// when it is first asked for, as for any record. Names and ids come from
// the generator under fixed keys, so a seed gives the same account every
// time.

// seededPerContext is how many entries each context of a collection gets.
const seededPerContext = 2

// seedEveryCollection adds entries to each collection that is still empty
// after the hand-written seed. Parents come first: a nested collection
// (/orgs/{orgId}/teams) is seeded under the first held item of each
// collection its path names.
func (s *Service) seedEveryCollection(now time.Time) error {
	colls := slices.Clone(s.colls)
	slices.SortStableFunc(colls, func(a, b *Collection) int {
		return strings.Count(a.listPath, "/") - strings.Count(b.listPath, "/")
	})
	var ws *int64
	if wc := s.namedBy("workspaceId"); wc != nil {
		if id, ok := s.firstHeld(wc); ok {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				ws = &n
			}
		}
	}
	for _, c := range colls {
		if c.list == nil || c.nameKey && c.item.Prop("name") == nil {
			continue
		}
		coll, ok := s.heldPath(c.listPath)
		if !ok {
			continue
		}
		recs, err := s.d.Store.List(coll)
		if err != nil {
			return err
		}
		if len(recs) > 0 {
			continue // the hand-written seed's
		}
		contexts := []*int64{nil}
		if c.scoped && ws != nil {
			contexts = append(contexts, ws)
		}
		// Items named by values from a known set (the platforms, by their
		// ids) are the whole set, as the service lists them.
		// Such a set is the same in every context: the items are held once
		// and seen from all.
		if ids := synth.Vocabulary("", c.param); ids != nil && !c.numericID {
			c.scoped = false
			for i, id := range ids {
				if err := c.seedNamed(coll, id, now.Add(-time.Duration(i+1)*time.Minute)); err != nil {
					return fmt.Errorf("seed: %s %s: %w", coll, id, err)
				}
			}
			continue
		}
		n := 0
		for _, ctx := range contexts {
			for range seededPerContext {
				n++
				if err := c.seedGenerated(coll, n, ctx, now); err != nil {
					return fmt.Errorf("seed: %s entry %d: %w", coll, n, err)
				}
			}
		}
	}
	return s.IndexRefs()
}

// heldPath fills a list path's parameters with held items (the first of
// each), or reports false when one of them names nothing the fake holds.
func (s *Service) heldPath(listPath string) (string, bool) {
	segs := strings.Split(listPath, "/")
	for i, seg := range segs {
		if !IsParamSeg(seg) {
			continue
		}
		prefix := strings.Join(segs[:i+1], "/")
		var owner *Collection
		for _, c := range s.colls {
			if _, ok := sameShape(c.itemPath, prefix); ok {
				owner = c
				break
			}
		}
		if owner == nil {
			owner = s.namedBy(strings.Trim(seg, "{}"))
		}
		if owner == nil {
			return "", false
		}
		id, ok := s.firstHeld(owner)
		if !ok {
			return "", false
		}
		segs[i] = id
	}
	return strings.Join(segs, "/"), true
}

// firstHeld is the id of the oldest item of a collection, under the first
// parent that holds any.
func (s *Service) firstHeld(c *Collection) (string, bool) {
	coll, ok := s.heldPath(c.listPath)
	if !ok {
		return "", false
	}
	recs, err := s.d.Store.List(coll)
	if err != nil || len(recs) == 0 {
		return "", false
	}
	first := recs[0]
	for _, r := range recs[1:] {
		if r.Created.Before(first.Created) || r.Created.Equal(first.Created) && r.ID < first.ID {
			first = r
		}
	}
	return first.ID, true
}

// seedGenerated stores the n-th generated entry of coll in context ws.
func (c *Collection) seedGenerated(coll string, n int, ws *int64, now time.Time) error {
	key := fmt.Sprintf("seeded %s %d", coll, n)
	d := &Item{Fields: map[string]any{}, Workspace: ws, Seeded: true}
	personID, person := c.seedPerson(n, key, d)
	if p := c.item.Prop("name"); p != nil && !person {
		if name, ok := c.s.d.Gen.Value(p.Lib(), key+" name", synth.Response).(string); ok && name != "" && !strings.Contains(name, "/") {
			d.Fields["name"] = name
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	created := now.Add(-time.Duration(n) * time.Hour)
	rec := store.Record{Created: created, Updated: created, Data: b}
	if c.nameKey {
		name, _ := d.Fields["name"].(string)
		if name == "" {
			return nil
		}
		rec.ID = name
		if _, err := c.s.d.Store.Insert(coll, rec); errors.Is(err, store.ErrExists) {
			return nil // a name drawn twice: one entry fewer
		} else if err != nil {
			return err
		}
		return c.remember(coll, name)
	}
	if personID != "" {
		rec.ID = personID
		if _, err := c.s.d.Store.Insert(coll, rec); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
		return c.remember(coll, personID)
	}
	r := c.s.d.Gen.Rand(key + " id")
	newID := func() (string, error) {
		if c.numericID {
			return c.newID(coll)()
		}
		id := synth.IDN(r, c.idLen)
		if c.idSchema != nil {
			if v, ok := c.s.d.Gen.Value(c.idSchema.Lib(), key+" id "+id, synth.Response).(string); ok && v != "" && !strings.Contains(v, "/") {
				return v, nil
			}
		}
		return id, nil
	}
	out, err := InsertRecord(c.s.d.Store, coll, newID, func(string) (store.Record, error) { return rec, nil })
	if err != nil {
		return err
	}
	return c.remember(coll, out.ID)
}

// seedNamed stores an entry of coll under a given id, in no context; an
// id already held is left as it is. Such a set is the service's own (its
// predefined roles, its platforms), not the seeded account's: an entry
// holds what the catalogue says of it (catalogue.go) and nothing made up.
// Entries of a collection named by their name (the roles) carry it, and
// are predefined where the item says so (isPredefined).
func (c *Collection) seedNamed(coll, id string, created time.Time) error {
	fields := catalogueFields(c, id)
	if c.nameKey {
		fields["name"] = id
		if c.item.Prop("isPredefined") != nil {
			fields["isPredefined"] = true
		}
	}
	b, err := json.Marshal(&Item{Fields: fields})
	if err != nil {
		return err
	}
	rec := store.Record{ID: id, Created: created, Updated: created, Data: b}
	if _, err := c.s.d.Store.Insert(coll, rec); errors.Is(err, store.ErrExists) {
		return nil
	} else if err != nil {
		return err
	}
	return c.remember(coll, id)
}
