package resources

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Some of what a client writes with an item is read back through an
// operation of its own below the item's path: a pipeline is created with
// its launch settings ({"launch": {...}}) and the settings are read with
// GET /pipelines/{pipelineId}/launch. Such a view is found in the document,
// not named in code: a GET below an item's path, with no id of its own,
// whose answer has a property (at its top or inside its one wrapper) that
// the item's create or update body declares. It answers the record's
// values for those properties as written, laid over values synthesized
// under the record's key, so two reads agree with each other and with what
// was written. Other operations below an item keep their guarded,
// synthesized answers.

// registerViews claims the sub-resource views of every collection.
func (s *Service) registerViews() {
	for _, c := range s.colls {
		for _, op := range s.doc.Operations {
			rest, below := strings.CutPrefix(op.Path, c.itemPath+"/")
			if op.Method != "GET" || !below || strings.Contains(rest, "{") {
				continue
			}
			if _, taken := s.handlers[op]; taken || !c.showsWritten(SuccessSchema(op)) {
				continue
			}
			s.handle(op, c.viewOp(rest))
		}
	}
}

// showsWritten reports whether an answer of schema sch (or the one object
// it wraps) has a property the item's create or update body declares.
func (c *Collection) showsWritten(sch *spec.Schema) bool {
	if !sch.IsObject() {
		return false
	}
	targets := []*spec.Schema{sch}
	if names := sch.PropNames(); len(names) == 1 {
		targets = append(targets, sch.Prop(names[0]))
	}
	for _, op := range []*spec.Operation{c.create, c.update} {
		written := c.writtenSchema(op)
		for _, t := range targets {
			for _, name := range t.PropNames() {
				if name != c.idProp && written.Prop(name) != nil && c.item.Prop(name) == nil {
					return true
				}
			}
		}
	}
	return false
}

// writtenSchema is the schema of the item's values in op's body: the
// member named like the item when the body wraps it, else the body.
func (c *Collection) writtenSchema(op *spec.Operation) *spec.Schema {
	sch := RequestSchema(op)
	if c.itemKey != "" {
		if p := sch.Prop(c.itemKey); p.IsObject() {
			return p
		}
	}
	return sch
}

// viewOp answers the view named rest (the path below the item) of the
// item the call names.
func (c *Collection) viewOp(rest string) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		coll, r, d, err := c.Get(req)
		if err != nil {
			return nil, err
		}
		if v := req.Query.Get("versionId"); v != "" && c.versioned && v != c.versionID(coll, r, d) {
			return nil, Fail(ErrMissing, "no version %q of %s", v, r.ID)
		}
		sch := SuccessSchema(req.Op)
		// Even a seeded record's view starts empty: the seed says nothing
		// of what it shows (a pipeline's launch settings), and generated
		// settings would launch runs nobody asked for (resume: true, a
		// session, a run name); what the record implies is derived below.
		m := c.s.bases.Bare(sch, recordKey(coll, r, d)+"/"+rest)
		c.s.showWritten(sch, m, d)
		c.s.launchDerived(sch, m, d, req.Now)
		return Success(req.Op, m), nil
	}
}

// showWritten lays what a record says over a view m of schema sch: the
// references it names, what the service derives from what was written, and
// what was written itself.
func (s *Service) showWritten(sch *spec.Schema, m map[string]any, d *Item) {
	s.refs.FixRecord(m, d.Workspace, d.Fields)
	derivedFields := derive(d.Fields)
	s.showRefs(sch, m, derivedFields)
	s.showRefs(sch, m, d.Fields)
	s.fit.Merge(sch, m, derivedFields, 0)
	s.fit.Merge(sch, m, d.Fields, 0)
	// References written inside an object (a pipeline's launch names its
	// compute environment) show as what they name there too. Only such
	// objects are copied: the rest of the view is left as merged.
	for k, v := range d.Fields {
		wm, ok := v.(map[string]any)
		ps := sch.Prop(k)
		if !ok || !ps.IsObject() || !namesRefs(wm) {
			continue
		}
		mm, _ := jsonvalue.Clone(m[k]).(map[string]any) // m[k] may be the record's own map
		if mm == nil {
			mm = map[string]any{}
		}
		s.showRefs(ps, mm, wm)
		m[k] = mm
	}
}

// namesRefs reports written fields that name records by id (computeEnvId,
// labelIds), the fields showRefs shows as what they name.
func namesRefs(fields map[string]any) bool {
	for k, v := range fields {
		if v != nil && (strings.HasSuffix(k, "Id") || strings.HasSuffix(k, "Ids")) {
			return true
		}
	}
	return false
}

// derived names item properties the service works out from what was
// written rather than taking them as given: a pipeline's repository is the
// pipeline its launch settings run (seen in the service's describe answers
// and the Terraform provider's pipeline resource, where repository is
// computed). A written value of the property itself wins.
var derived = map[string][]string{
	"repository": {"launch", "pipeline"},
	// A pipeline's compute environment is the one its launch settings
	// run on (the Terraform provider reads it back as the pipeline's).
	"computeEnvId": {"launch", "computeEnvId"},
	// A compute environment's short forms (ComputeEnvDbDto, in a
	// pipeline, a studio) carry its region and work directory, which are
	// its configuration's.
	"region":  {"config", "region"},
	"workDir": {"config", "workDir"},
}

// derive returns the derived values a record's written fields give.
func derive(fields map[string]any) map[string]any {
	out := map[string]any{}
	for name, path := range derived {
		if _, given := fields[name]; given {
			continue
		}
		var v any = fields
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if v != nil {
			out[name] = v
		}
	}
	return out
}

// showRefs lays, for each written reference to another item (a data link's
// credentialsId), the item it names into the view's object for it (the
// data link's credentials): the id as written, with the named item's own
// written values (its name, its provider) where they fit. The service
// answers the credentials a data link was created with, not others.
func (s *Service) showRefs(sch *spec.Schema, m map[string]any, fields map[string]any) {
	for k, v := range fields {
		stem, isRef := strings.CutSuffix(k, "Id")
		if ids, many := v.([]any); many {
			// A written list of references (labelIds) shows as the list
			// of what they name (labels).
			if stem, isRefs := strings.CutSuffix(k, "Ids"); isRefs && stem != "" {
				s.showRefList(sch, m, stem+"s", ids)
			}
			continue
		}
		if !isRef || stem == "" || v == nil || v == "" {
			continue
		}
		for _, name := range []string{stem, stem + "s"} {
			p := sch.Prop(name)
			obj, many := p, p.IsArray()
			if many {
				obj = p.Items()
			}
			if !obj.IsObject() || obj.Prop("id") == nil {
				continue
			}
			// The view's own object for the reference, so that what the
			// named item does not say is still there.
			ref, _ := jsonvalue.Clone(m[name]).(map[string]any)
			if l, _ := m[name].([]any); many && len(l) > 0 {
				ref, _ = jsonvalue.Clone(l[0]).(map[string]any)
			}
			if ref == nil {
				ref = map[string]any{}
			}
			if c := s.namedBy(k); c != nil {
				if _, d, err := c.find(FmtID(v)); err == nil {
					s.fit.Merge(obj, ref, d.Fields, 0)
				}
			}
			if !s.fit.Set(obj, ref, "id", v) {
				continue
			}
			var shown any = ref
			if many {
				shown = []any{ref}
			}
			s.fit.Set(sch, m, name, shown)
		}
	}
}

// launchDerived makes a view that holds launch settings (a pipeline's
// launch, GET /pipelines/{pipelineId}/launch) say what the record implies
// where nothing was written: the pipeline to run is the record's
// repository, and the work directory is that of the compute environment
// the launch runs on. A launch built for a record of the seeded account
// is then the record's own, not another pipeline's.
func (s *Service) launchDerived(sch *spec.Schema, m map[string]any, d *Item, now time.Time) {
	launch, lsch := m, sch
	if ls := sch.Prop("launch"); ls.IsObject() {
		l, ok := m["launch"].(map[string]any)
		if !ok {
			l = map[string]any{}
			m["launch"] = l
		}
		launch, lsch = l, ls
	}
	written, _ := d.Fields["launch"].(map[string]any)
	if repo, ok := d.Fields["repository"]; ok && (written == nil || written["pipeline"] == nil) {
		s.fit.Set(lsch, launch, "pipeline", repo)
	}
	var ceID any
	if ce, ok := launch["computeEnv"].(map[string]any); ok {
		ceID = ce["id"]
	}
	if ceID == nil && d.Seeded {
		// A launch that names no compute environment runs on its
		// context's primary one (CONTRACT.md, launch references); a
		// seeded pipeline's launch names it. (One a client wrote without
		// one reads back without one.)
		if ce := s.namedBy("computeEnvId"); ce != nil {
			if id, err := ce.primary(d.Workspace, now); err == nil && id != "" {
				if h, ok := s.heldBy("computeEnvId", id, lsch.Prop("computeEnv"), now); ok {
					launch["computeEnv"], ceID = jsonvalue.Clone(h.view), id
				}
			}
		}
	}
	if written != nil && written["workDir"] != nil || !d.Seeded {
		return
	}
	if h, ok := s.heldBy("computeEnvId", ceID, nil, now); ok {
		if cfg, ok := h.view["config"].(map[string]any); ok && cfg["workDir"] != nil {
			s.fit.Set(lsch, launch, "workDir", cfg["workDir"])
		}
	}
}

// showRefList sets the view's list name (labels) to one object per id,
// each the id alone: the copies of held records (copies.go) then show
// each as its record is.
func (s *Service) showRefList(sch *spec.Schema, m map[string]any, name string, ids []any) {
	p := sch.Prop(name)
	if !p.IsArray() || p.Items().Prop("id") == nil {
		return
	}
	list := make([]any, 0, len(ids))
	for _, id := range ids {
		list = append(list, map[string]any{"id": id})
	}
	m[name] = list
}

// FmtID writes an id value as a path would name it (a stored number
// decodes as a float64).
func FmtID(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
