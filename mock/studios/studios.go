// Package studios is the part of the fake's stateful behaviour (a
// resources.Part, registered by the server) that gives Data Studios their
// life on the fake's clock: start, stop, sessions and their checkpoints,
// laid over the kernel's generic collection of studios.
package studios

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// A studio is an interactive session on a compute environment. It is a
// collection item like any other (create, list, describe, update and
// delete are the kernel's generic collection's), with a life of its own on
// the fake's clock laid over it:
//
//   - created, it is starting (or stopped when the call says
//     autoStart=false), and running once studioStartingFor has passed;
//   - stop moves a running studio to stopping, and studioStoppingFor later
//     it is stopped;
//   - start moves a stopped studio to starting again, then running.
//
// Each start begins a session, and each session has a checkpoint: made
// when the session starts, saved every studioSaveEvery while it runs and
// finalized when it has stopped (the service's documentation: "When
// starting a Studio session, a checkpoint is automatically created ...
// updated every five minutes"; "Stopping a running session creates a new
// checkpoint"). A restart resumes from the latest checkpoint; a new studio
// starts from any checkpoint its create names (initialCheckpointId, which
// tower-cli's "studios add-as-new" sends), and shows it as its
// parentCheckpoint. The start body of the schema names no checkpoint.
//
// A start of a studio that is not stopped, or a stop of one that is not
// running, changes nothing and answers jobSubmitted false with the status
// the studio has: the answer's schema has room for that, and tower-cli
// reads jobSubmitted to decide whether there is anything to wait for. (The
// service's documentation: a session can be stopped "at any time, except
// when it is starting".)
//
// Delete removes a studio in any status, at once. The service's web page
// only offers it for a stopped studio, but the delete operation declares
// no refusal (204, or 403/404 for one that does not exist), and the
// Terraform provider deletes the studios it created, running as they are,
// taking only 204 or 404 for an answer: so the service's API must delete a
// running one, and the fake does.
//
// As for runs (mock/runs), nothing runs in the background: the record keeps
// when each session started and was asked to stop, and every status,
// date and checkpoint is worked out from those and the clock at read time.
// The delays are the fake's own choice (the service takes minutes), short
// enough that a client polling every few seconds sees every status.

const (
	studioStartingFor = 20 * time.Second
	studioStoppingFor = 10 * time.Second
	studioSaveEvery   = 5 * time.Minute
)

// The statuses of the schema's DataStudioStatus the fake's studios go
// through (errored, building and buildFailed never happen on the fake).
const (
	studioStarting = "starting"
	studioRunning  = "running"
	studioStopping = "stopping"
	studioStopped  = "stopped"
)

// checkpointCounter names the store counter checkpoint ids come from: one
// sequence for every studio, so that an id names one checkpoint, as the
// service's numeric ids do (a create's initialCheckpointId names one
// without its studio).
const checkpointCounter = "studio checkpoints"

// studioLife is what a studio's record keeps of its life (itemData.Life).
type studioLife struct {
	Sessions []studioSession `json:"sessions,omitempty"`
	Parent   *studioParent   `json:"parent,omitempty"`
}

// studioSession is one start of a studio, and its checkpoint.
type studioSession struct {
	Start time.Time  `json:"start"`
	Stop  *time.Time `json:"stop,omitempty"` // when a stop was asked
	// Checkpoint is the id of the session's checkpoint; Name its name when
	// a client renamed it ("" is the name the service gives).
	Checkpoint int64  `json:"checkpoint"`
	Name       string `json:"name,omitempty"`
}

// studioParent is the checkpoint a studio was created from, as its
// parentCheckpoint shows it.
type studioParent struct {
	CheckpointID   int64  `json:"checkpointId"`
	CheckpointName string `json:"checkpointName"`
	SessionID      string `json:"sessionId"`
	StudioName     string `json:"studioName"`
}

func decodeLife(d *resources.Item) (*studioLife, error) {
	l := &studioLife{}
	if len(d.Life) == 0 {
		return l, nil
	}
	if err := json.Unmarshal(d.Life, l); err != nil {
		return nil, fmt.Errorf("studios: a studio's life: %w", err)
	}
	return l, nil
}

// at is the studio's status at now, and since when it has had it (zero
// for a studio never started: it has been stopped since it was made).
func (l *studioLife) at(now time.Time) (string, time.Time) {
	if len(l.Sessions) == 0 {
		return studioStopped, time.Time{}
	}
	s := l.Sessions[len(l.Sessions)-1]
	if s.Stop == nil {
		if up := s.Start.Add(studioStartingFor); !now.Before(up) {
			return studioRunning, up
		}
		return studioStarting, s.Start
	}
	if down := s.Stop.Add(studioStoppingFor); !now.Before(down) {
		return studioStopped, down
	}
	return studioStopping, *s.Stop
}

// checkpointName is the name of session i's checkpoint: as renamed, else
// the studio's name and the session's number (studio-a66d_2, as in
// tower-cli's test answers).
func (l *studioLife) checkpointName(i int, studioName string) string {
	if n := l.Sessions[i].Name; n != "" {
		return n
	}
	return studioName + "_" + strconv.Itoa(i+1)
}

// studios is the studio behaviour of one document: its collection, and
// the paths of the operations on one studio.
type studios struct {
	k *resources.Kit
	c *resources.Collection // set by attach
	// itemPath is the studio's path (/studios/{sessionId});
	// checkpointParam the path parameter naming a checkpoint below it.
	itemPath, checkpointParam string
	// claimed are the operations Register took.
	claimed []*spec.Operation
}

// claim takes op for h, unless another behaviour has, and notes it.
func (st *studios) claim(op *spec.Operation, h handler.Func) {
	if st.k.Handle(op, h) {
		st.claimed = append(st.claimed, op)
	}
}

// Register is the studios part of a service (a resources.Part). It claims
// the operations below a studio (start, stop, lifespan, its checkpoints)
// before the generic collections are found, so that the checkpoints,
// which no client creates, are not taken for a collection of their own,
// and gives the studio collection its life once they are (attach). A
// studio is an item whose describe answer has statusInfo.status among the
// studio statuses, with start and stop below it.
func Register(k *resources.Kit) error {
	for _, op := range k.Doc.Operations {
		// The paths first: they rule out all but a studio's describe
		// without compiling the answer schema of every read at start.
		if op.Method != "GET" {
			continue
		}
		start, stop := opAt(k.Doc, op.Path+"/start"), opAt(k.Doc, op.Path+"/stop")
		if start == nil || stop == nil {
			continue
		}
		sch := resources.SuccessSchema(op)
		if !sch.IsObject() {
			continue
		}
		if p := sch.Prop("studio"); p.IsObject() {
			sch = p
		}
		if !resources.EnumHas(sch.Prop("statusInfo").Prop("status"), studioStarting, studioRunning, studioStopping, studioStopped) {
			continue
		}
		st := &studios{k: k, itemPath: op.Path}
		st.claim(start, st.startOp)
		st.claim(stop, st.stopOp)
		st.claim(k.Op("POST", op.Path+"/lifespan"), st.describeOp)
		st.claim(k.Op("GET", op.Path+"/checkpoints"), st.checkpointsOp)
		for _, o := range k.Doc.Operations {
			rest, ok := strings.CutPrefix(o.Path, op.Path+"/checkpoints/")
			if !ok || !resources.IsParamSeg(rest) {
				continue
			}
			st.checkpointParam = strings.Trim(rest, "{}")
			switch o.Method {
			case "GET":
				st.claim(o, st.checkpointOp)
			case "PUT", "PATCH":
				st.claim(o, st.renameOp)
			}
		}
		k.AfterCollections(st.attach)
		return nil
	}
	return nil
}

// opAt is the operation on path whatever its method (start and stop are
// PUT in the published schema); the first when there are several.
func opAt(doc *spec.Document, path string) *spec.Operation {
	for _, o := range doc.Operations {
		if o.Path == path {
			return o
		}
	}
	return nil
}

// attach gives the studio collection its life, once the generic
// collections are found, and files its studios under the checkpoints they
// saved, so that a create that starts from one finds its studio in one
// read (fileStudio). Without such a collection (a document whose studios
// are not one) the claimed operations go back to synthesis.
func (st *studios) attach() error {
	for _, c := range st.k.Collections() {
		if c.ItemPath() == st.itemPath {
			st.c = c
			c.Lives(st)
			if c.Indexed() {
				return nil
			}
			return st.k.Store.Index(c.ListPath(), fileStudio)
		}
	}
	for _, op := range st.claimed {
		st.k.Release(op)
	}
	return nil
}

// Created is the collection's create hook: the new studio starts at once
// unless the call says autoStart=false, and starts from the checkpoint its
// body names.
func (st *studios) Created(req *handler.Request, coll string, d *resources.Item) error {
	l := &studioLife{}
	if id, ok := d.Fields["initialCheckpointId"]; ok {
		p, err := st.findCheckpoint(coll, resources.FmtID(id), d.Workspace)
		if err != nil {
			return err
		}
		l.Parent = p
	}
	// The schema's autoStart query parameter; the service starts a new
	// studio unless it is false.
	if req.Query.Get("autoStart") != "false" {
		if err := st.begin(l, req.Now); err != nil {
			return err
		}
	}
	return st.keep(d, l)
}

// begin starts a new session of l at now, with a new checkpoint.
func (st *studios) begin(l *studioLife, now time.Time) error {
	id, err := st.k.Store.NextSeq(checkpointCounter)
	if err != nil {
		return err
	}
	l.Sessions = append(l.Sessions, studioSession{Start: now.UTC(), Checkpoint: id})
	return nil
}

func (st *studios) keep(d *resources.Item, l *studioLife) error {
	b, err := json.Marshal(l)
	d.Life = b
	return err
}

// checkpointList names the store's list of the studio that saved a
// checkpoint.
func checkpointList(id string) string { return "checkpoint:" + id }

// fileStudio is the store's indexer for studios: each is filed under the
// checkpoint of every session it had, so that the studio a checkpoint id
// belongs to is one read away, however many studios the fake holds.
func fileStudio(r store.Record) ([]string, string) {
	var h struct {
		Life studioLife `json:"life"`
	}
	if json.Unmarshal(r.Data, &h) != nil {
		return nil, ""
	}
	lists := make([]string, 0, len(h.Life.Sessions))
	for _, s := range h.Life.Sessions {
		lists = append(lists, checkpointList(strconv.FormatInt(s.Checkpoint, 10)))
	}
	return lists, ""
}

// findCheckpoint finds the checkpoint with this id among the studios of a
// context, through the studios' checkpoint lists (fileStudio). One the
// fake does not hold is taken on trust, as the fake takes the ids of every
// kind it keeps no collection of (resources: writtenrefs.go): the studio starts
// afresh and names no parent, since nothing the fake holds names what it
// does not hold. (Checkpoints are made by starting studios, so a client
// that writes any id it likes, as generated calls do, could not create a
// studio otherwise.) A collection of studios nested below another has no
// such lists, and takes every checkpoint on trust.
func (st *studios) findCheckpoint(coll, id string, ws *int64) (*studioParent, error) {
	if st.c.Indexed() {
		return nil, nil
	}
	recs, _, err := st.k.Store.Page(coll, store.Query{List: checkpointList(id), Limit: 1})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		d, err := resources.DecodeItem(r)
		if err != nil {
			return nil, err
		}
		if !resources.SameWorkspace(d.Workspace, ws) {
			continue
		}
		l, err := decodeLife(d)
		if err != nil {
			return nil, err
		}
		for i, s := range l.Sessions {
			if strconv.FormatInt(s.Checkpoint, 10) == id {
				name, _ := d.Fields["name"].(string)
				return &studioParent{CheckpointID: s.Checkpoint, CheckpointName: l.checkpointName(i, name), SessionID: r.ID, StudioName: name}, nil
			}
		}
	}
	st.k.Logger.Debug("initialCheckpointId names no checkpoint held; the studio starts afresh", "id", id)
	return nil, nil
}

// Show is the collection's render hook: it lays over a view m of the
// studio (of schema sch) its status, when it last started, how far its
// start has come, its template and the checkpoint it was made from. What
// the studio has none of is taken out of the view, so that a seeded
// studio's made-up values (a parent checkpoint no studio has) do not show;
// the answer's completion puts the service's nulls there.
func (st *studios) Show(sch *spec.Schema, r store.Record, d *resources.Item, now time.Time, m map[string]any) {
	l, err := decodeLife(d)
	if err != nil {
		st.k.Logger.Warn("studio record unreadable", "id", r.ID, "err", err)
		return
	}
	v := map[string]any{
		"statusInfo": st.statusInfo(l, r, now), "progress": st.progress(l, now),
		"lastStarted": nil, "parentCheckpoint": nil,
	}
	if n := len(l.Sessions); n > 0 {
		v["lastStarted"] = resources.Stamp(l.Sessions[n-1].Start)
	}
	if url, ok := d.Fields["dataStudioToolUrl"].(string); ok && url != "" {
		// The template is the container the create named; tower-cli's
		// add-as-new copies it from here into the new studio's create.
		v["template"] = map[string]any{"repository": url}
	}
	if p := l.Parent; p != nil {
		v["parentCheckpoint"] = map[string]any{
			"checkpointId": p.CheckpointID, "checkpointName": p.CheckpointName, "sessionId": p.SessionID, "studioName": p.StudioName,
		}
	}
	for k, x := range v {
		if x == nil || !st.k.Fit.Set(sch, m, k, x) {
			delete(m, k)
		}
	}
}

// statusInfo is what clients poll: the status and when it last changed.
func (st *studios) statusInfo(l *studioLife, r store.Record, now time.Time) map[string]any {
	status, since := l.at(now)
	if since.IsZero() {
		since = r.Created
	}
	return map[string]any{"status": status, "lastUpdate": resources.Stamp(since)}
}

// progress is the steps of the studio's start, of which tower-cli's
// --wait prints the one in progress: done one after the other while it is
// starting, all done while it runs, none otherwise. The steps' wording is
// the fake's own.
func (st *studios) progress(l *studioLife, now time.Time) []any {
	status, _ := l.at(now)
	steps := []string{"Provisioning compute resources", "Mounting checkpoints", "Starting the session"}
	out := []any{}
	switch status {
	case studioRunning:
		for _, m := range steps {
			out = append(out, map[string]any{"status": "succeeded", "message": m, "warnings": []any{}})
		}
	case studioStarting:
		s := l.Sessions[len(l.Sessions)-1]
		done := int(now.Sub(s.Start) * time.Duration(len(steps)) / studioStartingFor)
		for i, m := range steps {
			state := "pending"
			switch {
			case i < done:
				state = "succeeded"
			case i == done:
				state = "in-progress"
			}
			out = append(out, map[string]any{"status": state, "message": m, "warnings": []any{}})
		}
	}
	return out
}

// describeOp answers the studio as describe shows it (the lifespan
// extension answers the studio; the fake keeps no lifespan).
func (st *studios) describeOp(req *handler.Request) (*handler.Response, error) {
	coll, r, d, err := st.c.Get(req)
	if err != nil {
		return nil, err
	}
	return resources.Success(req.Op, st.c.RenderAnswer(resources.SuccessSchema(req.Op), coll, r, d, req.Now)), nil
}

// change rewrites the studio the call names with fn, in the store's one
// read-modify-write (fn must not call the store: it runs under its lock);
// fn returning resources.ErrUnchanged leaves the studio as it was. It answers the
// studio as it is after the call.
func (st *studios) change(req *handler.Request, fn func(d *resources.Item, l *studioLife) error) (store.Record, *resources.Item, error) {
	coll, r, _, err := st.c.Get(req)
	if err != nil {
		return r, nil, err
	}
	id := r.ID
	var out *resources.Item
	r, err = st.k.Store.Update(coll, id, func(rec *store.Record) error {
		d, err := resources.DecodeItem(*rec)
		if err != nil {
			return err
		}
		l, err := decodeLife(d)
		if err != nil {
			return err
		}
		out = d
		if err := fn(d, l); err != nil {
			return err
		}
		if err := st.keep(d, l); err != nil {
			return err
		}
		rec.Updated = req.Now.UTC()
		rec.Data, err = json.Marshal(d)
		return err
	})
	if errors.Is(err, resources.ErrUnchanged) {
		r, err = st.k.Store.Get(coll, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return r, nil, resources.Fail(resources.ErrMissing, "studio %q was deleted", id)
	}
	return r, out, err
}

// startOp starts a stopped studio: a new session, from its latest
// checkpoint, with what the body overrides (its configuration, name,
// description, labels) kept as written.
func (st *studios) startOp(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	_, _, cur, err := st.c.Get(req)
	if err != nil {
		return nil, err
	}
	fields := st.c.RequestFields(req.Op, body)
	if err := st.c.CheckWrittenRefs(fields, cur.Workspace, req.Now); err != nil {
		return nil, err
	}
	// The new session's checkpoint id is taken before the change (which
	// cannot call the store); a start that changes nothing leaves a gap in
	// the ids, which only have to be unique.
	next := &studioLife{}
	if err := st.begin(next, req.Now); err != nil {
		return nil, err
	}
	submitted := false
	r, d, err := st.change(req, func(d *resources.Item, l *studioLife) error {
		if status, _ := l.at(req.Now); status != studioStopped {
			return resources.ErrUnchanged
		}
		l.Sessions = append(l.Sessions, next.Sessions...)
		for k, v := range fields {
			d.Fields[k] = v
		}
		submitted = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st.submitted(req, r, d, submitted)
}

// stopOp stops a running studio; its session's checkpoint is saved once
// it has stopped.
func (st *studios) stopOp(req *handler.Request) (*handler.Response, error) {
	submitted := false
	r, d, err := st.change(req, func(_ *resources.Item, l *studioLife) error {
		if status, _ := l.at(req.Now); status != studioRunning {
			return resources.ErrUnchanged
		}
		now := req.Now.UTC()
		l.Sessions[len(l.Sessions)-1].Stop = &now
		submitted = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st.submitted(req, r, d, submitted)
}

// submitted answers a start or stop: whether it did anything, and the
// studio's status after it.
func (st *studios) submitted(req *handler.Request, r store.Record, d *resources.Item, submitted bool) (*handler.Response, error) {
	l, err := decodeLife(d)
	if err != nil {
		return nil, err
	}
	sch := resources.SuccessSchema(req.Op)
	root := st.k.Bases.Bare(sch, "studio job")
	st.k.Fit.Overlay(sch, root, map[string]any{
		"jobSubmitted": submitted, "sessionId": r.ID, "statusInfo": st.statusInfo(l, r, req.Now),
	})
	return resources.Success(req.Op, root), nil
}

// checkpoint is one checkpoint as the answers show it.
func (st *studios) checkpoint(l *studioLife, i int, r store.Record, d *resources.Item, now time.Time) map[string]any {
	s := l.Sessions[i]
	name, _ := d.Fields["name"].(string)
	status, saved := "interim", s.Start
	if s.Stop != nil && !now.Before(s.Stop.Add(studioStoppingFor)) {
		status, saved = "finalized", s.Stop.Add(studioStoppingFor)
	} else {
		until := now
		if s.Stop != nil && s.Stop.Before(until) {
			until = *s.Stop
		}
		saved = s.Start.Add(until.Sub(s.Start) / studioSaveEvery * studioSaveEvery)
	}
	return map[string]any{
		"id": s.Checkpoint, "name": l.checkpointName(i, name), "status": status,
		"dateCreated": resources.Stamp(s.Start), "dateSaved": resources.Stamp(saved),
		"path":   st.checkpointPath(d, r.ID, s.Checkpoint, now),
		"author": st.author(now),
	}
}

// checkpointPath is where a checkpoint is kept: below the .studios
// folder of its compute environment's work directory, as the service's
// documentation says; the file's own name is the fake's.
func (st *studios) checkpointPath(d *resources.Item, sessionID string, id int64, now time.Time) string {
	dir := ""
	if h, ok := st.k.HeldBy("computeEnvId", d.Fields["computeEnvId"], nil, now); ok {
		if cfg, ok := h["config"].(map[string]any); ok {
			dir, _ = cfg["workDir"].(string)
		}
		if dir == "" {
			dir, _ = h["workDir"].(string)
		}
	}
	p := ".studios/checkpoints/" + sessionID + "_" + strconv.FormatInt(id, 10)
	if dir == "" {
		return p
	}
	return strings.TrimSuffix(dir, "/") + "/" + p
}

// author is who saved a checkpoint: the one user every token belongs to.
func (st *studios) author(now time.Time) map[string]any {
	u := map[string]any{}
	if h, ok := st.k.HeldBy("userId", st.k.OwnerID(), nil, now); ok {
		for _, k := range []string{"id", "userName", "email", "avatar"} {
			if v, ok := h[k]; ok {
				u[k] = v
			}
		}
	}
	return u
}

// read finds the studio a checkpoint call names, decoded.
func (st *studios) read(req *handler.Request) (store.Record, *resources.Item, *studioLife, error) {
	_, r, d, err := st.c.Get(req)
	if err != nil {
		return r, nil, nil, err
	}
	l, err := decodeLife(d)
	return r, d, l, err
}

// checkpointsOp lists a studio's checkpoints, newest first. A search
// keeps those whose name holds its words; of the keywords the schema
// documents, status: is read, the others (dates) are not.
func (st *studios) checkpointsOp(req *handler.Request) (*handler.Response, error) {
	ls, err := st.k.Listing(req, "checkpoints")
	if err != nil {
		return nil, err
	}
	pg, sch, key, item := ls.Page, ls.Schema, ls.Key, ls.Item
	r, d, l, err := st.read(req)
	if err != nil {
		return nil, err
	}
	var words []string
	wantStatus := ""
	for _, w := range strings.Fields(req.Query.Get("search")) {
		if v, ok := strings.CutPrefix(w, "status:"); ok {
			wantStatus = v
			continue
		}
		words = append(words, w)
	}
	var all []map[string]any
	for i := len(l.Sessions) - 1; i >= 0; i-- {
		cp := st.checkpoint(l, i, r, d, req.Now)
		if wantStatus != "" && !strings.EqualFold(cp["status"].(string), wantStatus) {
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool { return !resources.LowerContains(cp["name"].(string), w) }) {
			all = append(all, cp)
		}
	}
	page, hasMore := resources.Slice(all, pg)
	entries := make([]any, 0, len(page))
	for _, cp := range page {
		entries = append(entries, st.entry(item, r, cp))
	}
	root := st.k.Bases.Bare(sch, "studio checkpoints")
	root[key] = entries
	st.k.Fit.Set(sch, root, "totalSize", int64(len(all)))
	st.k.Fit.Set(sch, root, "hasMore", hasMore)
	return resources.Success(req.Op, root), nil
}

// entry lays a checkpoint over the frame of its schema.
func (st *studios) entry(sch *spec.Schema, r store.Record, cp map[string]any) map[string]any {
	m := st.k.Bases.Bare(sch, fmt.Sprintf("studio checkpoint %s/%v", r.ID, cp["id"]))
	st.k.Fit.Overlay(sch, m, cp)
	return m
}

// session finds the session of the checkpoint a call names.
func (st *studios) session(req *handler.Request, l *studioLife) (int, error) {
	id := req.PathParams[st.checkpointParam]
	for i, s := range l.Sessions {
		if strconv.FormatInt(s.Checkpoint, 10) == id {
			return i, nil
		}
	}
	return 0, resources.Fail(resources.ErrMissing, "studio %q has no checkpoint %q", req.PathParams[st.c.Param()], id)
}

func (st *studios) checkpointOp(req *handler.Request) (*handler.Response, error) {
	r, d, l, err := st.read(req)
	if err != nil {
		return nil, err
	}
	i, err := st.session(req, l)
	if err != nil {
		return nil, err
	}
	return resources.Success(req.Op, st.entry(resources.SuccessSchema(req.Op), r, st.checkpoint(l, i, r, d, req.Now))), nil
}

// renameOp renames a checkpoint. The service's documentation: a name is
// unique within its studio (a taken one is the 409 the operation
// declares), and spaces in it become underscores.
func (st *studios) renameOp(req *handler.Request) (*handler.Response, error) {
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	name, _ := body["name"].(string)
	name = strings.ReplaceAll(strings.TrimSpace(name), " ", "_")
	if name == "" {
		return nil, resources.Fail(resources.ErrBadInput, "a checkpoint needs a name")
	}
	var at int
	r, d, err := st.change(req, func(d *resources.Item, l *studioLife) error {
		i, err := st.session(req, l)
		if err != nil {
			return err
		}
		studioName, _ := d.Fields["name"].(string)
		for j := range l.Sessions {
			if j != i && l.checkpointName(j, studioName) == name {
				return resources.Fail(resources.ErrDuplicate, "A checkpoint with name '%s' already exists", name)
			}
		}
		at = i
		if l.Sessions[i].Name == name {
			return resources.ErrUnchanged
		}
		l.Sessions[i].Name = name
		return nil
	})
	if err != nil {
		return nil, err
	}
	l, err := decodeLife(d)
	if err != nil {
		return nil, err
	}
	return resources.Success(req.Op, st.entry(resources.SuccessSchema(req.Op), r, st.checkpoint(l, at, r, d, req.Now))), nil
}

// StatusAt is a studio's status at now, for the views the copy cache
// keeps (resources: copies.go): a studio's views change with the clock.
func (st *studios) StatusAt(d *resources.Item, now time.Time) string {
	l, err := decodeLife(d)
	if err != nil {
		return ""
	}
	status, _ := l.at(now)
	return status
}
