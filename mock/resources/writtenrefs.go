package resources

import (
	"path"
	"strings"
	"time"
)

// A record a client writes may name other records by id: a pipeline its
// labels (labelIds) and, in its launch settings, a compute environment; a
// data link its credentials. The service looks each one up, and a name it
// cannot find in the record's context is refused like any other missing
// resource (CONTRACT.md: 403), so that nothing the fake holds names what
// it does not hold and every copy of a named record is that record
// (copies.go). Ids of kinds the document has no collection for are taken
// on trust: there is nothing to check them against.

// refsDepth is how deep into a written record the check looks: its own
// fields and the objects they hold (a pipeline's launch), as far as the
// written shapes of the service's kinds name records.
const refsDepth = 2

// CheckWrittenRefs answers the missing-resource reply for the first id in
// fields (written to the collection, in workspace ws) that names no record
// the fake holds in that context; a part that writes an item's fields
// (a studio's start) checks them as the collection's own writes do.
func (c *Collection) CheckWrittenRefs(fields map[string]any, ws *int64, now time.Time) error {
	return c.s.checkRefsIn(c, fields, ws, now, 0)
}

func (s *Service) checkRefsIn(c *Collection, fields map[string]any, ws *int64, now time.Time, depth int) error {
	for k, v := range fields {
		if m, ok := v.(map[string]any); ok && depth+1 < refsDepth {
			if err := s.checkRefsIn(c, m, ws, now, depth+1); err != nil {
				return err
			}
			continue
		}
		named := s.writtenRef(c, k)
		if named == nil || v == nil {
			continue
		}
		ids, many := v.([]any)
		if !many {
			ids = []any{v}
		}
		for _, id := range ids {
			if id == nil || id == "" {
				continue // names nothing: an unset id, as a form-built body sends one
			}
			if err := named.visible(FmtID(id), ws, now); err != nil {
				return Fail(ErrMissing, "%s names %v, which is not held in %s: %v", k, id, contextName(ws), err)
			}
		}
	}
	return nil
}

// writtenRef finds the collection a written field (computeEnvId,
// labelIds) names records of, or nil: for the record's own id, the
// context it is written in (checked with the call), and names of no held
// kind.
func (s *Service) writtenRef(c *Collection, field string) *Collection {
	stem, ok := strings.CutSuffix(field, "Ids")
	if !ok {
		stem, ok = strings.CutSuffix(field, "Id")
	}
	if !ok || stem == "" || stem == "workspace" || stem == "org" {
		return nil
	}
	named := s.namedBy(stem + "Id")
	if named == nil || named == c || named.Indexed() {
		return nil
	}
	// The kind must be the one the field names, not one whose path
	// parameter happens to share its name (a launch's sessionId is
	// Nextflow's session, not /studios/{sessionId}).
	kind := strings.ToLower(strings.ReplaceAll(path.Base(named.listPath), "-", ""))
	if !strings.HasPrefix(kind, strings.ToLower(stem)) {
		return nil
	}
	return named
}
