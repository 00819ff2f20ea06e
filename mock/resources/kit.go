package resources

import (
	"slices"
	"time"

	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A Part is a behaviour that reaches the kernel only through its Kit, so
// that it can be kept in a package of its own (mock/runs, mock/studios
// and mock/datasets are; the server names them in Deps.Parts). Register
// calls each part once, after the tokens and before the generic
// collections, with the kernel's Kit; the part claims the operations it
// answers and hooks in where the kernel asks about what it holds. So the
// kernel need never import a part: whoever builds the service names the
// parts in Deps.Parts.
type Part func(k *Kit) error

// Kit is the kernel's face to its parts: what a part needs to answer as
// the kernel's own handlers do, over the same store, clock and synthesized
// bases, with values fitted to the answer's schemas in the same way, so
// that a part's answers are judged like the rest. It holds no state of its
// own; every field is the service's.
type Kit struct {
	// Deps are the service's: its Store is the one whose writes move the
	// reference index (mock/refs), and Caches the set a part's caches
	// join, so they share its budget.
	Deps
	// Doc is the document served.
	Doc *spec.Document
	// Fit lays values over answers where the schema has room for them;
	// Bases gives the synthesized values answers are built on.
	Fit   *fit.Fitter
	Bases *fit.Bases

	s *Service
}

func (s *Service) kit() *Kit {
	return &Kit{Deps: s.d, Doc: s.doc, Fit: s.fit, Bases: s.bases, s: s}
}

// Op finds the document's operation for a method and path template (nil
// without one).
func (k *Kit) Op(method, path string) *spec.Operation { return k.s.op(method, path) }

// Handle claims op for h unless another behaviour has claimed it, and
// reports whether it did. h's errors (Fail, the store's sentinels) become
// the service's answers in the kernel's one place (errors.go), and its
// answer is completed on the way out as every other is.
func (k *Kit) Handle(op *spec.Operation, h handler.Func) bool {
	if op == nil || k.s.handlers[op] != nil {
		return false
	}
	k.s.handle(op, h)
	return true
}

// Release gives a claimed operation back to synthesis: for a part that
// finds, once the collections are known, that it has nothing to answer.
func (k *Kit) Release(op *spec.Operation) { delete(k.s.handlers, op) }

// AfterCollections has fn called once the generic collections are found
// (a part that lays a life over one of them looks for it there).
func (k *Kit) AfterCollections(fn func() error) { k.s.afterColls = append(k.s.afterColls, fn) }

// Holds makes ids of the path parameters params (workflowId) the part's
// to check: every other operation whose path names one asks exists first,
// and answers the missing-resource reply where it fails.
func (k *Kit) Holds(exists func(req *handler.Request, id string) error, params ...string) {
	for _, p := range params {
		k.s.holds[p] = exists
	}
}

// FillsRefs adds fill to what tells the reference index where the held ids
// are, after the collections' kinds (see mock/refs.Build).
func (k *Kit) FillsRefs(fill func(b *refs.Build) error) { k.s.refFills = append(k.s.refFills, fill) }

// Seeds adds seed to what Service.Seed does, after the collections' items
// are seeded and before every collection gets its seeded items.
func (k *Kit) Seeds(seed func(sd *Seed, now time.Time) error) {
	k.s.seeders = append(k.s.seeders, seed)
}

// NewID is a fresh random base62 id of n characters, from the service's
// seeded stream, so a test run is repeatable.
func (k *Kit) NewID(n int) string { return k.s.ids.next(n) }

// UserName is the name the caller's runs carry: the seeded user's, or the
// fake's own name without one.
func (k *Kit) UserName() string { return k.s.userName() }

// UserID is the seeded user's id, when there is one.
func (k *Kit) UserID() (any, bool) { return k.s.userID() }

// OwnerID is the id answers give as a record's owner (null without a
// seeded user).
func (k *Kit) OwnerID() any { return k.s.ownerID() }

// HeldBy is the view of the held record that the id property param
// (computeEnvId) names with this id, as schema sch shows it (its describe
// View when sch is nil), so that a copy of a record in a part's answer is
// what the record's own views show.
func (k *Kit) HeldBy(param string, id any, sch *spec.Schema, now time.Time) (map[string]any, bool) {
	h, ok := k.s.heldBy(param, id, sch, now)
	return h.view, ok
}

// Finish does to v, an answer of schema sch, what the kernel does to every
// answer on its way out: the copies of held records in it are made to
// show those records, and every object is completed. A part that caches
// its renderings calls it once per rendering; the way out then finds
// nothing left to do.
func (k *Kit) Finish(sch *spec.Schema, v any, now time.Time) {
	k.s.copyIn(sch, v, now, 0, 0)
	k.s.fit.Complete(sch, v)
}

// Listing reads a list call's page and its answer's list shape; what
// names the items, for the error a document without such a list gets.
func (k *Kit) Listing(req *handler.Request, what string) (Listing, error) {
	return k.s.listing(req, what)
}

// CheckLaunch resolves a launch's references in the call's workspace (ws,
// when given): the compute environment it names, else the context's
// primary one ("" without one). See launchrefs.go.
func (k *Kit) CheckLaunch(req *handler.Request, computeEnvID string, ws int64, given bool) (string, error) {
	return k.s.checkLaunch(req, computeEnvID, ws, given)
}

// WorkspaceExists answers the missing-resource reply unless the fake holds
// a workspace with this id (a document without workspaces holds any).
func (k *Kit) WorkspaceExists(ws int64) error { return k.s.workspaceExists(ws) }

// Collections are the generic collections found in the document
// (collections.go), for a part that lays a behaviour over some of them
// (datasets, studios): known from AfterCollections on.
func (k *Kit) Collections() []*Collection { return slices.Clone(k.s.colls) }

// ListPath, ItemPath and Param say where a collection is: the path
// templates of its list and of one item, and the item's path parameter.
func (c *Collection) ListPath() string { return c.listPath }
func (c *Collection) ItemPath() string { return c.itemPath }
func (c *Collection) Param() string    { return c.param }

// ItemSchema is the schema of one item, as its describe answer shows it.
func (c *Collection) ItemSchema() *spec.Schema { return c.item }

// A Life is what a part (mock/studios) lays over a collection whose items
// have a life of their own on the fake's clock, kept in Item.Life: the
// collection asks it when an item is created and whenever one is shown,
// so that every view of an item, copies in other answers among them,
// shows where its life is at the time of the call.
type Life interface {
	// Created prepares a new item d (in store collection coll) before it
	// is stored.
	Created(req *handler.Request, coll string, d *Item) error
	// Show lays over m, a view of the item of schema sch, what its life
	// shows at now.
	Show(sch *spec.Schema, r store.Record, d *Item, now time.Time, m map[string]any)
	// StatusAt is the item's status at now: the copies of its views are
	// cached per status (copies.go), since they change with it.
	StatusAt(d *Item, now time.Time) string
}

// Lives lays l over the collection's items.
func (c *Collection) Lives(l Life) { c.life = l }

// Searches replaces the list's text search (Collection.matches) where the
// service documents a syntax of its own (data links' keywords): match
// says whether the item is found by q, and exact whether it is named
// exactly that, which lists it first.
func (c *Collection) Searches(match func(coll string, r store.Record, d *Item, q string, now time.Time) (exact, ok bool)) {
	c.search = match
}

// OnDelete has free called once an item is deleted, to free what it holds
// beyond its record (a dataset's uploaded bytes).
func (c *Collection) OnDelete(free func(coll, id string) error) { c.afterDelete = free }
