package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A launch names, by id, things that must exist and be visible to the
// caller (CONTRACT.md, launch references): the workspace it runs in (and
// the one a shared pipeline comes from) and the compute environment. (A
// saved pipeline is named by id in the path of the operations that take
// one, /pipelines/{pipelineId}/launch, whose existence check is in
// held.go.) Anything else gets the
// profile's missing-resource reply, as the service refuses a launch into a
// compute environment it cannot see. A launch that names no compute
// environment runs on the workspace's primary one. A document without
// such a collection has nothing to check against, and the launch is taken
// on trust there.

// checkLaunch resolves a launch's references in the call's workspace (ws,
// when given): the environment the run uses is the one named, else the
// context's primary environment, else none ("").
func (s *Service) checkLaunch(req *handler.Request, computeEnvID string, ws int64, given bool) (string, error) {
	var scope *int64
	if given {
		scope = &ws
		if err := s.workspaceExists(ws); err != nil {
			return "", err
		}
	}
	if v := req.Query.Get("sourceWorkspaceId"); v != "" {
		src, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", Fail(ErrBadInput, "query parameter sourceWorkspaceId=%q is not a number", v)
		}
		if err := s.workspaceExists(src); err != nil {
			return "", err
		}
	}
	ce := s.namedBy("computeEnvId")
	if ce == nil {
		return computeEnvID, nil
	}
	if computeEnvID != "" {
		return computeEnvID, ce.visible(computeEnvID, scope, req.Now)
	}
	return ce.primary(scope, req.Now)
}

// workspaceExists answers the missing-resource reply unless the fake holds
// a workspace with this id.
func (s *Service) workspaceExists(ws int64) error {
	c := s.namedBy("workspaceId")
	if c == nil {
		return nil
	}
	return c.locate(strconv.FormatInt(ws, 10))
}

// namedBy finds the collection whose items a parameter of this name
// addresses (the shortest item path, as for the ids a path names).
func (s *Service) namedBy(param string) *Collection {
	var named *Collection
	for _, c := range s.colls {
		if c.param == param && (named == nil || len(c.itemPath) < len(named.itemPath)) {
			named = c
		}
	}
	return named
}

// visible answers the missing-resource reply unless the item exists, is
// not deleted and, in a collection kept per workspace, belongs to the
// caller's context (ws nil: the personal one). It reads the record's head
// only, once per version of the record: a compute environment on the
// published schema is kilobytes of fields a launch does not look at, and
// launches name the same few environments again and again.
func (c *Collection) visible(id string, ws *int64, now time.Time) error {
	if c.Indexed() {
		return c.locate(id) // kept under a parent, which scopes it
	}
	r, err := c.s.d.Store.Get(c.listPath, id)
	if errors.Is(err, store.ErrNotFound) {
		return Fail(ErrMissing, "no item %q in %s", id, c.listPath)
	}
	if err != nil {
		return err
	}
	d, err := c.s.heads.Do(headKey{c.listPath, id, c.s.fingerprint(r.Data)}, func() (*Item, error) { return decodeHead(r) })
	if err != nil {
		return err
	}
	if c.gone(c.listPath, r, d, now) {
		return Fail(ErrMissing, "item %q in %s was deleted", id, c.listPath)
	}
	if c.scoped && !SameWorkspace(d.Workspace, ws) {
		return Fail(ErrMissing, "item %q of %s is not in %s", id, c.listPath, contextName(ws))
	}
	return nil
}

// headKey names a decoded head: the record, and a fingerprint of its
// content, so a changed record is decoded again.
type headKey struct {
	coll, id string
	hash     uint64
}

// decodeHead reads where an item lives and whether it is being deleted,
// leaving its fields undecoded (Fields stays nil).
func decodeHead(r store.Record) (*Item, error) {
	var h struct {
		Workspace  *int64     `json:"workspaceId"`
		DeletingAt *time.Time `json:"deletingAt"`
	}
	if err := json.Unmarshal(r.Data, &h); err != nil {
		return nil, fmt.Errorf("resources: record %s: %w", r.ID, err)
	}
	return &Item{Workspace: h.Workspace, DeletingAt: h.DeletingAt}, nil
}

// The store files the items a launch may run on (the collection named by
// computeEnvId) per context, and again in the context's list of primary
// items, so that finding the environment of a launch that names none
// reads a page of one of those lists, not every item.

func contextList(ws *int64) string {
	if ws == nil {
		return "context:personal"
	}
	return "context:" + strconv.FormatInt(*ws, 10)
}

func primaryList(ws *int64) string { return "primary:" + contextList(ws) }

// fileByContext is the store's indexer for that collection. An item being
// deleted is listed nowhere: no launch runs on it by default, and a
// deleted one kept describable (compute_envs.after_delete) stays out of
// the walk.
func fileByContext(r store.Record) ([]string, string) {
	var h struct {
		Workspace  *int64     `json:"workspaceId"`
		DeletingAt *time.Time `json:"deletingAt"`
		Fields     struct {
			Primary any `json:"primary"`
		} `json:"fields"`
	}
	if json.Unmarshal(r.Data, &h) != nil || h.DeletingAt != nil {
		return nil, "" // not an item, or going: listed nowhere
	}
	lists := []string{contextList(h.Workspace)}
	if h.Fields.Primary == true {
		lists = append(lists, primaryList(h.Workspace))
	}
	return lists, ""
}

// primary finds the context's primary item (the newest compute
// environment marked primary), else its oldest live one, else "" when the
// context has none.
func (c *Collection) primary(ws *int64, now time.Time) (string, error) {
	if c.Indexed() {
		return "", nil
	}
	if id, err := c.firstLive(primaryList(ws), false, now); id != "" || err != nil {
		return id, err
	}
	return c.firstLive(contextList(ws), true, now)
}

// firstLive returns the newest (or, with oldest, the oldest) item of one
// of the collection's lists whose deletion has not finished. Finished ones
// are dropped from the store as they are met (see gone), so the walk is
// short. Dropping one moves the older items up a place: the walk from the
// newest end reads the same offset again, passing the ids it has already
// judged, and moves on when a page holds nothing new.
func (c *Collection) firstLive(list string, oldest bool, now time.Time) (string, error) {
	const chunk = 16
	st := c.s.d.Store
	_, n, err := st.Page(c.listPath, store.Query{List: list})
	if err != nil {
		return "", err
	}
	judged := map[string]bool{}
	for from, end := 0, n; from < end; {
		q := store.Query{List: list, Offset: from, Limit: chunk}
		if oldest {
			q.Offset = max(end-chunk, from)
			q.Limit = end - q.Offset
		}
		recs, _, err := st.Page(c.listPath, q)
		if err != nil || len(recs) == 0 {
			return "", err
		}
		if oldest {
			slices.Reverse(recs)
		}
		fresh := 0
		for _, r := range recs {
			if judged[r.ID] {
				continue
			}
			d, err := decodeHead(r)
			if err != nil {
				return "", err
			}
			if !c.gone(c.listPath, r, d, now) {
				return r.ID, nil
			}
			judged[r.ID] = true
			fresh++
		}
		switch {
		case oldest:
			end = q.Offset // the newer items did not move
		case fresh == 0:
			from += len(recs)
		}
	}
	return "", nil
}

func contextName(ws *int64) string {
	if ws == nil {
		return "the personal context"
	}
	return fmt.Sprintf("workspace %d", *ws)
}
