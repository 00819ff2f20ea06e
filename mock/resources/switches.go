package resources

import (
	"errors"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A compute environment has three switches below its item path, each a
// POST with an empty body answered 204 (the published schema):
//
//   - .../disable: the environment reads DISABLED until it is enabled
//     again, and stops being its workspace's primary one ("If the compute
//     environment is primary, it will be automatically unset as primary");
//   - .../enable: it reads as its lifecycle says again (AVAILABLE once
//     created);
//   - .../primary: it becomes its workspace's primary environment, and the
//     one that was primary before is not any more.
//
// The Terraform provider's seqera_compute_env_enabled reads the switch
// back from the describe answer's status (enabled is status !=
// DISABLED), and its seqera_primary_compute_env sets the third. They are
// found by these path shapes on a collection whose items have a
// lifecycle, where the status enum has DISABLED.

const disabledStatus = "DISABLED"

func (s *Service) registerSwitches() {
	for _, c := range s.colls {
		if !c.lifecycle || !EnumHas(c.item.Prop("status"), disabledStatus) {
			continue
		}
		s.handle(s.op("POST", c.itemPath+"/disable"), c.switchOp(func(d *Item) {
			d.Fields["status"] = disabledStatus
			delete(d.Fields, "primary")
		}))
		s.handle(s.op("POST", c.itemPath+"/enable"), c.switchOp(func(d *Item) {
			if d.Fields["status"] == disabledStatus {
				delete(d.Fields, "status")
			}
		}))
		s.handle(s.op("POST", c.itemPath+"/primary"), c.primaryOp)
	}
}

// switchOp answers a switch that changes the item with set.
func (c *Collection) switchOp(set func(*Item)) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		coll, r, _, err := c.Get(req)
		if err != nil {
			return nil, err
		}
		if err := c.change(coll, r.ID, req.Now, set); err != nil {
			return nil, err
		}
		return Success(req.Op, nil), nil
	}
}

// primaryOp makes the item its context's primary one. A disabled item
// cannot be (the service unsets primary on disable): that is a Bad
// Request.
func (c *Collection) primaryOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	if d.Fields["status"] == disabledStatus {
		return nil, Fail(ErrBadInput, "compute environment %s is disabled and cannot be primary", r.ID)
	}
	// The context's primary list holds the ones marked before; a few at
	// most, since each mark unmarks the others.
	recs, _, err := c.s.d.Store.Page(c.listPath, store.Query{List: primaryList(d.Workspace), Limit: 16})
	if err != nil {
		return nil, err
	}
	for _, old := range recs {
		if old.ID == r.ID {
			continue
		}
		err := c.change(coll, old.ID, req.Now, func(d *Item) { delete(d.Fields, "primary") })
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if err := c.change(coll, r.ID, req.Now, func(d *Item) { d.Fields["primary"] = true }); err != nil {
		return nil, err
	}
	return Success(req.Op, nil), nil
}
