package resources

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Identifiers inside answers name things the fake holds (mock/refs keeps
// the index of held ids and points generated ids at them). What the
// package tells the index is which collections hold which kind: a
// property named for the resource a collection holds (computeEnvId for
// /compute-envs, workspaceId for .../workspaces, teamIds for .../teams,
// workflowId for the runs) names its items. The index is filled when the
// seeding is done (or a state is restored) and kept current by the
// package's writes, which go through the index's store (Register).

// refersTo reports whether a property named param (xId) refers to the
// items of a collection listed at listPath: x is what the path's last
// literal segment names, in the singular or the plural.
func refersTo(param, listPath string) bool {
	base, ok := strings.CutSuffix(param, "Id")
	if !ok || base == "" {
		return false
	}
	lit := lastLiteral(listPath)
	return strings.EqualFold(base, lit) || strings.EqualFold(base, singular(lit))
}

// IndexRefs fills the index of the ids answers refer to from the store:
// after the seeding, and for a store restored from a state file rather
// than seeded.
func (s *Service) IndexRefs() error { return s.refs.Rebuild(s.fillRefs) }

// SyncRefs brings the index of the ids answers refer to up to date with
// the store (after a restore, or another replica's change), before an
// answer is built or keyed by the index's generation.
func (s *Service) SyncRefs() { s.refs.Sync(s.fillRefs) }

// itemContext reads a collection item's workspace; an item being deleted
// (a compute environment in DELETING) is no longer a target.
func itemContext(r store.Record) (int64, bool) {
	d, err := DecodeItem(r)
	if err != nil {
		return 0, false
	}
	var ws int64
	if d.Workspace != nil {
		ws = *d.Workspace
	}
	return ws, d.DeletingAt == nil
}

// fillRefs tells the index, kind by kind, where the held ids are.
func (s *Service) fillRefs(b *refs.Build) error {
	b.Nulls = s.fit.Nulls()
	colls := slices.Clone(s.colls)
	slices.SortStableFunc(colls, func(a, b *Collection) int { return len(a.itemPath) - len(b.itemPath) })
	for _, c := range colls {
		if !refersTo(c.param, c.listPath) {
			continue
		}
		if !contextParentsOnly(c.listPath) {
			b.Nested(c.param)
			continue
		}
		coll, ok := s.heldPath(c.listPath)
		if !ok {
			continue
		}
		if err := b.Collection(c.param, coll, itemContext); err != nil {
			return err
		}
	}
	for _, fill := range s.refFills { // the parts' kinds (Kit.FillsRefs): runs
		if err := fill(b); err != nil {
			return err
		}
	}
	// Users are described by id (/users/{userId}) but never listed: the
	// one the fake holds is the seeded user, whom every userId names.
	if id, ok := s.userID(); ok && s.op("GET", "/users/{userId}") != nil {
		b.Fixed("userId", fmt.Sprint(id))
	}
	return nil
}

// The store collections of runs (mock/runs), named here because the
// reference index must know them before any part registers (refWrites).
const (
	// WorkflowsCollection is the store collection holding workflow runs.
	WorkflowsCollection = "workflows"

	// TasksCollection holds the tasks clients report, one record each, with
	// the id "<workflowId>/<taskId>". The store files them in one ordered list
	// per run (see fileTask, mock/runs), in the order of their taskIds, so a page of a
	// run's tasks costs the page, whatever the run's size.
	TasksCollection = "tasks"

	// TraceDetailsCollection holds, per reported run (by its id), what only a
	// describe shows: the reported workflow in full, its process names, and
	// the metrics of its completion.
	TraceDetailsCollection = "trace-details"
)

// refWrites says which of the package's writes move the index: runs are
// created by the thousand and, like tasks and trace details, copied into
// no other answer.
var refWrites = refs.Writes{
	Frequent: WorkflowsCollection,
	Uncopied: func(coll string) bool {
		return coll == WorkflowsCollection || coll == TasksCollection || coll == TraceDetailsCollection
	},
}

// contextParentsOnly reports a list path whose parameters, if any, name
// the organization or workspace: items kept under another item (the
// checkpoints of a studio) are named together with their parent, which a
// lone id property does not say.
func contextParentsOnly(listPath string) bool {
	for _, seg := range strings.Split(listPath, "/") {
		if IsParamSeg(seg) && seg != "{orgId}" && seg != "{workspaceId}" {
			return false
		}
	}
	return true
}
