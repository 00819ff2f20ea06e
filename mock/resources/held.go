package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// idParam matches a path parameter that names a resource by its id
// (workflowId, orgId, run_id, id). Parameters that name something else (a
// version, a file name, an attribute) are not checked.
var idParam = regexp.MustCompile(`^(id|[A-Za-z0-9_]*(Id|_id|ID))$`)

// holder reports whether the id a call's path gives for one parameter
// names something the fake holds; it answers the missing-resource reply
// when not.
type holder func(req *handler.Request) error

// registerSubresources makes every other operation whose path names a
// resource by id answer the missing-resource reply when the fake holds no
// such resource, as the service does. The operation keeps its synthesized
// answer when everything it names exists: /workflow/{workflowId}/log,
// /datasets/{datasetId}/metadata, /trace/{workflowId}/begin...
func (s *Service) registerSubresources() {
	for _, op := range s.doc.Operations {
		if _, taken := s.handlers[op]; taken {
			continue
		}
		if checks := s.holders(op.Path); len(checks) > 0 || s.contextParams(op) != nil {
			s.handle(op, s.ifHeld(checks))
		}
	}
}

// contextQuery are the query parameters that name the context a call acts
// in: a workspace or an organization the fake must hold, like any other
// resource a call names (a list of runs in a workspace that does not
// exist is refused, not empty).
var contextQuery = []string{"workspaceId", "orgId"}

// contextParams lists the context parameters op takes in its query, nil
// when none.
func (s *Service) contextParams(op *spec.Operation) []string {
	var out []string
	for _, name := range contextQuery {
		if hasQueryParam(op, name) && s.namedBy(name) != nil {
			out = append(out, name)
		}
	}
	return out
}

// checkContext answers the missing-resource reply when the call names, in
// its query, a workspace or organization the fake does not hold.
func (s *Service) checkContext(req *handler.Request) error {
	for _, name := range contextQuery {
		v := req.Query.Get(name)
		if v == "" {
			continue
		}
		if c := s.namedBy(name); c != nil && hasQueryParam(req.Op, name) {
			if _, err := strconv.ParseInt(v, 10, 64); c.numericID && err != nil {
				continue // not an id at all: the handler's own reading refuses it (400)
			}
			if err := c.locate(v); err != nil {
				return Fail(ErrMissing, "the call names %s %s, which the fake does not hold", name, v)
			}
		}
	}
	return nil
}

// holders lists the checks for the ids a path template names, left to
// right. The first id must be held by something in the fake, or it is
// always missing; an id below it that the fake does not keep as an item
// of its own (a task of a run, a member of a team) is taken on trust once
// its parent exists. A collection's check reads the item's parents itself
// (its owners), so it replaces the checks of the ids before it rather
// than repeating their reads.
func (s *Service) holders(path string) []holder {
	var checks []holder
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		param := strings.Trim(seg, "{}")
		if !IsParamSeg(seg) || !idParam.MatchString(param) {
			continue
		}
		h, coversParents := s.holderOf(strings.Join(segs[:i+1], "/"), param, len(checks) == 0)
		switch {
		case coversParents:
			checks = []holder{h}
		case h != nil:
			checks = append(checks, h)
		case len(checks) == 0:
			checks = append(checks, func(req *handler.Request) error {
				return Fail(ErrMissing, "the fake holds nothing named by %s (%q)", param, req.PathParams[param])
			})
		}
	}
	return checks
}

// holderOf finds what holds the ids of param, the last segment of prefix:
// the collection whose items live at prefix (whatever its parameters are
// called there); a part's own ids (a run's, or its launch's); the
// seeded user; else, for the first id of a path only, the collection
// whose items are named by a parameter of the same name
// (/workspaces/{workspaceId} names an item of /orgs/{orgId}/workspaces).
// It returns nil when nothing does, and whether the check also covers the
// ids before param (a collection's does).
func (s *Service) holderOf(prefix, param string, first bool) (holder, bool) {
	for _, c := range s.colls {
		if names, ok := sameShape(c.itemPath, prefix); ok {
			return func(req *handler.Request) error {
				_, _, _, err := c.Get(req.RenamedParams(names))
				return err
			}, true
		}
	}
	exists, isPart := s.holds[param] // a part's (Kit.Holds): a run's id or its launch's
	switch {
	case isPart:
		return func(req *handler.Request) error { return exists(req, req.PathParams[param]) }, false
	case param == "userId":
		return func(req *handler.Request) error { return s.userExists(req.PathParams[param]) }, false
	case !first:
		return nil, false
	}
	var named *Collection
	for _, c := range s.colls {
		if c.param == param && (named == nil || len(c.itemPath) < len(named.itemPath)) {
			named = c
		}
	}
	if named != nil {
		return func(req *handler.Request) error { return named.locate(req.PathParams[param]) }, false
	}
	return nil, false
}

// sameShape reports whether two path templates differ only in what their
// parameters are called (/identities/{managedIdentityId}/credentials/
// {credentialsId} and .../{managedCredentialsId}), and maps each parameter
// of want to the one in the same place in have.
func sameShape(want, have string) (map[string]string, bool) {
	ws, hs := strings.Split(want, "/"), strings.Split(have, "/")
	if len(ws) != len(hs) {
		return nil, false
	}
	names := map[string]string{}
	for i := range ws {
		wp, hp := IsParamSeg(ws[i]), IsParamSeg(hs[i])
		switch {
		case wp && hp:
			names[strings.Trim(ws[i], "{}")] = strings.Trim(hs[i], "{}")
		case wp || hp || ws[i] != hs[i]:
			return nil, false
		}
	}
	return names, true
}

// ifHeld leaves the call to synthesis (handler.ErrSynthesize) once every
// check finds its id held, and answers the first check's missing-resource
// reply otherwise.
func (s *Service) ifHeld(checks []holder) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		for _, exists := range checks {
			if err := exists(req); err != nil {
				return nil, err
			}
		}
		return nil, handler.ErrSynthesize
	}
}

// userExists accepts the seeded user's own id: the only user the fake
// knows.
func (s *Service) userExists(id string) error {
	r, err := s.d.Store.Get(UserCollection, UserID)
	if errors.Is(err, store.ErrNotFound) {
		return Fail(ErrMissing, "no user %q: the fake holds none", id)
	}
	if err != nil {
		return err
	}
	var u struct {
		ID any `json:"id"`
	}
	if err := json.Unmarshal(r.Data, &u); err != nil {
		return err
	}
	if u.ID == nil || fmt.Sprint(u.ID) != id {
		return Fail(ErrMissing, "no user %q", id)
	}
	return nil
}

// indexColl names the store collection that maps the id of each item of a
// nested collection to the concrete collection holding it, so a path that
// names the item by id alone (/workspaces/{workspaceId}/...) finds it with
// one read however many parents there are.
func (c *Collection) indexColl() string { return "index:" + c.itemPath }

// Indexed reports whether the collection keeps an index: only one whose
// items are spread over several store collections, one per parent, needs it.
func (c *Collection) Indexed() bool { return strings.Contains(c.listPath, "{") }

// remember records where a new item of a nested collection lives.
func (c *Collection) remember(coll, id string) error {
	if !c.Indexed() {
		return nil
	}
	b, err := json.Marshal(coll)
	if err != nil {
		return err
	}
	_, err = c.s.d.Store.Insert(c.indexColl(), store.Record{ID: id, Data: b})
	if errors.Is(err, store.ErrExists) { // an item deleted since, whose id came back
		_, err = c.s.d.Store.Update(c.indexColl(), id, func(r *store.Record) error {
			r.Data = b
			return nil
		})
	}
	return err
}

// locate answers the missing-resource reply unless an item with this id
// exists (and is not deleted) somewhere in the collection. It reads the
// item's head only, once per version of the record (the heads cache):
// lists check the workspace they are asked about on every call.
func (c *Collection) locate(id string) error {
	coll, err := c.where(id)
	if err != nil {
		return err
	}
	r, err := c.s.d.Store.Get(coll, id)
	if errors.Is(err, store.ErrNotFound) {
		return Fail(ErrMissing, "no item %q in %s", id, coll)
	}
	if err != nil {
		return err
	}
	d, err := c.s.heads.Do(headKey{coll, id, c.s.fingerprint(r.Data)}, func() (*Item, error) { return decodeHead(r) })
	if err != nil {
		return err
	}
	if _, gone := c.status(r, d, c.s.d.Clock.Now()); c.lifecycle && gone {
		return Fail(ErrMissing, "item %q in %s was deleted", id, coll)
	}
	return nil
}

// where is the store collection holding item id: the list path, or for a
// nested collection the one its index names.
func (c *Collection) where(id string) (string, error) {
	if !c.Indexed() {
		return c.listPath, nil
	}
	r, err := c.s.d.Store.Get(c.indexColl(), id)
	if errors.Is(err, store.ErrNotFound) {
		return "", Fail(ErrMissing, "no item %q of %s", id, c.itemPath)
	}
	if err != nil {
		return "", err
	}
	coll := ""
	err = json.Unmarshal(r.Data, &coll)
	return coll, err
}

// find reads the item with this id wherever in the collection it is, or
// answers the missing-resource reply.
func (c *Collection) find(id string) (store.Record, *Item, error) {
	coll, err := c.where(id)
	if err != nil {
		return store.Record{}, nil, err
	}
	r, err := c.s.d.Store.Get(coll, id)
	if errors.Is(err, store.ErrNotFound) {
		return r, nil, Fail(ErrMissing, "no item %q in %s", id, coll)
	}
	if err != nil {
		return r, nil, err
	}
	d, err := DecodeItem(r)
	if err != nil {
		return r, nil, err
	}
	if _, gone := c.status(r, d, c.s.d.Clock.Now()); c.lifecycle && gone {
		return r, nil, Fail(ErrMissing, "item %q in %s was deleted", id, coll)
	}
	return r, d, nil
}
