package resources

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Workflows run on the fake's clock. A record holds only what was launched
// and when, plus any status a caller forced (or, for a run Nextflow reports
// on, its reports: trace.go); the status a client sees is worked out from
// those timestamps and the clock at read time. Nothing runs
// in the background, so advancing a fake clock moves every run at once, a
// restart resumes runs where the clock says they are, and tests never wait.

// WorkflowsCollection is the store collection holding workflow runs.
const WorkflowsCollection = "workflows"

func loadFields(c workflow.Counts) map[string]any {
	const gib = int64(1) << 30
	done := int64(c.Succeeded + c.Failed)
	running := int64(c.Running)
	return map[string]any{
		"pending": int64(c.Pending), "submitted": int64(0), "running": running,
		"succeeded": int64(c.Succeeded), "failed": int64(c.Failed), "cached": int64(0),
		"aborted": int64(c.Aborted), "ignored": int64(0), "retries": int64(0),
		"loadCpus": running * 2, "loadMemory": running * 4 * gib, "loadTasks": running,
		"peakCpus": max(running, 1) * 2, "peakMemory": max(running, 1) * 4 * gib, "peakTasks": max(running, 1),
		"cpus": (done + running) * 2, "cpuTime": done * 90_000, "cpuLoad": done * 81_000,
		"memoryRss": done * gib / 2, "memoryReq": (done + running) * 4 * gib,
		"readBytes": done * 150 << 20, "writeBytes": done * 60 << 20,
		"volCtxSwitch": done * 1_200, "invCtxSwitch": done * 300,
	}
}

// workflows holds the workflow operations of one document.
type workflows struct {
	s       *Service
	renders *memo.Map[renderKey, json.RawMessage]
	// decoded holds read-only decodings of stored runs, keyed by id and
	// content hash, so reading one run does not decode it on every call
	// Entries are shared: callers must not
	// modify them.
	decoded *memo.Map[decodedKey, *workflow.Run]
	pages   *memo.Map[pageKey, listPage]
	// launches holds read-only decodings of launch bodies. Clients repeat
	// the same launch (a CI job, a retry, a load test), and decoding is the
	// largest part of a launch's own work.
	launches *memo.Map[string, *launchBody]
	// tr answers for runs their client reports on (trace.go).
	tr *traces
}

type decodedKey struct {
	id   string
	hash uint64
}

// renderKey names everything a run's rendering depends on: the answer
// schema and purpose, the stored record, and the parts of its view at the
// moment of the call (the view moves on with the clock, but only at these
// discrete points).
type renderKey struct {
	schema                       *base.Schema
	purpose, id                  string
	seq, hash                    uint64
	status                       string
	start, complete, lastUpdated int64
	counts                       workflow.Counts
	// refs is the reference generation: references picked for the
	// run never name an item deleted since (refindex.go).
	refs uint64
}

// readOnly decodes a stored run for reading, from the cache when the
// record is unchanged.
func (w *workflows) readOnly(r store.Record) (*workflow.Run, uint64, error) {
	h := w.s.hash.bytes(r.Data)
	wf, err := w.decoded.Do(decodedKey{r.ID, h}, func() (*workflow.Run, error) { return decodeWorkflow(r) })
	return wf, h, err
}

// runList names the store's ordered list of the runs in one workspace
// (0: the user's personal context).
func runList(ws int64) string { return "workspace:" + strconv.FormatInt(ws, 10) }

// runFiling is the part of a stored run the store's index reads.
type runFiling struct {
	RunName     string `json:"runName"`
	ProjectName string `json:"projectName"`
	WorkspaceID int64  `json:"workspaceId"`
}

// fileRun is the store's indexer for runs: each run is listed in its
// workspace, newest first, and a search matches its run name or project
// name, in lower case (the two joined by a NUL, which a search term never
// holds, so no match spans both). A run just launched is in the decoded
// runs already (launch puts it there), so filing it decodes nothing.
func (w *workflows) fileRun(r store.Record) ([]string, string) {
	var f runFiling
	if wf, ok := w.decoded.Get(decodedKey{r.ID, w.s.hash.bytes(r.Data)}); ok {
		f = runFiling{RunName: wf.RunName, ProjectName: wf.ProjectName, WorkspaceID: wf.WorkspaceID}
	} else if json.Unmarshal(r.Data, &f) != nil {
		return nil, "" // not a run: listed nowhere
	}
	return []string{runList(f.WorkspaceID)}, strings.ToLower(f.RunName) + "\x00" + strings.ToLower(f.ProjectName)
}

func (s *Service) registerWorkflows() {
	c := s.d.Caches
	w := &workflows{s: s, renders: memo.NewIn[renderKey, json.RawMessage](c, "run renderings", 16),
		decoded: memo.NewIn[decodedKey, *workflow.Run](c, "decoded runs", 16),
		pages:   memo.NewIn[pageKey, listPage](c, "run list pages", 1), launches: memo.NewIn[string, *launchBody](c, "launch bodies", 4)}
	s.wf = w
	s.handle(s.op("POST", "/workflow/launch"), w.launch)
	s.handle(s.op("GET", "/workflow"), w.list)
	s.handle(s.op("GET", "/workflow/{workflowId}"), w.describe)
	s.handle(s.op("DELETE", "/workflow/{workflowId}"), w.remove)
	s.handle(s.op("POST", "/workflow/{workflowId}/cancel"), w.cancel)
	s.handle(s.op("GET", "/workflow/{workflowId}/progress"), w.progressOp)
	s.handle(s.op("GET", "/workflow/{workflowId}/tasks"), w.tasks)
}

func decodeWorkflow(r store.Record) (*workflow.Run, error) {
	var w workflow.Run
	if err := json.Unmarshal(r.Data, &w); err != nil {
		return nil, fmt.Errorf("resources: workflow %s: %w", r.ID, err)
	}
	return &w, nil
}

// get finds a run, or answers as the service does for one that does not
// exist. A workspaceId that is not the run's is treated the same way.
// get finds the run a call addresses. The run it returns is shared with
// other readers (see readOnly) and must not be modified.
func (w *workflows) get(req *handler.Request) (store.Record, *workflow.Run, error) {
	return w.find(req, req.PathParams["workflowId"])
}

// exists answers the missing-resource reply unless the fake holds the run
// with this id, in the call's workspace when it names one. A run's launch
// shares its id, so /launch/{launchId} resolves here too.
func (w *workflows) exists(req *handler.Request, id string) error {
	_, _, err := w.find(req, id)
	return err
}

func (w *workflows) find(req *handler.Request, id string) (store.Record, *workflow.Run, error) {
	r, err := w.s.d.Store.Get(WorkflowsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return r, nil, fail(errMissing, "no workflow %q", id)
	}
	if err != nil {
		return r, nil, err
	}
	wf, _, err := w.readOnly(r)
	if err != nil {
		return r, nil, err
	}
	ws, given, err := workspaceOf(req.Query)
	if err != nil {
		return r, nil, err
	}
	if given && ws != wf.WorkspaceID {
		return r, nil, fail(errMissing, "workflow %q is not in workspace %d", id, ws)
	}
	return r, wf, nil
}

// launchBody is what a launch reads from its request. Decoding into it is
// twice as fast as into a map, and launches are the hottest write.
type launchBody struct {
	Launch struct {
		Pipeline       string   `json:"pipeline"`
		RunName        string   `json:"runName"`
		Revision       string   `json:"revision"`
		CommitID       string   `json:"commitId"`
		WorkDir        string   `json:"workDir"`
		ComputeEnvID   string   `json:"computeEnvId"`
		ConfigText     string   `json:"configText"`
		ParamsText     string   `json:"paramsText"`
		SessionID      string   `json:"sessionId"`
		Resume         bool     `json:"resume"`
		ConfigProfiles []string `json:"configProfiles"`
	} `json:"launch"`
}

// readLaunch decodes a launch request. A document whose launch fields have
// other types than the service's (the validator has accepted them) is read
// through a map, keeping the values that have the expected types.
func readLaunch(raw []byte) (*launchBody, error) {
	var b launchBody
	if json.Unmarshal(raw, &b) == nil {
		return &b, nil
	}
	b = launchBody{} // a failed decode leaves what it had read
	body, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	l, _ := body["launch"].(map[string]any)
	str := func(k string) string { v, _ := l[k].(string); return v }
	b.Launch.Pipeline, b.Launch.RunName, b.Launch.Revision = str("pipeline"), str("runName"), str("revision")
	b.Launch.CommitID, b.Launch.WorkDir, b.Launch.ComputeEnvID = str("commitId"), str("workDir"), str("computeEnvId")
	b.Launch.ConfigText, b.Launch.ParamsText, b.Launch.SessionID = str("configText"), str("paramsText"), str("sessionId")
	b.Launch.Resume, _ = l["resume"].(bool)
	if ps, ok := l["configProfiles"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				b.Launch.ConfigProfiles = append(b.Launch.ConfigProfiles, s)
			}
		}
	}
	return &b, nil
}

// maxCachedLaunch is the largest launch body whose decoding is cached;
// bigger ones (long config or params texts) are decoded every time.
const maxCachedLaunch = 4 << 10

// launchOf decodes a launch body, through the cache when it is small. The
// result is shared: callers must not modify it.
func (w *workflows) launchOf(raw []byte) (*launchBody, error) {
	if len(raw) > maxCachedLaunch {
		return readLaunch(raw)
	}
	return w.launches.Do(string(raw), func() (*launchBody, error) { return readLaunch(raw) })
}

func (w *workflows) launch(req *handler.Request) (*handler.Response, error) {
	body, err := w.launchOf(req.Body)
	if err != nil {
		return nil, err
	}
	l := &body.Launch
	pipeline := strings.TrimSpace(l.Pipeline)
	if pipeline == "" {
		return nil, fail(errBadInput, "launch.pipeline is missing")
	}
	ws, given, err := workspaceOf(req.Query)
	if err != nil {
		return nil, err
	}
	refs, err := w.s.checkLaunch(req, l.ComputeEnvID, ws, given) // launchrefs.go
	if err != nil {
		return nil, err
	}
	prof := w.s.d.Profile.Workflows
	wf := &workflow.Run{
		RunName:        strings.TrimSpace(l.RunName),
		Pipeline:       pipeline,
		ProjectName:    projectName(pipeline),
		Revision:       l.Revision,
		CommitID:       l.CommitID,
		WorkDir:        l.WorkDir,
		ComputeEnvID:   refs.computeEnvID,
		ConfigText:     l.ConfigText,
		ParamsText:     l.ParamsText,
		SessionID:      l.SessionID,
		Resume:         l.Resume,
		ConfigProfiles: l.ConfigProfiles,
		WorkspaceID:    ws,
		Submit:         req.Now.UTC(),
		SubmittedFor:   prof.SubmittedFor,
		RunningFor:     prof.RunningFor,
		UserName:       w.s.userName(), // the seeded user's (user.yaml)
	}
	givenName := wf.RunName
	givenSession := wf.SessionID
	// The run name and outcome may depend on the id, so the record is
	// finished once the id is chosen.
	rec, err := insertRecord(w.s.d.Store, WorkflowsCollection,
		func() (string, error) { return w.s.ids.next(14), nil },
		func(id string) (store.Record, error) {
			wf.RunName, wf.SessionID = givenName, givenSession
			if wf.RunName == "" {
				wf.RunName = runName(w.s, id)
			}
			if wf.SessionID == "" {
				wf.SessionID = sessionID(w.s, id)
			}
			wf.EndStatus = w.s.d.Profile.Workflows.EndStatus(wf.RunName)
			data := wf.AppendJSON(make([]byte, 0, 512))
			// The run as built is what a read would decode: the store's
			// index (fileRun) and the first describe take it from here.
			built := *wf
			w.decoded.Put(decodedKey{id, w.s.hash.bytes(data)}, &built)
			return store.Record{Created: wf.Submit, Updated: wf.Submit, Data: data}, nil
		})
	if err != nil {
		return nil, err
	}
	// The rest of the answer depends only on the request, like any
	// synthesized answer, so repeated launches reuse one base.
	return success(req.Op, w.s.bases.withField(successSchema(req.Op), "launched/"+req.Key, "workflowId", rec.ID)), nil
}

func (w *workflows) describe(req *handler.Request) (*handler.Response, error) {
	r, wf, err := w.get(req)
	if err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	b, err := w.cachedRender(sch, "describe", r, w.s.hash.bytes(r.Data), wf, req.Now)
	if err != nil {
		return nil, err
	}
	return success(req.Op, b), nil
}

func (w *workflows) list(req *handler.Request) (*handler.Response, error) {
	pg, err := ParsePage(req.Query, req.Op, w.s.d.Profile.Paging)
	if err != nil {
		return nil, err
	}
	ws, _, err := workspaceOf(req.Query) // none: the personal context, 0
	if err != nil {
		return nil, err
	}
	// The store keeps each workspace's runs in list order, so a page costs
	// its own size; a search looks at a bounded window of the newest runs
	// (store.DefaultSearchWindow).
	search := strings.ToLower(strings.TrimSpace(req.Query.Get("search")))
	limit := pg.Max
	if pg.All { // a document without paging parameters: still a bounded page
		limit = w.s.d.Profile.Paging.MaxLimit
	}
	var recs []store.Record
	total := 0
	if !strings.Contains(search, "\x00") {
		recs, total, err = w.s.d.Store.Page(WorkflowsCollection, store.Query{List: runList(ws), Offset: pg.Offset, Limit: limit, Contains: search})
		if err != nil {
			return nil, err
		}
	}
	hasMore := pg.More(total)
	sch := successSchema(req.Op)
	key, item := listShape(sch)
	if key == "" {
		return nil, fmt.Errorf("resources: %s has no list of workflows in its answer", req.Op.ID)
	}
	// A page is a pure function of its entries' render keys and its
	// counts; clients poll the same page over and over, so whole pages are
	// kept, and a hit is checked against the keys it was built from.
	runs := make([]*workflow.Run, len(recs))
	keys := make([]renderKey, len(recs))
	for i, r := range recs {
		wf, h, err := w.readOnly(r)
		if err != nil {
			return nil, err
		}
		runs[i] = wf
		keys[i] = w.renderKeyOf(item, "entry", r, h, wf, req.Now)
	}
	pk := pageKey{sch, total, hasMore, w.s.hash.keys(keys)}
	if p, ok := w.pages.Get(pk); ok && slices.Equal(p.keys, keys) {
		return &handler.Response{Status: req.Op.Success.Status, Raw: p.body, MediaType: req.Op.Success.MediaType}, nil
	}
	root := w.s.bases.frame(sch, "workflow list", key)
	items := make([]json.RawMessage, 0, len(recs))
	for i, r := range recs {
		b, err := renderOnce(w.renders, keys[i], func() (any, error) { return w.render(item, "entry", r, runs[i], req.Now) })
		if err != nil {
			return nil, err
		}
		items = append(items, b)
	}
	w.s.fit.set(sch, root, "totalSize", int64(total))
	w.s.fit.set(sch, root, "hasMore", hasMore)
	body, err := withArray(root, key, items)
	if err != nil {
		return nil, err
	}
	w.pages.Put(pk, listPage{keys: keys, body: body})
	return &handler.Response{Status: req.Op.Success.Status, Raw: body, MediaType: req.Op.Success.MediaType}, nil
}

func (w *workflows) cancel(req *handler.Request) (*handler.Response, error) {
	r, _, err := w.get(req)
	if err != nil {
		return nil, err
	}
	now := req.Now
	_, err = w.s.d.Store.Update(WorkflowsCollection, r.ID, func(rec *store.Record) error {
		wf, err := decodeWorkflow(*rec)
		if err != nil {
			return err
		}
		// Cancelling a run that has already ended changes nothing.
		if workflow.Final(wf.At(now).Status) {
			return nil
		}
		wf.Pinned, wf.PinnedAt = workflow.Cancelled, &now
		rec.Updated = now
		rec.Data, err = json.Marshal(wf)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fail(errMissing, "no workflow %q", r.ID)
	}
	if err != nil {
		return nil, err
	}
	return success(req.Op, nil), nil
}

func (w *workflows) remove(req *handler.Request) (*handler.Response, error) {
	r, wf, err := w.get(req)
	if err != nil {
		return nil, err
	}
	// The documents: force deletes a run even while it is active. Any
	// value but "true" is no force (a value that is not a boolean at all
	// has been refused by request validation already).
	if req.Query.Get("force") != "true" && !workflow.Final(wf.At(req.Now).Status) {
		return nil, fail(errActive, "workflow %q is %s: deleting it takes force=true", r.ID, wf.At(req.Now).Status)
	}
	if err := w.s.d.Store.Delete(WorkflowsCollection, r.ID); errors.Is(err, store.ErrNotFound) {
		return nil, fail(errMissing, "no workflow %q", r.ID)
	} else if err != nil {
		return nil, err
	}
	if wf.Trace != nil {
		if err := w.tr.forgetTrace(r.ID); err != nil {
			return nil, err
		}
	}
	return success(req.Op, nil), nil
}

func (w *workflows) progressOp(req *handler.Request) (*handler.Response, error) {
	r, wf, err := w.get(req)
	if err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	if wf.Trace != nil {
		root := w.s.bases.bare(sch, "progress/"+r.ID)
		if ps := prop(sch, "progress"); ps != nil {
			root["progress"] = w.tr.progressOf(ps, r.ID, wf, wf.At(req.Now), true)
		}
		return success(req.Op, root), nil
	}
	root := w.s.bases.object(sch, "progress/"+r.ID)
	if ps := prop(sch, "progress"); ps != nil {
		root["progress"] = w.progress(ps, r.ID, wf.At(req.Now), true)
	}
	return success(req.Op, root), nil
}

func (w *workflows) tasks(req *handler.Request) (*handler.Response, error) {
	r, wf, err := w.get(req)
	if err != nil {
		return nil, err
	}
	if wf.Trace != nil {
		return w.tr.listTasks(req, r.ID) // tasks.go
	}
	pg, err := ParsePage(req.Query, req.Op, w.s.d.Profile.Paging)
	if err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	key, item := listShape(sch)
	if key == "" {
		return nil, fmt.Errorf("resources: %s has no list of tasks in its answer", req.Op.ID)
	}
	all := w.plannedTasks(r.ID, wf, req.Now)
	if search := req.Query.Get("search"); search != "" {
		all = slices.DeleteFunc(all, func(t plannedTask) bool { return !lowerContains(t.name, search) })
	}
	page, _ := Slice(all, pg)
	// Tasks come wrapped ({"task": {...}}) in the service's answer; a
	// document that lists them bare is served bare.
	items := make([]any, 0, len(page))
	for _, t := range page {
		items = append(items, w.tr.wrapTask(item, func(s *base.Schema) map[string]any {
			return w.renderPlanned(s, r.ID, wf, req.Now, t)
		}))
	}
	root := w.s.bases.object(sch, "tasks/"+r.ID)
	root[key] = items
	w.s.fit.set(sch, root, "total", int64(len(all)))
	w.s.fit.set(sch, root, "totalSize", int64(len(all)))
	return success(req.Op, root), nil
}

// plannedTask is one task of a launched run's plan, in the state the run
// has reached.
type plannedTask struct {
	n                     int
	process, name, status string
}

// plannedTasks lists the tasks a launched run has got to at now, in plan
// order (the first is task 1).
func (w *workflows) plannedTasks(id string, wf *workflow.Run, now time.Time) []plannedTask {
	plan := workflow.PlanFor(id)
	statuses := workflow.TaskStatuses(workflow.CountsAt(wf.At(now), plan.Total), plan.Total)
	var all []plannedTask
	n := 0
	for p, proc := range plan.Processes() {
		for i := range plan.Tasks(p) {
			if n < len(statuses) {
				all = append(all, plannedTask{n + 1, proc, fmt.Sprintf("%s (%d)", proc, i+1), statuses[n]})
			}
			n++
		}
	}
	return all
}

// renderPlanned lays one planned task over a task schema.
func (w *workflows) renderPlanned(sch *base.Schema, id string, wf *workflow.Run, now time.Time, t plannedTask) map[string]any {
	m := w.s.bases.object(sch, fmt.Sprintf("task/%s/%d", id, t.n))
	w.s.fit.overlay(sch, m, w.taskFields(wf, wf.At(now), workflow.PlanFor(id).Total, t.n, t.process, t.name, t.status))
	return m
}

// taskFields places task n of total along the run's running time.
func (w *workflows) taskFields(wf *workflow.Run, v workflow.View, total, n int, process, name, status string) map[string]any {
	f := map[string]any{
		"taskId":  int64(n),
		"status":  status,
		"process": process,
		"name":    name,
		"hash":    fmt.Sprintf("%02x/%06x", n*37%256, (n*7919)%0xffffff),
		"attempt": int64(1),
	}
	var exit any
	switch status {
	case "COMPLETED":
		exit = int64(0)
	case "FAILED":
		exit = int64(1)
		f["errorAction"] = "TERMINATE"
	}
	f["exitStatus"] = exit
	if v.Start != nil {
		slot := wf.RunningFor / time.Duration(total+1)
		submit := v.Start.Add(slot * time.Duration(n-1))
		f["submit"] = stamp(submit)
		f["dateCreated"] = stamp(submit)
		if status != "NEW" {
			f["start"] = stamp(submit.Add(time.Second))
		} else {
			f["start"] = nil
		}
		f["complete"] = nil
		if status == "COMPLETED" || status == "FAILED" || status == "ABORTED" {
			end := submit.Add(slot)
			if status == "ABORTED" && v.Complete != nil {
				end = *v.Complete
			}
			f["complete"] = stamp(end)
			f["lastUpdated"] = stamp(end)
			f["duration"] = end.Sub(submit).Milliseconds()
			f["realtime"] = end.Sub(submit.Add(time.Second)).Milliseconds()
		}
	}
	return f
}

// cachedRender is render, encoded, from the cache when the run has not
// moved on since it was last rendered. The key holds everything render
// depends on: the schema, the record as stored, and the run's view at now
// reduced to what the answer shows (status, timestamps, task counts).
func (w *workflows) cachedRender(sch *base.Schema, purpose string, r store.Record, hash uint64, wf *workflow.Run, now time.Time) (json.RawMessage, error) {
	key := w.renderKeyOf(sch, purpose, r, hash, wf, now)
	return renderOnce(w.renders, key, func() (any, error) { return w.render(sch, purpose, r, wf, now) })
}

func (w *workflows) renderKeyOf(sch *base.Schema, purpose string, r store.Record, hash uint64, wf *workflow.Run, now time.Time) renderKey {
	v := wf.At(now)
	return renderKey{schema: sch, purpose: purpose, id: r.ID, seq: r.Seq, hash: hash,
		status: v.Status, start: unixOrZero(v.Start), complete: unixOrZero(v.Complete),
		lastUpdated: v.LastUpdated.Unix(), counts: workflow.CountsAt(v, workflow.PlanFor(r.ID).Total),
		refs: w.s.refs.gen.Load()} // the call's handler has synced the index
}

// pageKey finds a cached list answer; listPage holds it with the render
// keys of its entries, which a hit must match.
type pageKey struct {
	schema  *base.Schema
	total   int
	hasMore bool
	entries uint64 // fingerprint of the entries' render keys
}

type listPage struct {
	keys []renderKey
	body []byte
}

// withArray encodes obj with one more member, key, holding the already
// encoded items. Splicing them in as bytes spares encoding/json from
// scanning every item again (BenchmarkHandlerListWorkflows measures the list path).
func withArray(obj map[string]any, key string, items []json.RawMessage) ([]byte, error) {
	delete(obj, key)
	head, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	name, _ := json.Marshal(key)
	size := len(head) + len(name) + 4
	for _, it := range items {
		size += len(it) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, head[:len(head)-1]...)
	if len(head) > 2 {
		out = append(out, ',')
	}
	out = append(out, name...)
	out = append(out, ':', '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']', '}'), nil
}

// unixOrZero is t in Unix seconds, or 0 for no time. Answers carry times
// to the second, so that is all a rendering can depend on.
func unixOrZero(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}

// hasher fingerprints values for cache keys. Each service has its own
// seed: the hashes are never stored, nor compared across services or runs.
type hasher struct{ seed maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed()} }

// bytes fingerprints a record's content.
func (h hasher) bytes(b []byte) uint64 { return maphash.Bytes(h.seed, b) }

// keys fingerprints a list of render keys.
func (h hasher) keys(keys []renderKey) uint64 {
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	var b [8]byte
	for _, k := range keys {
		binary.LittleEndian.PutUint64(b[:], maphash.Comparable(h.seed, k))
		mh.Write(b[:])
	}
	return mh.Sum64()
}

// render builds a run for an answer schema: the describe answer, or one
// element of the list answer.
func (w *workflows) render(sch *base.Schema, purpose string, r store.Record, wf *workflow.Run, now time.Time) (map[string]any, error) {
	if wf.Trace != nil {
		return w.tr.render(sch, purpose, r.ID, wf, now) // trace_view.go
	}
	key := "workflow/" + r.ID + "/" + purpose
	root := w.s.bases.object(sch, key)
	w.s.fixRefs(root, &wf.WorkspaceID, nil) // refs.go
	v := wf.At(now)
	// The run itself is synthesized from its id alone, so the list and
	// describe show the same run.
	if wsch := prop(sch, "workflow"); wsch != nil {
		obj := w.s.bases.object(wsch, "workflow/"+r.ID)
		w.s.fit.overlay(wsch, obj, w.workflowFields(r.ID, wf, v))
		w.details(wsch, obj, r.ID, wf, v)
		root["workflow"] = obj
	}
	if ps := prop(sch, "progress"); ps != nil {
		root["progress"] = w.progress(ps, r.ID, v, purpose != "entry")
	}
	w.headJob(sch, root, r.ID, v)
	w.s.fit.overlay(sch, root, contextFields(wf.WorkspaceID))
	return root, nil
}

// headJob makes the answer's head job (jobInfo, next to the run or in
// it) say what the run's status says; its ids stay as synthesized.
func (w *workflows) headJob(sch *base.Schema, root map[string]any, id string, v workflow.View) {
	j := v.HeadJob()
	var code, msg any
	if j.ExitCode != nil {
		code = int64(*j.ExitCode)
	}
	if j.Message != "" {
		msg = j.Message
	}
	fields := map[string]any{"status": j.Status, "exitCode": code, "message": msg}
	for _, at := range []struct {
		obj map[string]any
		sch *base.Schema
	}{{root, sch}, {asObject(root["workflow"]), prop(sch, "workflow")}} {
		if at.obj == nil || at.sch == nil {
			continue
		}
		if job, js := w.s.bases.child(at.sch, at.obj, "jobInfo", "workflow/"+id); js != nil && job != nil {
			w.s.fit.overlay(js, job, fields)
			w.s.fit.set(at.sch, at.obj, "jobInfo", job)
		}
	}
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// contextFields are the members of a run's answer that say where it is.
func contextFields(workspaceID int64) map[string]any {
	var ws any
	if workspaceID != 0 {
		ws = workspaceID
	}
	fields := map[string]any{"workspaceId": ws, "labels": []any{}, "messages": []any{}, "starred": false}
	if ws == nil {
		fields["orgId"], fields["orgName"], fields["workspaceName"] = nil, nil, nil
	}
	return fields
}

func (w *workflows) workflowFields(id string, wf *workflow.Run, v workflow.View) map[string]any {
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	at := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return stamp(*t)
	}
	cmd := "nextflow run " + wf.Pipeline + " -name " + wf.RunName
	if wf.Revision != "" {
		cmd += " -r " + wf.Revision
	}
	if wf.Resume {
		cmd += " -resume"
	}
	f := map[string]any{
		"id": id, "ownerId": int64(1), "status": v.Status, "runName": wf.RunName,
		"projectName": wf.ProjectName, "commandLine": cmd, "scriptName": "main.nf",
		"submit": stamp(wf.Submit), "dateCreated": stamp(wf.Submit), "lastUpdated": stamp(v.LastUpdated),
		"start": at(v.Start), "complete": at(v.Complete),
		"revision": opt(wf.Revision), "commitId": opt(wf.CommitID), "resume": wf.Resume,
		"deleted": false, "userName": wf.UserName, "launchId": id, // a run's launch goes by its id (held.go)
		"success": nil, "exitStatus": nil, "duration": nil, "errorMessage": nil, "errorReport": nil,
	}
	if strings.Contains(wf.Pipeline, "://") {
		f["repository"] = wf.Pipeline
	}
	if wf.SessionID != "" {
		f["sessionId"] = wf.SessionID
	}
	if wf.WorkDir != "" {
		f["workDir"] = wf.WorkDir
	}
	if wf.ConfigText != "" {
		f["configText"] = wf.ConfigText
	}
	if len(wf.ConfigProfiles) > 0 {
		ps := make([]any, len(wf.ConfigProfiles))
		for i, p := range wf.ConfigProfiles {
			ps[i] = p
		}
		f["configProfiles"] = ps
	}
	if params := paramsOf(wf.ParamsText); params != nil {
		f["params"] = params
	}
	if !workflow.Final(v.Status) {
		f["stats"] = nil
	}
	if v.Start != nil && v.Complete != nil {
		f["duration"] = v.Complete.Sub(*v.Start).Milliseconds()
	}
	switch v.Status {
	case workflow.Succeeded:
		f["success"], f["exitStatus"] = true, int64(0)
	case workflow.Failed:
		f["success"], f["exitStatus"] = false, int64(1)
		f["errorMessage"] = "Process `" + workflow.PlanFor(id).Processes()[0] + "` terminated with an error exit status (1)"
	case workflow.Cancelled:
		f["success"] = false
	}
	return f
}

// details makes the run's nested records agree with the run: the task
// statistics of a finished run come from its task counts, and the manifest
// and Nextflow version from what was launched, where synthesis alone would
// give a succeeded run failed tasks, or another pipeline's home page.
func (w *workflows) details(sch *base.Schema, obj map[string]any, id string, wf *workflow.Run, v workflow.View) {
	key := "workflow/" + id
	if workflow.Final(v.Status) {
		if st, sts := w.s.bases.child(sch, obj, "stats", key); sts != nil {
			w.s.fit.overlay(sts, st, statsFields(workflow.CountsAt(v, workflow.PlanFor(id).Total)))
			w.s.fit.set(sch, obj, "stats", st)
		}
	}
	if m, ms := w.s.bases.child(sch, obj, "manifest", key); ms != nil {
		fields := map[string]any{"name": wf.ProjectName, "mainScript": "main.nf", "nextflowVersion": "!>=" + workflow.NextflowVersion[:5]}
		if strings.Contains(wf.Pipeline, "://") {
			fields["homePage"] = wf.Pipeline
		}
		if wf.Revision != "" {
			fields["defaultBranch"] = wf.Revision
		}
		w.s.fit.overlay(ms, m, fields)
		w.s.fit.set(sch, obj, "manifest", m)
	}
	if n, ns := w.s.bases.child(sch, obj, "nextflow", key); ns != nil {
		w.s.fit.overlay(ns, n, map[string]any{"version": workflow.NextflowVersion, "build": strconv.Itoa(workflow.NextflowBuild)})
		w.s.fit.set(sch, obj, "nextflow", n)
	}
	w.s.fit.set(sch, obj, "nextflowVersion", workflow.NextflowVersion)
}

// statsFields gives a finished run's task statistics from its task counts.
func statsFields(c workflow.Counts) map[string]any {
	total := c.Succeeded + c.Failed + c.Aborted + c.Pending + c.Running
	pct := func(n int) float64 {
		if total == 0 {
			return 0
		}
		return math.Round(10000*float64(n)/float64(total)) / 100
	}
	const taskMillis = 90_000 // as loadFields' cpuTime
	return map[string]any{
		"succeedCount": int64(c.Succeeded), "failedCount": int64(c.Failed), "cachedCount": int64(0), "ignoredCount": int64(0),
		"succeedCountFmt": strconv.Itoa(c.Succeeded), "failedCountFmt": strconv.Itoa(c.Failed), "cachedCountFmt": "0", "ignoredCountFmt": "0",
		"succeedPct": pct(c.Succeeded), "failedPct": pct(c.Failed), "cachedPct": 0.0, "ignoredPct": 0.0,
		"succeedDuration": int64(c.Succeeded * taskMillis), "failedDuration": int64(c.Failed * taskMillis), "cachedDuration": int64(0),
		"computeTimeFmt": fmt.Sprintf("%.1f", float64((c.Succeeded+c.Failed)*taskMillis)/3.6e6), // CPU hours
	}
}

// progress builds a ProgressData value: the run's counters overall and,
// when perProcess is set, per process. List entries leave the breakdown
// out: a page of runs is a summary (a client shows each run's totals), the
// breakdown of one run is what the progress operation is for, and with it
// a page of runs is several times larger. The values the run's record does
// not determine are synthesized from the run's id alone, so every answer
// that shows a run's progress shows the same numbers.
func (w *workflows) progress(sch *base.Schema, id string, v workflow.View, perProcess bool) map[string]any {
	key := "progress/" + id
	m := w.s.bases.object(sch, key)
	plan := workflow.PlanFor(id)
	c := workflow.CountsAt(v, plan.Total)
	if wp, wps := w.s.bases.child(sch, m, "workflowProgress", key); wps != nil {
		fields := loadFields(c)
		fields["dateCreated"], fields["lastUpdated"] = stamp(v.Submit), stamp(v.LastUpdated)
		w.s.fit.overlay(wps, wp, fields)
		m["workflowProgress"] = wp
	}
	if pp := prop(sch, "processesProgress"); isArray(pp) && !perProcess {
		m["processesProgress"] = []any{}
	} else if isArray(pp) {
		item := itemsOf(pp)
		statuses := workflow.TaskStatuses(c, plan.Total)
		list := []any{}
		n := 0
		for i, proc := range plan.Processes() {
			var pc workflow.Counts
			for range plan.Tasks(i) {
				if n < len(statuses) {
					switch statuses[n] {
					case "COMPLETED":
						pc.Succeeded++
					case "FAILED":
						pc.Failed++
					case "RUNNING":
						pc.Running++
					case "ABORTED":
						pc.Aborted++
					default:
						pc.Pending++
					}
				}
				n++
			}
			if len(statuses) == 0 {
				continue
			}
			e := w.s.bases.object(item, key+"/process/"+strconv.Itoa(i))
			fields := loadFields(pc)
			fields["process"] = proc
			fields["dateCreated"], fields["lastUpdated"] = stamp(v.Submit), stamp(v.LastUpdated)
			w.s.fit.overlay(item, e, fields)
			list = append(list, e)
		}
		m["processesProgress"] = list
	}
	w.s.fit.set(sch, m, "totalProcesses", int64(len(plan.Processes())))
	return m
}

// projectName is what the service shows for a pipeline: the repository
// path of a URL ("nf-core/rnaseq"), or the name as given.
func projectName(pipeline string) string {
	p := pipeline
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		if j := strings.Index(p, "/"); j >= 0 {
			p = p[j+1:]
		}
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
	if p == "" {
		return pipeline
	}
	return p
}

var (
	nameAdjectives = []string{"happy", "sleepy", "focused", "jolly", "nostalgic", "tender", "zen", "peaceful", "elated", "compassionate"}
	nameScientists = []string{"turing", "curie", "darwin", "franklin", "hopper", "lovelace", "mendel", "noether", "pasteur", "sanger"}
)

// runName makes up a run name the way Nextflow does (adjective_scientist).
func runName(s *Service, id string) string {
	r := s.d.Gen.Rand("run name/" + id)
	return nameAdjectives[r.IntN(len(nameAdjectives))] + "_" + nameScientists[r.IntN(len(nameScientists))]
}

func sessionID(s *Service, id string) string {
	r := s.d.Gen.Rand("session/" + id)
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	out := make([]byte, 0, 36)
	for i, part := range [][]byte{b[0:4], b[4:6], b[6:8], b[8:10], b[10:]} {
		if i > 0 {
			out = append(out, '-')
		}
		out = hex.AppendEncode(out, part)
	}
	return string(out)
}

// paramsOf reads launch parameters given as a JSON object.
func paramsOf(text string) map[string]any {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(text), &m) != nil {
		return nil
	}
	return m
}

// SetWorkflowStatus forces a run's status (from now on) or the status it
// will end in, for the control API. status and endStatus may each be "";
// an invalid one fails with workflow.ErrInvalidStatus.
func SetWorkflowStatus(st store.Store, id, status, endStatus string, now time.Time) error {
	if err := workflow.CheckStatuses(status, endStatus); err != nil {
		return err
	}
	_, err := st.Update(WorkflowsCollection, id, func(r *store.Record) error {
		wf, err := decodeWorkflow(*r)
		if err != nil {
			return err
		}
		if err := wf.Force(status, endStatus, now); err != nil {
			return err
		}
		r.Updated = now
		r.Data = wf.AppendJSON(nil)
		return nil
	})
	return err
}

// WorkflowStatus is a run's status at now, for the control API.
func WorkflowStatus(st store.Store, id string, now time.Time) (string, error) {
	r, err := st.Get(WorkflowsCollection, id)
	if err != nil {
		return "", err
	}
	wf, err := decodeWorkflow(r)
	if err != nil {
		return "", err
	}
	return wf.At(now).Status, nil
}
