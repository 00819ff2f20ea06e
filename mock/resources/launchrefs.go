package resources

import (
	"errors"
	"fmt"
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

// launchRefs is what a launch's references resolved to.
type launchRefs struct {
	// computeEnvID is the environment the run uses: the one named, else
	// the context's primary environment, else none.
	computeEnvID string
}

// checkLaunch resolves a launch's references in the call's workspace (ws,
// when given).
func (s *Service) checkLaunch(req *handler.Request, computeEnvID string, ws int64, given bool) (launchRefs, error) {
	var scope *int64
	if given {
		scope = &ws
		if err := s.workspaceExists(ws); err != nil {
			return launchRefs{}, err
		}
	}
	if v := req.Query.Get("sourceWorkspaceId"); v != "" {
		src, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return launchRefs{}, fail(errBadInput, "query parameter sourceWorkspaceId=%q is not a number", v)
		}
		if err := s.workspaceExists(src); err != nil {
			return launchRefs{}, err
		}
	}
	refs := launchRefs{computeEnvID: computeEnvID}
	ce := s.namedBy("computeEnvId")
	if ce == nil {
		return refs, nil
	}
	if computeEnvID != "" {
		return refs, ce.visible(computeEnvID, scope, req.Now)
	}
	primary, err := ce.primary(scope, req.Now)
	refs.computeEnvID = primary
	return refs, err
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
func (s *Service) namedBy(param string) *collection {
	var named *collection
	for _, c := range s.colls {
		if c.param == param && (named == nil || len(c.itemPath) < len(named.itemPath)) {
			named = c
		}
	}
	return named
}

// visible answers the missing-resource reply unless the item exists, is
// not deleted and, in a collection kept per workspace, belongs to the
// caller's context (ws nil: the personal one).
func (c *collection) visible(id string, ws *int64, now time.Time) error {
	if c.indexed() {
		return c.locate(id) // kept under a parent, which scopes it
	}
	r, err := c.s.d.Store.Get(c.listPath, id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(errMissing, "no item %q in %s", id, c.listPath)
	}
	if err != nil {
		return err
	}
	d, err := decodeItem(r)
	if err != nil {
		return err
	}
	if c.gone(c.listPath, r, d, now) {
		return fail(errMissing, "item %q in %s was deleted", id, c.listPath)
	}
	if c.scoped && !sameWorkspace(d.Workspace, ws) {
		return fail(errMissing, "item %q of %s is not in %s", id, c.listPath, contextName(ws))
	}
	return nil
}

// primary finds the context's primary item (a compute environment marked
// primary), else its oldest live one, else "" when the context has none.
func (c *collection) primary(ws *int64, now time.Time) (string, error) {
	if c.indexed() {
		return "", nil
	}
	recs, err := c.s.d.Store.List(c.listPath)
	if err != nil {
		return "", err
	}
	first, firstAt := "", time.Time{}
	for _, r := range recs {
		d, err := decodeItem(r)
		if err != nil {
			return "", err
		}
		if c.gone(c.listPath, r, d, now) || c.scoped && !sameWorkspace(d.Workspace, ws) {
			continue
		}
		if p, _ := d.Fields["primary"].(bool); p {
			return r.ID, nil
		}
		if first == "" || r.Created.Before(firstAt) {
			first, firstAt = r.ID, r.Created
		}
	}
	return first, nil
}

func contextName(ws *int64) string {
	if ws == nil {
		return "the personal context"
	}
	return fmt.Sprintf("workspace %d", *ws)
}
