package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/mock/synth"
	"github.com/wmsmock/wmsmock/profile"
)

// Collections are found in the document itself, not listed in code: any
// path P that a GET or POST answers, next to a path P/{xId} that a GET
// answers, is a collection of items. GET P lists them (paged), POST P
// creates one, GET P/{xId} describes one, PUT or PATCH P/{xId} updates it
// and DELETE P/{xId} removes it, each only where the document has the
// operation. That covers pipelines, compute environments, credentials,
// organizations and their workspaces in the embedded document, and the
// dozens of such pairs in the published one, with one piece of code.
//
// A stored item keeps only the values a client (or the seed) gave that fit
// the item's schema. An item a client created is answered with those values
// and what the service derives (its id, dates, status, workspace), every
// other property null (see frame and complete.go); an item of the seeded
// account is a synthesized valid item with its seeded values laid over it. An item whose status can be CREATING and AVAILABLE (compute
// environments) is CREATING for the profile's creating_for after it is
// created, and DELETING for deleting_for after a delete before it is gone.

// A Collection is one such pair of paths and what the kernel does with
// it; a part that lays behaviour over one gets it from Kit.Collections.
type Collection struct {
	s *Service
	// listPath is the collection's path template, itemPath its item's.
	listPath, itemPath string
	// param names the item's path parameter; numericID says its ids are
	// numbers (handed out in sequence), else short base62 strings.
	param     string
	numericID bool
	idLen     int

	list, create, describe, update, del *spec.Operation

	// item is the item's schema in the describe answer, under itemKey
	// when that answer wraps it ({"pipeline": {...}}).
	item    *spec.Schema
	itemKey string
	// listKey is the list answer's array of entries, entry their schema.
	listKey string
	entry   *spec.Schema
	// idProp is the item property holding the id ("pipelineId", "id").
	idProp string

	// nameKey marks items addressed by their name (/roles/{roleName}):
	// the id is the name the client gives.
	nameKey bool
	// idSchema constrains generated string ids (a format or pattern the
	// path parameter or id property declares); nil means short base62.
	idSchema *spec.Schema

	// pathOp is one operation on the item path, for its parameter's
	// schema; owners check the ids in the list path (the org of a
	// workspace) before anything is read or written.
	pathOp *spec.Operation
	owners []holder

	// opaqueCreate: the create body is not JSON (multipart form data),
	// so nothing in it is kept.
	opaqueCreate bool

	lifecycle  bool // CREATING -> AVAILABLE, DELETING -> gone
	versioned  bool // items show their version (versions.go)
	uniqueName bool // a duplicate name is a 409, as the document declares
	scoped     bool // items belong to a workspace (workspaceId parameter)
	// What parts lay over the collection (kit.go: OnDelete, Searches,
	// Lives); nil for most.
	afterDelete func(coll, id string) error
	search      func(coll string, r store.Record, d *Item, q string, now time.Time) (exact, ok bool)
	life        Life
}

// Item is what a collection record holds.
type Item struct {
	Fields     map[string]any `json:"fields"`
	Workspace  *int64         `json:"workspaceId,omitempty"`
	DeletingAt *time.Time     `json:"deletingAt,omitempty"`
	// Seeded marks an item of the seeded account, whose views may show
	// values the fake makes up for it (the same in every view); an item a
	// client created shows only what was written and what the service
	// derives, null elsewhere.
	Seeded bool `json:"seeded,omitempty"`
	// Life is what a kind with a life of its own keeps beside the fields
	// (a studio's sessions, mock/studios).
	Life json.RawMessage `json:"life,omitempty"`
}

type v3Parameter = v3.Parameter

func IsParamSeg(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

func (s *Service) registerCollections() {
	byPath := map[string]map[string]*spec.Operation{}
	firstOp := map[string]*spec.Operation{} // the document's first operation on each path
	var paths []string
	for _, op := range s.doc.Operations {
		if byPath[op.Path] == nil {
			byPath[op.Path] = map[string]*spec.Operation{}
			paths = append(paths, op.Path)
			firstOp[op.Path] = op
		}
		byPath[op.Path][op.Method] = op
	}
	free := func(path, method string) *spec.Operation {
		op := byPath[path][method]
		if op == nil || s.handlers[op] != nil {
			return nil
		}
		return op
	}
	for _, path := range paths {
		segs := strings.Split(path, "/")
		itemPath, del := path, free(path, "DELETE")
		if n := len(segs); n >= 4 && segs[n-1] == "delete" && IsParamSeg(segs[n-2]) && byPath[strings.Join(segs[:n-1], "/")] == nil {
			// An item with no path of its own, removed through a path
			// below it (a team's members: GET and POST .../members,
			// DELETE .../members/{memberId}/delete).
			segs = segs[:n-1]
			itemPath = strings.Join(segs, "/")
		}
		if len(segs) < 3 || !IsParamSeg(segs[len(segs)-1]) || IsParamSeg(segs[len(segs)-2]) {
			continue
		}
		listPath := strings.Join(segs[:len(segs)-1], "/")
		c := &Collection{
			s: s, listPath: listPath, itemPath: itemPath,
			param:    strings.Trim(segs[len(segs)-1], "{}"),
			describe: free(itemPath, "GET"),
			list:     free(listPath, "GET"),
			create:   free(listPath, "POST"),
			del:      del,
		}
		if c.update = free(itemPath, "PUT"); c.update == nil {
			c.update = free(itemPath, "PATCH")
		}
		c.pathOp = firstOp[path]
		if c.list == nil && c.create == nil || !c.shape() {
			continue
		}
		if c.create == nil && !idParam.MatchString(c.param) {
			// Listed by something other than an id (a file path under a
			// data link) with no way to add to it: the fake could never
			// hold an item, so its operations stay synthesized.
			continue
		}
		s.colls = append(s.colls, c)
	}
	for _, c := range s.colls {
		c.owners = s.holders(c.listPath)
		s.handle(c.list, c.listOp)
		if namesPerson(c.create) {
			s.handle(c.create, c.addOp) // a team's members: who joins, by name or e-mail
		} else {
			s.handle(c.create, c.createOp)
		}
		s.handle(c.describe, c.describeOp)
		s.handle(c.update, c.updateOp)
		s.handle(c.del, c.DeleteOp)
	}
}

// shape reads the schemas the collection's operations answer with; it
// reports false when the describe answer is not an object.
func (c *Collection) shape() bool {
	if c.list != nil {
		c.listKey, c.entry = SuccessSchema(c.list).ListShape()
		if c.listKey == "" {
			c.list = nil
		}
	}
	if c.create != nil && RequestSchema(c.create) == nil {
		// A create that takes no JSON (an avatar's image, as multipart
		// form data) still makes an item; its fields are synthesized.
		if hasBody(c.create) {
			c.opaqueCreate = true
		} else {
			c.create = nil
		}
	}
	if c.update != nil && RequestSchema(c.update) == nil {
		c.update = nil
	}
	if c.list == nil && c.create == nil {
		return false
	}
	d := SuccessSchema(c.describe)
	if !d.IsObject() {
		// Nothing describes one item as JSON (/datasets/{datasetId} has no
		// GET; an avatar's GET is the image): the list entry or the create
		// answer says what an item is, and the item's other operations keep
		// synthesized answers behind the check that it exists.
		c.describe = nil
		if d = c.entry; d == nil {
			d = SuccessSchema(c.create)
		}
		if !d.IsObject() {
			return false
		}
	}
	c.item = d
	for _, name := range []string{c.listKey, singular(c.listKey), singular(lastLiteral(c.listPath))} {
		if name == "" {
			continue
		}
		if p := d.Prop(name); p.IsObject() && !p.IsArray() {
			c.itemKey, c.item = name, p
			break
		}
	}
	if c.itemKey == "" {
		if names := d.PropNames(); len(names) == 1 {
			if p := d.Prop(names[0]); p.IsObject() && !p.IsArray() {
				c.itemKey, c.item = names[0], p
			}
		}
	}
	if c.entry == nil {
		c.entry = c.item
	}
	switch {
	case c.item.Prop(c.param) != nil:
		c.idProp = c.param
	case c.item.Prop("id") != nil:
		c.idProp = "id"
	}
	c.numericID, c.idLen = paramIsInteger(c.pathOp, c.param), 14
	if p := c.item.Prop(c.idProp); p != nil {
		if p.HasType(spec.Integer) {
			c.numericID = true
		}
		if p.MaxLength > 0 && p.MaxLength < int64(c.idLen) {
			c.idLen = int(p.MaxLength)
		}
	}
	c.nameKey = !c.numericID && strings.HasSuffix(strings.ToLower(c.param), "name") && c.item.Prop("name") != nil
	for _, cand := range []*spec.Schema{c.item.Prop(c.idProp), pathParamSchema(c.pathOp, c.param)} {
		if cand != nil && cand.HasType(spec.String) && (cand.Format != "" || cand.Pattern != "" || len(cand.Enum) > 0 || cand.MinLength > 14) {
			c.idSchema = cand
			break
		}
	}
	c.lifecycle = EnumHas(c.item.Prop("status"), "CREATING", "AVAILABLE")
	c.uniqueName = c.item.Prop("name") != nil && (declares(c.create, "409") || declares(c.update, "409"))
	c.scoped = hasQueryParam(c.list, "workspaceId") || hasQueryParam(c.create, "workspaceId")
	return true
}

// singular is refs.Singular: the references name kinds as the collections do.
var singular = refs.Singular

// lastLiteral turns the last path segment into a property-style name:
// "compute-envs" becomes "computeEnvs".
func lastLiteral(path string) string {
	seg := path[strings.LastIndex(path, "/")+1:]
	parts := strings.Split(seg, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func paramIsInteger(op *spec.Operation, name string) bool {
	return pathParamSchema(op, name).HasType(spec.Integer)
}

func pathParamSchema(op *spec.Operation, name string) *spec.Schema {
	for _, p := range params(op) {
		if p.In == "path" && p.Name == name && p.Schema != nil {
			return op.SchemaOf(p.Schema)
		}
	}
	return nil
}

func hasQueryParam(op *spec.Operation, name string) bool {
	for _, p := range params(op) {
		if p.In == "query" && p.Name == name {
			return true
		}
	}
	return false
}

func params(op *spec.Operation) []*v3Parameter {
	if op == nil {
		return nil
	}
	var out []*v3Parameter
	if op.PathItem != nil {
		out = append(out, op.PathItem.Parameters...)
	}
	if op.Op != nil {
		out = append(out, op.Op.Parameters...)
	}
	return slices.DeleteFunc(out, func(p *v3Parameter) bool { return p == nil })
}

// EnumHas reports whether a schema's enum (through allOf) holds all values.
func EnumHas(s *spec.Schema, values ...string) bool {
	var enum []string
	var walk func(*spec.Schema, int)
	walk = func(s *spec.Schema, depth int) {
		if s == nil || depth > fit.MaxDepth {
			return
		}
		for _, e := range s.Enum {
			if v, ok := e.(string); ok {
				enum = append(enum, v)
			}
		}
		for _, m := range s.AllOf() {
			walk(m, depth+1)
		}
	}
	walk(s, 0)
	for _, v := range values {
		if !slices.Contains(enum, v) {
			return false
		}
	}
	return len(values) > 0
}

// Concrete fills a path template with the call's path parameters: the
// store name of one instance of a nested collection ("/orgs/7/workspaces").
func Concrete(template string, vars map[string]string) string {
	segs := strings.Split(template, "/")
	for i, seg := range segs {
		if IsParamSeg(seg) {
			segs[i] = vars[strings.Trim(seg, "{}")]
		}
	}
	return strings.Join(segs, "/")
}

// matchTemplate reports whether a concrete path is an instance of the
// template, for seed files that name collections by their path.
func matchTemplate(template, path string) bool {
	ts, ps := strings.Split(template, "/"), strings.Split(strings.TrimSuffix(path, "/"), "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if !IsParamSeg(ts[i]) && ts[i] != ps[i] || ps[i] == "" && ts[i] != "" {
			return false
		}
	}
	return true
}

func (c *Collection) idValue(id string) any {
	if c.numericID {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			return n
		}
	}
	return id
}

func (c *Collection) newID(coll string) func() (string, error) {
	return func() (string, error) {
		if c.numericID {
			// Ids of nested items count per kind, not per parent, so that
			// an id names one item whichever parent it is under, as on the
			// service.
			counter := coll
			if c.Indexed() {
				counter = c.itemPath
			}
			n, err := c.s.d.Store.NextSeq(counter)
			return strconv.FormatInt(n, 10), err
		}
		id := c.s.ids.next(c.idLen)
		if c.idSchema != nil {
			// A constrained id (a UUID, a pattern) is made by the generator,
			// which knows how to satisfy the constraint.
			if v, ok := c.s.d.Gen.Value(c.idSchema.Lib(), "id "+id, synth.Response).(string); ok && v != "" && !strings.Contains(v, "/") {
				return v, nil
			}
		}
		return id, nil
	}
}

func DecodeItem(r store.Record) (*Item, error) {
	var d Item
	if err := json.Unmarshal(r.Data, &d); err != nil {
		return nil, fmt.Errorf("resources: record %s: %w", r.ID, err)
	}
	if d.Fields == nil {
		d.Fields = map[string]any{}
	}
	return &d, nil
}

// change rewrites one stored item with set, answering the
// missing-resource reply when it has gone meanwhile.
func (c *Collection) change(coll, id string, now time.Time, set func(*Item)) error {
	_, err := c.s.d.Store.Update(coll, id, func(rec *store.Record) error {
		cur, err := DecodeItem(*rec)
		if err != nil {
			return err
		}
		set(cur)
		rec.Updated = now.UTC()
		rec.Data, err = json.Marshal(cur)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return Fail(ErrMissing, "item %q in %s was deleted", id, coll)
	}
	return err
}

// status works out a lifecycle item's status at now; gone reports an item
// whose deletion has finished.
func (c *Collection) status(r store.Record, d *Item, now time.Time) (status string, gone bool) {
	prof := c.s.d.Profile.ComputeEnvs
	if d.DeletingAt != nil {
		if !now.Before(d.DeletingAt.Add(prof.DeletingFor)) {
			return "", true
		}
		return "DELETING", false
	}
	if st, ok := d.Fields["status"].(string); ok && st != "" {
		return st, false
	}
	if now.Before(r.Created.Add(prof.CreatingFor)) {
		return "CREATING", false
	}
	return "AVAILABLE", false
}

// gone reports an item whose deletion has finished, and forgets it unless
// the profile keeps it describable (compute_envs.after_delete).
func (c *Collection) gone(coll string, r store.Record, d *Item, now time.Time) bool {
	if !c.lifecycle {
		return false
	}
	if _, g := c.status(r, d, now); g {
		if !c.keepsDeleted() {
			_ = c.s.d.Store.Delete(coll, r.ID) // a concurrent reader may have done it
		}
		return true
	}
	return false
}

// keepsDeleted reports whether an item whose deletion has finished stays
// describable, as DELETED.
func (c *Collection) keepsDeleted() bool {
	return c.lifecycle && c.s.d.Profile.ComputeEnvs.AfterDelete == profile.AfterDeleteDeleted
}

// checkParent answers the missing-resource reply when an id in the
// collection's own path (the org of /orgs/{orgId}/workspaces, the
// workspace of /workspaces/{workspaceId}/datasets) names nothing the fake
// holds, as the service does for any missing resource.
func (c *Collection) checkParent(req *handler.Request) error {
	for _, exists := range c.owners {
		if err := exists(req); err != nil {
			return err
		}
	}
	return nil
}

// Get finds an item for an item operation, or answers 403.
func (c *Collection) Get(req *handler.Request) (string, store.Record, *Item, error) {
	coll, r, d, err := c.findItem(req)
	if err == nil && c.gone(coll, r, d, req.Now) {
		return coll, r, nil, Fail(ErrMissing, "item %q in %s was deleted", r.ID, coll)
	}
	return coll, r, d, err
}

// findItem is get without the check that the item's deletion has not finished.
func (c *Collection) findItem(req *handler.Request) (string, store.Record, *Item, error) {
	coll := Concrete(c.listPath, req.PathParams)
	id := req.PathParams[c.param]
	if err := c.checkParent(req); err != nil {
		return coll, store.Record{}, nil, err
	}
	r, err := c.s.d.Store.Get(coll, id)
	if errors.Is(err, store.ErrNotFound) {
		return coll, r, nil, Fail(ErrMissing, "no item %q in %s", id, coll)
	}
	if err != nil {
		return coll, r, nil, err
	}
	d, err := DecodeItem(r)
	if err != nil {
		return coll, r, nil, err
	}
	if c.scoped {
		ws, given, err := WorkspaceOf(req.Query)
		if err != nil {
			return coll, r, nil, err
		}
		if given && (d.Workspace == nil || *d.Workspace != ws) {
			return coll, r, nil, Fail(ErrMissing, "item %q is not in workspace %d", id, ws)
		}
	}
	return coll, r, d, nil
}

// RequestFields takes the item's values from a create or update body:
// from the member named like the item when the body wraps it
// ({"computeEnv": {...}}), else from the body itself. Values of properties
// a client may set (not readOnly) that fit the item's schema are kept, and
// so are the values the body's own schema declares that the item's does
// not (a pipeline's launch, a config written in another shape than the one
// described): a view of the item that has room for them (the pipeline's
// launch, a list entry in the request's shape) shows them as written.
func (c *Collection) RequestFields(op *spec.Operation, body map[string]any) map[string]any {
	src, written := body, RequestSchema(op)
	if c.itemKey != "" {
		if inner, ok := body[c.itemKey].(map[string]any); ok && written.Prop(c.itemKey) != nil {
			src, written = inner, written.Prop(c.itemKey)
		}
	}
	return c.keepFields(src, written, false)
}

// fitFields keeps the values of a seeded item (seed) or of a body that fit
// the item schema.
func (c *Collection) fitFields(src map[string]any, seed bool) map[string]any {
	return c.keepFields(src, nil, seed)
}

// keepFields keeps the values that fit the item schema, or failing that the
// schema they were written with (written; nil for a seed). Seeds may also
// set server-managed (readOnly) values such as a status, and are not
// checked here: every value is checked again when it is laid over an
// answer, and checking a whole seed up front would cost the published
// schema's start a few hundred milliseconds of schema compilation.
func (c *Collection) keepFields(src map[string]any, written *spec.Schema, seed bool) map[string]any {
	out := map[string]any{}
	for k, v := range src {
		if k == c.idProp || v == nil {
			continue
		}
		p, w := c.item.Prop(k), written.Prop(k)
		if p.ReadOnly() && !seed {
			p = nil
		}
		// Secrets a client sends are not kept at all, so they can be
		// neither answered nor saved to a state file.
		if p == nil && w == nil || p.WriteOnly() || w.WriteOnly() {
			continue
		}
		v = jsonvalue.DropNulls(jsonvalue.Clone(v))
		fit.HideWriteOnly(p, v, 0)
		fit.HideWriteOnly(w, v, 0)
		switch {
		case seed && p != nil, p != nil && c.s.fit.Fits(p, v), w != nil && c.s.fit.Fits(w, v):
			out[k] = v
		default:
			c.s.d.Logger.Debug("value does not fit the document; left out", "collection", c.listPath, "field", k)
		}
	}
	return out
}

// nameTaken reports whether another live item of the collection, in the
// same workspace, has this name.
func (c *Collection) nameTaken(coll, name, except string, ws *int64, now time.Time) (bool, error) {
	recs, err := c.s.d.Store.List(coll)
	if err != nil {
		return false, err
	}
	for _, r := range recs {
		if r.ID == except {
			continue
		}
		d, err := DecodeItem(r)
		if err != nil {
			return false, err
		}
		if c.gone(coll, r, d, now) || !SameWorkspace(d.Workspace, ws) {
			continue
		}
		if n, _ := d.Fields["name"].(string); n == name {
			return true, nil
		}
	}
	return false, nil
}

func SameWorkspace(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func (c *Collection) createOp(req *handler.Request) (*handler.Response, error) {
	body := map[string]any{}
	if !c.opaqueCreate {
		var err error
		if body, err = RequestObject(req); err != nil {
			return nil, err
		}
	}
	if err := c.checkParent(req); err != nil {
		return nil, err
	}
	coll := Concrete(c.listPath, req.PathParams)
	d := &Item{Fields: c.RequestFields(req.Op, body)}
	if err := checkPermissions(c, d.Fields); err != nil {
		return nil, err
	}
	if c.scoped {
		ws, given, err := WorkspaceOf(req.Query)
		if err != nil {
			return nil, err
		}
		if given {
			d.Workspace = &ws
		}
	}
	if c.lifecycle {
		delete(d.Fields, "status")
	}
	if err := c.CheckWrittenRefs(d.Fields, d.Workspace, req.Now); err != nil {
		return nil, err
	}
	if c.life != nil {
		if err := c.life.Created(req, coll, d); err != nil {
			return nil, err
		}
	}
	if name, ok := d.Fields["name"].(string); ok && c.uniqueName {
		c.s.nameMu.Lock()
		defer c.s.nameMu.Unlock()
		taken, err := c.nameTaken(coll, name, "", d.Workspace, req.Now)
		if err != nil {
			return nil, err
		}
		if taken {
			return nil, Fail(ErrDuplicate, "A resource with name '%s' already exists", name)
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	rec := store.Record{Created: req.Now.UTC(), Updated: req.Now.UTC(), Data: b}
	var r store.Record
	if c.nameKey {
		name, _ := d.Fields["name"].(string)
		if name == "" || strings.Contains(name, "/") {
			return nil, Fail(ErrBadInput, "%s needs a name, which names the new item", req.Op.ID)
		}
		rec.ID = name
		r, err = c.s.d.Store.Insert(coll, rec)
		if errors.Is(err, store.ErrExists) {
			return nil, Fail(ErrDuplicate, "A resource with name '%s' already exists", name)
		}
	} else {
		r, err = InsertRecord(c.s.d.Store, coll, c.newID(coll), func(string) (store.Record, error) { return rec, nil })
	}
	if err == nil {
		err = c.remember(coll, r.ID)
	}
	if err != nil {
		return nil, err
	}
	return Success(req.Op, c.RenderAnswer(SuccessSchema(req.Op), coll, r, d, req.Now)), nil
}

func (c *Collection) describeOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.findItem(req)
	if err != nil {
		return nil, err
	}
	if c.gone(coll, r, d, req.Now) && !c.keepsDeleted() {
		return nil, Fail(ErrMissing, "item %q in %s was deleted", r.ID, coll)
	}
	return Success(req.Op, c.RenderAnswer(SuccessSchema(req.Op), coll, r, d, req.Now)), nil
}

func (c *Collection) updateOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	body, err := RequestObject(req)
	if err != nil {
		return nil, err
	}
	fields := c.RequestFields(req.Op, body)
	if err := checkPermissions(c, fields); err != nil {
		return nil, err
	}
	if c.lifecycle {
		delete(fields, "status")
	}
	if c.nameKey {
		delete(fields, "name") // the name is the item's address
	}
	if err := c.CheckWrittenRefs(fields, d.Workspace, req.Now); err != nil {
		return nil, err
	}
	if name, ok := fields["name"].(string); ok && c.uniqueName {
		c.s.nameMu.Lock()
		defer c.s.nameMu.Unlock()
		taken, err := c.nameTaken(coll, name, r.ID, d.Workspace, req.Now)
		if err != nil {
			return nil, err
		}
		if taken {
			return nil, Fail(ErrDuplicate, "A resource with name '%s' already exists", name)
		}
	}
	r, err = c.s.d.Store.Update(coll, r.ID, func(rec *store.Record) error {
		cur, err := DecodeItem(*rec)
		if err != nil {
			return err
		}
		for k, v := range fields {
			cur.Fields[k] = v
		}
		rec.Updated = req.Now.UTC()
		rec.Data, err = json.Marshal(cur)
		d = cur
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, Fail(ErrMissing, "item %q in %s was deleted", r.ID, coll)
	}
	if err != nil {
		return nil, err
	}
	return Success(req.Op, c.RenderAnswer(SuccessSchema(req.Op), coll, r, d, req.Now)), nil
}

func (c *Collection) DeleteOp(req *handler.Request) (*handler.Response, error) {
	coll, r, _, err := c.Get(req)
	if err != nil {
		return nil, err
	}
	if c.lifecycle && c.s.d.Profile.ComputeEnvs.DeletingFor > 0 {
		now := req.Now.UTC()
		err = c.change(coll, r.ID, now, func(d *Item) {
			if d.DeletingAt == nil {
				d.DeletingAt = &now
			}
		})
		if err == nil {
			c.s.refs.Drop(coll, r.ID) // no answer names an item being deleted
		}
	} else if err = c.s.d.Store.Delete(coll, r.ID); errors.Is(err, store.ErrNotFound) {
		err = Fail(ErrMissing, "item %q in %s was deleted", r.ID, coll)
	}
	if err == nil && c.afterDelete != nil {
		err = c.afterDelete(coll, r.ID)
	}
	if err != nil {
		return nil, err
	}
	return Success(req.Op, nil), nil
}

func (c *Collection) listOp(req *handler.Request) (*handler.Response, error) {
	pg, err := ParsePage(req.Query, req.Op, c.s.d.Profile.Paging)
	if err != nil {
		return nil, err
	}
	if err := c.checkParent(req); err != nil {
		return nil, err
	}
	var ws *int64
	if c.scoped {
		id, given, err := WorkspaceOf(req.Query)
		if err != nil {
			return nil, err
		}
		if given {
			ws = &id
		}
	}
	coll := Concrete(c.listPath, req.PathParams)
	recs, err := c.s.d.Store.List(coll)
	if err != nil {
		return nil, err
	}
	search := strings.TrimSpace(req.Query.Get("search"))
	wantStatus := ""
	if c.lifecycle {
		wantStatus = req.Query.Get("status")
	}
	type item struct {
		r store.Record
		d *Item
	}
	var matched, exact []item
	for _, r := range recs {
		d, err := DecodeItem(r)
		if err != nil {
			return nil, err
		}
		if c.gone(coll, r, d, req.Now) || c.scoped && !SameWorkspace(d.Workspace, ws) {
			continue
		}
		if search != "" && c.search != nil {
			if ex, ok := c.search(coll, r, d, search, req.Now); !ok {
				continue
			} else if ex {
				exact = append(exact, item{r, d})
				continue
			}
		} else if search != "" && !c.matches(d, search) {
			continue
		}
		if wantStatus != "" {
			if st, _ := c.status(r, d, req.Now); !strings.EqualFold(st, wantStatus) {
				continue
			}
		}
		matched = append(matched, item{r, d})
	}
	matched = append(exact, matched...)
	page, hasMore := Slice(matched, pg)
	sch := SuccessSchema(req.Op)
	root := c.s.bases.Bare(sch, "list "+coll)
	entries := make([]any, 0, len(page))
	for _, it := range page {
		entries = append(entries, c.renderEntry(c.entry, coll, it.r, it.d, req.Now))
	}
	root[c.listKey] = entries
	total := int64(len(matched))
	c.s.fit.Set(sch, root, "totalSize", total)
	c.s.fit.Set(sch, root, "total", total)
	c.s.fit.Set(sch, root, "hasMore", hasMore)
	return Success(req.Op, root), nil
}

// matches is the list search: the text anywhere in the item's names (a
// person's too: members and participants are looked up by e-mail, as the
// Terraform provider finds the member it added).
func (c *Collection) matches(d *Item, search string) bool {
	for _, k := range []string{"name", "fullName", "description", "email", "userName", "firstName", "lastName"} {
		if v, ok := d.Fields[k].(string); ok && LowerContains(v, search) {
			return true
		}
	}
	return false
}

// renderEntry builds one list entry; entries that wrap the item
// ({"pipeline": {...}, "extra": ...}) get the item inside.
func (c *Collection) renderEntry(sch *spec.Schema, coll string, r store.Record, d *Item, now time.Time) map[string]any {
	if c.itemKey != "" {
		if p := sch.Prop(c.itemKey); p.IsObject() && !p.IsArray() && sch.Prop(c.idProp) == nil {
			root := c.frame(sch, recordKey(coll, r, d), d)
			root[c.itemKey] = c.RenderItem(p, coll, r, d, now)
			return root
		}
	}
	return c.RenderItem(sch, coll, r, d, now)
}

// RenderAnswer builds a create, describe or update answer: the item
// wrapped as the document wraps it, the item itself, or (for answers that
// only identify the new item, {"computeEnvId": "..."}) its id.
func (c *Collection) RenderAnswer(sch *spec.Schema, coll string, r store.Record, d *Item, now time.Time) any {
	if sch == nil {
		return nil
	}
	key := recordKey(coll, r, d)
	if c.itemKey != "" {
		if p := sch.Prop(c.itemKey); p.IsObject() && !p.IsArray() {
			root := c.frame(sch, key, d)
			root[c.itemKey] = c.RenderItem(p, coll, r, d, now)
			return root
		}
	}
	if sch.Same(c.item) {
		return c.RenderItem(sch, coll, r, d, now)
	}
	root := c.frame(sch, key, d)
	names := sch.PropNames()
	for _, name := range names {
		if p := sch.Prop(name); p.Same(c.item) {
			root[name] = c.RenderItem(p, coll, r, d, now)
			return root
		}
	}
	// A wrapper named for the item whose schema is not the item's own
	// ({"managedCredentials": {"id": ...}} from a create whose list entries
	// are another type): the item's values go inside, named by its id.
	for _, name := range []string{c.listKey, singular(c.listKey), singular(lastLiteral(c.listPath))} {
		if p := sch.Prop(name); name != "" && p.IsObject() && !p.IsArray() {
			root[name] = c.RenderItem(p, coll, r, d, now)
			return root
		}
	}
	// An answer of its own shape: it echoes the item's values it has room
	// for, and names the item by its id.
	c.s.fit.Merge(sch, root, d.Fields, 0)
	for _, name := range names {
		if name == c.param || name == c.idProp || len(names) == 1 && strings.HasSuffix(name, "Id") {
			c.s.fit.Set(sch, root, name, c.idValue(r.ID))
		}
	}
	return root
}

// serverFields are the item properties the fake keeps itself, whatever a
// client sends for them: when the item was created and last changed, and
// whether it is deleted, which the service leaves null (or out) for a live
// item; its Terraform provider takes any value there, false included, as
// "deleted" and drops the resource from its state.
var serverFields = []string{"dateCreated", "lastUpdated", "deleted"}

// owner names, in an item a client created, who created it: the caller,
// the seeded user, whom every token belongs to (the service records the
// creator of a pipeline, a dataset...). A kind whose item is a person (a
// member, a user) names its person instead, and is left alone.
func (c *Collection) owner(sch *spec.Schema, server map[string]any) {
	if c.param == "memberId" || c.param == "userId" || c.param == "participantId" {
		return
	}
	id := c.s.ownerID()
	if id == nil {
		return
	}
	if sch.Prop("userId") != nil {
		server["userId"] = id
	}
	if u := sch.Prop("user"); u.IsObject() && u.Prop("id") != nil {
		server["user"] = map[string]any{"id": id}
	}
}

// recordKey names a record's synthesized values. Every view of the record
// (its create, describe and update answers, its list entry, the views
// below its path) is built on values of this one key, so what the fake
// makes up for a record is fixed and shown alike everywhere. A seeded
// item's key is its place in the account alone, so that the same seed
// gives the same account whenever the fake starts; the creation time makes
// an item a client created again under the same id (a role's name) a new
// one.
func recordKey(coll string, r store.Record, d *Item) string {
	if d.Seeded {
		return "seeded " + coll + "/" + r.ID
	}
	return "rec " + coll + "/" + r.ID + "@" + strconv.FormatInt(r.Created.UnixNano(), 36)
}

// frame is what a view of a record is built on: for an item of the seeded
// account, values synthesized under its key; for an item a client wrote,
// only what the schema requires, so that nothing made up stands beside
// what was written (the answer is completed with nulls, complete.go).
func (c *Collection) frame(sch *spec.Schema, key string, d *Item) map[string]any {
	if d.Seeded {
		return c.s.bases.Object(sch, key)
	}
	return c.s.bases.Bare(sch, key)
}

// RenderItem lays a record over a synthesized item of schema sch: the
// item's generated values (those of its own schema, which a list entry of
// another shape takes where they fit), then what was written, then what the
// fake keeps itself.
func (c *Collection) RenderItem(sch *spec.Schema, coll string, r store.Record, d *Item, now time.Time) map[string]any {
	var m map[string]any
	if d.Seeded {
		m = c.s.bases.View(sch, c.item, recordKey(coll, r, d))
	} else {
		m = c.frame(sch, "", d)
	}
	c.s.showWritten(sch, m, d)
	idProp := c.idProp
	if sch.Prop(idProp) == nil {
		switch {
		case sch.Prop(c.param) != nil:
			idProp = c.param
		case sch.Prop("id") != nil:
			idProp = "id"
		}
	}
	server := map[string]any{serverFields[0]: Stamp(r.Created), serverFields[1]: Stamp(r.Updated), serverFields[2]: nil}
	if idProp != "" {
		server[idProp] = c.idValue(r.ID)
		if p := sch.Prop(idProp); c.numericID && p != nil && p.HasType(spec.String) && !p.HasType(spec.Integer) {
			server[idProp] = r.ID // a numeric id the entry's schema writes as a string
		}
	}
	if c.versioned {
		server["version"] = c.version(coll, r, d)
	}
	// The items above it in its path (the workspace of
	// /workspaces/{workspaceId}/datasets) are where it is.
	for k, v := range c.parentIDs(coll) {
		if sch.Prop(k) != nil {
			server[k] = v
		}
	}
	if !d.Seeded {
		c.owner(sch, server)
		// What a client makes is its own, never one the service
		// predefines (a custom role: the Terraform provider's role data
		// source reads is_predefined false).
		if _, written := d.Fields["isPredefined"]; !written && sch.Prop("isPredefined") != nil {
			server["isPredefined"] = false
		}
	}
	if c.lifecycle {
		st, gone := c.status(r, d, now)
		if gone { // kept describable (keepsDeleted)
			// Documents before DELETED joined the status enum (1.140.0)
			// can only say the deletion was under way.
			st, server[serverFields[2]] = "DELETED", true
			if ps := sch.Prop("status"); ps != nil && !EnumHas(ps, st) && EnumHas(ps, "DELETING") {
				st = "DELETING"
			}
		}
		server["status"] = st
	}
	if c.scoped {
		var ws any
		if d.Workspace != nil {
			ws = *d.Workspace
		}
		server["workspaceId"] = ws
	}
	c.s.fit.Overlay(sch, m, server)
	if c.life != nil {
		c.life.Show(sch, r, d, now, m)
	}
	if d.Seeded {
		keepDatesInLife(sch, m, r, now)
	}
	return m
}

// keepDatesInLife moves a made-up date of a seeded item that falls before
// the item was created, or a past one (lastUsed, lastAccess, dateX) that
// falls after now, to the item's last update: a generated date is any
// date, but an item is not used before it exists. A date that may lie
// ahead (an expiry, a next run) keeps its value when it does.
func keepDatesInLife(sch *spec.Schema, m map[string]any, r store.Record, now time.Time) {
	for k, v := range m {
		s, ok := v.(string)
		if !ok || k == serverFields[0] {
			continue
		}
		if p := sch.Prop(k); p == nil || p.Format != "date-time" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			continue
		}
		past := strings.HasPrefix(k, "last") || strings.HasPrefix(k, "date")
		if t.Before(r.Created) || past && t.After(now) {
			m[k] = Stamp(r.Updated)
		}
	}
}
