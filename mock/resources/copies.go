package resources

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Every copy of a record is the record (CONTRACT.md, what the fake may
// invent). Answers carry other records inside them: a launch's compute
// environment, a run's workspace and organization names, a participant's
// user, a pipeline's labels. Wherever an object in an answer names a record
// the fake holds, the object shows that record's own values on every
// property the two share, whatever else built the answer (synthesis, a
// stored record's view, a run's rendering). An object names a record in
// one of two ways:
//
//   - embedded: a member named for the record's kind holds an object with
//     the record's id ("computeEnv": {"id": ...}, "labels": [{"id": ...}],
//     "organization": {"orgId": ...});
//   - flat: an object holds the record's id beside properties named for
//     the record's own ("workspaceId", "workspaceName", "orgId",
//     "orgName"): workspaceName is the workspace's name, and the orgId is
//     the organization the workspace belongs to.
//
// The record's values are its describe view (Collection.RenderItem), so a
// record changed shows changed everywhere, and every copy of it agrees
// with every other. The walk goes through the whole answer, to a bounded
// depth, after references have been pointed at held records (refs.go).

// maxCopyDepth bounds the walk through an answer.
const maxCopyDepth = 10

// maxHops bounds how many records deep a copy is made of the records its
// record names (a participant's member's user): a record's view shows its
// own copies, to this depth, so that a cycle of records naming each other
// ends.
const maxHops = 3

// aliases names the kinds whose members are not named after the id
// parameter of their collection.
var aliases = map[string]string{
	"organization": "orgId",
	"org":          "orgId",
}

// canonKey names a record's view in one schema, cached for copies: the
// schema, the record as stored, its status at the moment (which the clock
// moves for a compute environment) and the reference generation (which
// moves on every write of a record others may copy, mock/refs).
type canonKey struct {
	schema    *spec.Schema
	coll, id  string
	seq, hash uint64
	status    string
	gen       uint64
}

// copies is the state the copy walk uses: the cached describe views.
type copies struct {
	views *memo.Map[canonKey, map[string]any]
}

func newCopies(set *memo.Set) copies {
	return copies{views: memo.NewIn[canonKey, map[string]any](set, "record views for copies", 4)}
}

// held is one record an object names: its view, and the ids of the items
// it is kept under (a workspace's orgId).
type held struct {
	view    map[string]any
	parents map[string]any
}

// heldBy finds the record of the kind that the id property param names
// (computeEnvId, workspaceId, userId) with this id, as a view of schema
// sch shows it (its describe view when sch is nil): the record rendered
// as that view, so the copy is what the record's own views would show in
// that shape.
func (s *Service) heldBy(param string, id any, sch *spec.Schema, now time.Time) (held, bool) {
	return s.heldAt(param, id, sch, now, 0)
}

// heldAt is heldBy for a copy made hops records deep: only the views of
// the first hop are cached (deeper ones are cut short at maxHops, and
// would be cached cut short).
func (s *Service) heldAt(param string, id any, sch *spec.Schema, now time.Time, hops int) (held, bool) {
	if id == nil {
		return held{}, false
	}
	if param == "userId" {
		return s.heldUser(id)
	}
	c := s.namedBy(param)
	if c == nil {
		return held{}, false
	}
	ids := FmtID(id)
	r, d, err := c.find(ids)
	if err != nil {
		return held{}, false
	}
	coll := c.listPath
	if c.Indexed() {
		coll = c.collOf(ids)
	}
	if sch == nil || !sch.IsObject() {
		sch = c.item
	}
	status := ""
	if c.lifecycle {
		status, _ = c.status(r, d, now)
	} else if c.life != nil {
		status = c.life.StatusAt(d, now)
	}
	view := func() (map[string]any, error) {
		m := c.RenderItem(sch, coll, r, d, now)
		s.copyIn(sch, m, now, 0, hops+1)
		s.fit.Complete(sch, m)
		return m, nil
	}
	var v map[string]any
	if hops == 0 {
		k := canonKey{sch, coll, r.ID, r.Seq, s.fingerprint(r.Data), status, s.refs.Generation()}
		v, _ = s.copies.views.Do(k, view)
	} else {
		v, _ = view()
	}
	return held{view: v, parents: c.parentIDs(coll)}, true
}

// heldUser is the seeded user, the one user the fake holds.
func (s *Service) heldUser(id any) (held, bool) {
	r, err := s.d.Store.Get(UserCollection, UserID)
	if err != nil {
		return held{}, false
	}
	u, err := DecodeObject(r.Data)
	if err != nil || u["id"] == nil || FmtID(u["id"]) != FmtID(id) {
		return held{}, false
	}
	return held{view: u}, true
}

// collOf is the store collection holding the item id of a nested
// collection, from its index.
func (c *Collection) collOf(id string) string {
	r, err := c.s.d.Store.Get(c.indexColl(), id)
	if err != nil {
		return ""
	}
	coll := ""
	_ = json.Unmarshal(r.Data, &coll)
	return coll
}

// parentIDs reads, from the store collection an item is kept in
// (/orgs/1001/workspaces), the ids of the items above it ({"orgId": 1001}).
func (c *Collection) parentIDs(coll string) map[string]any {
	if !c.Indexed() || coll == "" {
		return nil
	}
	ts, ps := strings.Split(c.listPath, "/"), strings.Split(coll, "/")
	if len(ts) != len(ps) {
		return nil
	}
	out := map[string]any{}
	for i, seg := range ts {
		if IsParamSeg(seg) {
			param := strings.Trim(seg, "{}")
			var v any = ps[i]
			if p := c.s.namedBy(param); p != nil {
				v = p.idValue(ps[i])
			}
			out[param] = v
		}
	}
	return out
}

// CopyRecords makes every object in v (an answer of schema sch) that names
// a held record show that record's values (see the top of this file).
func (s *Service) CopyRecords(sch *base.Schema, v any, now time.Time) {
	s.copyIn(s.doc.Schema(sch), v, now, 0, 0)
}

// copyIn does CopyRecords' work on v, depth levels into an answer, in a
// view hops records deep.
func (s *Service) copyIn(sch *spec.Schema, v any, now time.Time, depth, hops int) {
	if depth > maxCopyDepth || hops >= maxHops || v == nil {
		return
	}
	switch x := v.(type) {
	case []any:
		it := sch.Items()
		for _, e := range x {
			s.copyIn(it, e, now, depth+1, hops)
		}
	case map[string]any:
		os := objSchema{sch, fit.BranchOf(sch, x, 0)}
		s.copyFlat(os, x, now, hops)
		for k, e := range x {
			p := os.member(k)
			switch ev := e.(type) {
			case map[string]any:
				s.copyEmbedded(p, k, ev, now, hops)
			case []any:
				for _, one := range ev {
					if m, ok := one.(map[string]any); ok {
						s.copyEmbedded(p.Items(), k, m, now, hops)
					}
				}
			}
			s.copyIn(p, e, now, depth+1, hops)
		}
	}
}

// objSchema is the schema of an object in an answer: its own, and the
// branch of its oneOf the object is in.
type objSchema struct{ s, branch *spec.Schema }

// member is the schema of member k.
func (o objSchema) member(k string) *spec.Schema {
	if p := o.s.Prop(k); p != nil {
		return p
	}
	return o.branch.Prop(k)
}

// copyEmbedded lays the record that obj (the value of member k) names
// over it, on the properties they share.
func (s *Service) copyEmbedded(sch *spec.Schema, k string, obj map[string]any, now time.Time, hops int) {
	if refs.Owned(k) {
		return
	}
	param, ok := aliases[k]
	if !ok {
		param = singular(k) + "Id"
	}
	id := obj["id"]
	if id == nil {
		id = obj[param]
	}
	h, ok := s.heldAt(param, id, sch, now, hops)
	if !ok {
		return
	}
	os := objSchema{sch, fit.BranchOf(sch, obj, 0)}
	s.lay(os, obj, h.view)
	s.lay(os, obj, h.parents)
}

// copyFlat fills, for each id property of obj that names a held record
// (workspaceId), the properties named after the record's own
// (workspaceName, workspaceFullName) and the ids of its parents (orgId).
// Ids are taken in an order that puts an item before the items above it,
// so that a workspace's orgId is set before the organization's name is.
func (s *Service) copyFlat(os objSchema, obj map[string]any, now time.Time, hops int) {
	for _, param := range flatOrder(obj) {
		if s.isOwnID(os, param) {
			continue // the object is the record itself (a member's memberId)
		}
		stem := strings.TrimSuffix(param, "Id")
		h, ok := s.heldAt(param, obj[param], nil, now, hops)
		if !ok {
			continue
		}
		// The record's name is stemName beside stemId (workspaceName);
		// a property already named for the kind (a user's userName) keeps
		// its name.
		named := map[string]any{}
		for name, v := range h.view {
			if name == "id" || name == param || name == "" {
				continue
			}
			key := stem + strings.ToUpper(name[:1]) + name[1:]
			if strings.HasPrefix(name, stem) {
				key = name
			}
			if param == "memberId" {
				if key = personFields[name]; key == "" {
					continue
				}
			}
			if _, shown := obj[key]; shown || os.member(key) != nil {
				named[key] = v
			}
		}
		s.lay(os, obj, named)
		s.lay(os, obj, h.parents)
	}
}

// personFields map, for an object that names a member of an organization
// by memberId (a participant), the member's properties to the object's:
// a person's are named without the member prefix.
var personFields = map[string]string{
	"userName": "userName", "email": "email", "firstName": "firstName", "lastName": "lastName",
	"avatar": "userAvatarUrl", "role": "orgRole", "userId": "userId",
}

// flatOrder lists obj's id properties, those of nested kinds first
// (workspaceId before orgId), each group in name order, so that a copy
// never depends on the order a map is walked in.
func flatOrder(obj map[string]any) []string {
	var first, rest []string
	for k, v := range obj {
		if !strings.HasSuffix(k, "Id") || len(k) <= 2 || v == nil {
			continue
		}
		if k == "orgId" {
			rest = append(rest, k)
		} else {
			first = append(first, k)
		}
	}
	slices.Sort(first)
	return append(first, rest...)
}

// isOwnID reports whether param is the id of the object itself: the object
// is one of the collection param names, in its item or entry shape.
func (s *Service) isOwnID(os objSchema, param string) bool {
	c := s.namedBy(param)
	if c == nil || os.s == nil || c.idProp != param {
		return false
	}
	return os.s.Same(c.item) || os.s.Same(c.entry)
}

// lay sets each value of from in obj where obj's schema declares the
// property and the value fits it (a value the copy's schema cannot hold,
// such as a list entry's narrower status, is left as it was). Without a
// schema, only the properties obj already shows are set.
func (s *Service) lay(os objSchema, obj, from map[string]any) {
	for k, v := range from {
		switch {
		case os.s == nil && os.branch == nil:
			if _, shown := obj[k]; shown {
				obj[k] = jsonvalue.Clone(v)
			}
		case os.s.Prop(k) != nil:
			s.fit.Set(os.s, obj, k, jsonvalue.Clone(v))
		case os.branch.Prop(k) != nil:
			s.fit.Set(os.branch, obj, k, jsonvalue.Clone(v))
		}
	}
}
