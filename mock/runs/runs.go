package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/memo"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/refs"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Runs have one owner here, whoever drives them. Every operation that
// reads a run or moves it through its life (launch, list, describe,
// delete, cancel, progress, tasks, one task, metrics) is a method of runs;
// the calls Nextflow makes to report a run it is running (reports.go)
// only write what they are told and leave every read to runs.
//
// A run comes in kinds, and the kind is chosen in one place, where a
// stored run is read (runs.read): a run the fake launched follows a plan
// on the fake's clock (run_planned.go); a run a client reports on shows
// what was reported (run_reported.go). What differs between them sits
// behind runKind; everything else (finding a run, its workspace, paging,
// caching renderings, the answers' frames) is shared.
//
// Nothing runs in the background. A run's record holds what was launched
// or reported and when, plus any status a caller forced; the status a
// client sees is worked out from those and the clock at read time. So
// advancing a fake clock moves every run at once, a restart resumes runs
// where the clock says they are, and tests never wait.

// runs holds the run operations of one document.
type runs struct {
	k *resources.Kit
	// hash fingerprints records and render keys (rendercache.go).
	hash    hasher
	renders *memo.Map[renderKey, json.RawMessage]
	// decoded holds read-only decodings of stored runs, keyed by id and
	// content hash, so reading one run does not decode it on every call.
	// Entries are shared: callers must not modify them.
	decoded *memo.Map[decodedKey, *workflow.Run]
	pages   *memo.Map[pageKey, listPage]
	// launches holds read-only decodings of launch bodies. Clients repeat
	// the same launch (a CI job, a retry, a load test), and decoding is the
	// largest part of a launch's own work.
	launches *memo.Map[string, *launchBody]
	// taskRenders holds encoded entries of reported tasks.
	taskRenders *memo.Map[taskRenderKey, json.RawMessage]

	// The two kinds; they keep no state of their own.
	planned  plannedRuns
	reported reportedRuns
}

// run is one stored run as a call reads it.
type run struct {
	id   string
	rec  store.Record
	hash uint64
	// wf is the decoded record, shared with other readers: never modified.
	wf   *workflow.Run
	kind runKind
}

// runKind is what differs between a run the fake plans and one a client
// reports: how it reads at a moment. Each method answers for the run x.
type runKind interface {
	// render builds the run for an answer schema: the describe answer
	// (purpose "describe") or one entry of the list ("entry").
	render(x *run, sch *spec.Schema, purpose string, now time.Time) (map[string]any, error)
	// progress builds a ProgressData value: the run's counters overall
	// and, with perProcess, per process.
	progress(x *run, sch *spec.Schema, v workflow.View, perProcess bool) map[string]any
	// tasks answers a page of the run's tasks.
	tasks(x *run, req *handler.Request) (*handler.Response, error)
	// task answers task n (wrapped as the answer schema sch wraps it), or
	// ErrMissing when the run has no such task.
	task(x *run, sch *spec.Schema, n int64, now time.Time) (map[string]any, error)
	// frame is the frame of an answer about the run that is not the run
	// itself (its progress): what of it the fake may make up.
	frame(x *run, sch *spec.Schema, key string) map[string]any
	// metrics lists the run's per-process metrics for the item schema.
	metrics(x *run, item *spec.Schema) ([]any, error)
	// log is the run's console output at now, one line an entry: the
	// lines Nextflow's launch command prints as they come.
	log(x *run, now time.Time) []string
	// forget removes what the run keeps beside its own record, once the
	// record is deleted.
	forget(x *run) error
}

type decodedKey struct {
	id   string
	hash uint64
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
func (w *runs) fileRun(r store.Record) ([]string, string) {
	var f runFiling
	if wf, ok := w.decoded.Get(decodedKey{r.ID, w.hash.bytes(r.Data)}); ok {
		f = runFiling{RunName: wf.RunName, ProjectName: wf.ProjectName, WorkspaceID: wf.WorkspaceID}
	} else if json.Unmarshal(r.Data, &f) != nil {
		return nil, "" // not a run: listed nowhere
	}
	return []string{runList(f.WorkspaceID)}, strings.ToLower(f.RunName) + "\x00" + strings.ToLower(f.ProjectName)
}

// Register is the runs part of a service: a Part, which reaches the
// kernel only through the Kit, so that it can live in a package of its
// own (mock/runs). It claims the operations on runs and the trace calls
// that report them, files the runs and their tasks in the store, checks
// the run ids paths name, tells the reference index of the runs, and seeds
// the seed's runs.
func Register(k *resources.Kit) error {
	c := k.Caches
	w := &runs{k: k, hash: newHasher(),
		renders:     memo.NewIn[renderKey, json.RawMessage](c, "run renderings", 16),
		decoded:     memo.NewIn[decodedKey, *workflow.Run](c, "decoded runs", 16),
		pages:       memo.NewIn[pageKey, listPage](c, "run list pages", 1),
		launches:    memo.NewIn[string, *launchBody](c, "launch bodies", 4),
		taskRenders: memo.NewIn[taskRenderKey, json.RawMessage](c, "task renderings", 8),
	}
	w.planned, w.reported = plannedRuns{w}, reportedRuns{w}
	k.Handle(k.Op("POST", "/workflow/launch"), w.launch)
	k.Handle(k.Op("GET", "/workflow"), w.list)
	k.Handle(k.Op("GET", "/workflow/{workflowId}"), w.describe)
	k.Handle(k.Op("DELETE", "/workflow/{workflowId}"), w.remove)
	k.Handle(k.Op("PATCH", "/workflow/{workflowId}"), w.update)
	k.Handle(k.Op("POST", "/workflow/{workflowId}/cancel"), w.cancel)
	k.Handle(k.Op("GET", "/workflow/{workflowId}/progress"), w.progressOp)
	k.Handle(k.Op("GET", "/workflow/{workflowId}/log"), w.logOp)
	k.Handle(k.Op("GET", "/workflow/{workflowId}/tasks"), w.tasksOp)
	k.Handle(k.Op("GET", "/workflow/{workflowId}/task/{taskId}"), w.taskOp)
	k.Handle(k.Op("GET", "/workflow/{workflowId}/metrics"), w.metricsOp)
	k.Handle(k.Op("GET", "/workflow/{workflowId}/launch"), w.launchView("workflowId"))
	k.Handle(k.Op("GET", "/launch/{launchId}"), w.launchView("launchId"))
	w.registerReports()
	// A run's launch shares its id, so a launchId names a run too.
	k.Holds(w.exists, "workflowId", "launchId")
	k.FillsRefs(w.fillRefs)
	k.Seeds(w.seed)
	// The store files runs by workspace, in list order, as they are
	// written (see fileRun).
	if err := k.Store.Index(resources.WorkflowsCollection, w.fileRun); err != nil {
		return err
	}
	// Reported tasks are filed per run, in taskId order (see fileTask),
	// and kept packed: a big pipeline reports hundreds of thousands, each
	// with the same member names.
	if err := k.Store.Pack(resources.TasksCollection); err != nil {
		return err
	}
	return k.Store.Index(resources.TasksCollection, fileTask)
}

// runContext reads a run's workspace, from the decoded runs when the run
// is there (a run just launched is: see launch).
func (w *runs) runContext(r store.Record) (int64, bool) {
	if wf, ok := w.decoded.Get(decodedKey{r.ID, w.hash.bytes(r.Data)}); ok {
		return wf.WorkspaceID, true
	}
	var ws struct {
		WorkspaceID int64 `json:"workspaceId"`
	}
	err := json.Unmarshal(r.Data, &ws)
	return ws.WorkspaceID, err == nil
}

// fillRefs tells the reference index where the runs' ids are.
func (w *runs) fillRefs(b *refs.Build) error {
	var aliases []string
	// A run's launch goes by the run's id (see exists), so a launchId
	// names one of the runs' launches.
	if w.k.Op("GET", "/launch/{launchId}") != nil {
		aliases = append(aliases, "launchId")
	}
	return b.Collection("workflowId", resources.WorkflowsCollection, w.runContext, aliases...)
}

func decodeWorkflow(r store.Record) (*workflow.Run, error) {
	var w workflow.Run
	if err := json.Unmarshal(r.Data, &w); err != nil {
		return nil, fmt.Errorf("resources: workflow %s: %w", r.ID, err)
	}
	return &w, nil
}

// read decodes a stored run for reading, from the cache when the record is
// unchanged, and chooses its kind: the one place that does.
func (w *runs) read(r store.Record) (*run, error) {
	x := new(run)
	if err := w.readInto(x, r); err != nil {
		return nil, err
	}
	return x, nil
}

// readInto is read into x, for a caller that reads many (a list page
// holds its runs in one slice, not one allocation each).
func (w *runs) readInto(x *run, r store.Record) error {
	h := w.hash.bytes(r.Data)
	wf, err := w.decoded.Do(decodedKey{r.ID, h}, func() (*workflow.Run, error) { return decodeWorkflow(r) })
	if err != nil {
		return err
	}
	var kind runKind = w.planned
	if wf.Trace != nil {
		kind = w.reported
	}
	*x = run{id: r.ID, rec: r, hash: h, wf: wf, kind: kind}
	return nil
}

// get finds the run a call's path names (see find).
func (w *runs) get(req *handler.Request) (*run, error) {
	return w.find(req, req.PathParams["workflowId"])
}

// exists answers the missing-resource reply unless the fake holds the run
// with this id, in the call's workspace when it names one. A run's launch
// shares its id, so /launch/{launchId} resolves here too.
func (w *runs) exists(req *handler.Request, id string) error {
	_, err := w.find(req, id)
	return err
}

// find reads a run, or answers as the service does for one that does not
// exist. A workspaceId that is not the run's is treated the same way.
func (w *runs) find(req *handler.Request, id string) (*run, error) {
	r, err := w.k.Store.Get(resources.WorkflowsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resources.Fail(resources.ErrMissing, "no workflow %q", id)
	}
	if err != nil {
		return nil, err
	}
	x, err := w.read(r)
	if err != nil {
		return nil, err
	}
	ws, given, err := resources.WorkspaceOf(req.Query)
	if err != nil {
		return nil, err
	}
	if given && ws != x.wf.WorkspaceID {
		return nil, resources.Fail(resources.ErrMissing, "workflow %q is not in workspace %d", id, ws)
	}
	return x, nil
}

// updateRun changes the stored run id with fn (decoded, changed,
// encoded again, in the store's one read-modify-write) and returns the
// run as written. A run that is gone answers ErrMissing.
func updateRun(st store.Store, id string, now time.Time, fn func(*workflow.Run) error) (*workflow.Run, error) {
	var out *workflow.Run
	_, err := st.Update(resources.WorkflowsCollection, id, func(r *store.Record) error {
		wf, err := decodeWorkflow(*r)
		if err != nil {
			return err
		}
		if err := fn(wf); err != nil {
			return err
		}
		r.Updated, r.Data, out = now, wf.AppendJSON(nil), wf
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, resources.Fail(resources.ErrMissing, "no workflow %q", id)
	}
	return out, err
}

func (w *runs) describe(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	b, err := w.cachedRender(x, resources.SuccessSchema(req.Op), "describe", req.Now)
	if err != nil {
		return nil, err
	}
	return resources.Success(req.Op, b), nil
}

func (w *runs) list(req *handler.Request) (*handler.Response, error) {
	l, err := w.k.Listing(req, "workflows")
	if err != nil {
		return nil, err
	}
	pg, sch, key, item := l.Page, l.Schema, l.Key, l.Item
	ws, _, err := resources.WorkspaceOf(req.Query) // none: the personal context, 0
	if err != nil {
		return nil, err
	}
	// The store keeps each workspace's runs in list order, so a page costs
	// its own size; a search looks at a bounded window of the newest runs
	// (store.DefaultSearchWindow).
	search := strings.ToLower(strings.TrimSpace(req.Query.Get("search")))
	limit := pg.Max
	if pg.All { // a document without paging parameters: still a bounded page
		limit = w.k.Profile.Paging.MaxLimit
	}
	var recs []store.Record
	total := 0
	if !strings.Contains(search, "\x00") {
		recs, total, err = w.k.Store.Page(resources.WorkflowsCollection, store.Query{List: runList(ws), Offset: pg.Offset, Limit: limit, Contains: search})
		if err != nil {
			return nil, err
		}
	}
	hasMore := pg.More(total)
	// A page is a pure function of its entries' render keys and its
	// counts; clients poll the same page over and over, so whole pages are
	// kept, and a hit is checked against the keys it was built from.
	page := make([]run, len(recs))
	keys := make([]renderKey, len(recs))
	for i, r := range recs {
		x := &page[i]
		if err := w.readInto(x, r); err != nil {
			return nil, err
		}
		keys[i] = w.renderKeyOf(x, item, "entry", req.Now)
	}
	pk := pageKey{sch, total, hasMore, w.hash.keys(keys)}
	if p, ok := w.pages.Get(pk); ok && slices.Equal(p.keys, keys) {
		return &handler.Response{Status: req.Op.Success.Status, Raw: p.body, MediaType: req.Op.Success.MediaType}, nil
	}
	root := w.k.Bases.Frame(sch, "workflow list", key)
	items := make([]json.RawMessage, 0, len(recs))
	for i := range page {
		x := &page[i]
		b, err := renderOnce(w.renders, keys[i], func() (any, error) { return w.render(x, item, "entry", req.Now) })
		if err != nil {
			return nil, err
		}
		items = append(items, b)
	}
	w.k.Fit.Set(sch, root, "totalSize", int64(total))
	w.k.Fit.Set(sch, root, "hasMore", hasMore)
	body, err := withArray(root, key, items)
	if err != nil {
		return nil, err
	}
	w.pages.Put(pk, listPage{keys: keys, body: body})
	return &handler.Response{Status: req.Op.Success.Status, Raw: body, MediaType: req.Op.Success.MediaType}, nil
}

func (w *runs) cancel(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	now := req.Now
	_, err = updateRun(w.k.Store, x.id, now, func(wf *workflow.Run) error {
		// Cancelling a run that has already ended changes nothing.
		if workflow.Final(wf.At(now).Status) {
			return resources.ErrUnchanged
		}
		wf.Pinned, wf.PinnedAt = workflow.Cancelled, &now
		return nil
	})
	if err != nil && !errors.Is(err, resources.ErrUnchanged) {
		return nil, err
	}
	return resources.Success(req.Op, nil), nil
}

// update writes the run's extension values (schedRunId; a null or absent
// one clears it) and answers the run as describe then shows it: what was
// written, at every read.
func (w *runs) update(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	body, err := resources.RequestObject(req)
	if err != nil {
		return nil, err
	}
	var sched *string
	switch v := body["schedRunId"].(type) {
	case string:
		sched = &v
	case nil:
	default:
		return nil, resources.Fail(resources.ErrBadInput, "schedRunId is not a string: %v", v)
	}
	if _, err := updateRun(w.k.Store, x.id, req.Now, func(wf *workflow.Run) error {
		if (wf.SchedRunID == nil) == (sched == nil) && (sched == nil || *wf.SchedRunID == *sched) {
			return resources.ErrUnchanged
		}
		wf.SchedRunID = sched
		return nil
	}); err != nil && !errors.Is(err, resources.ErrUnchanged) {
		return nil, err
	}
	return w.describe(req)
}

func (w *runs) remove(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	// The documents: force deletes a run even while it is active. Any
	// value but "true" is no force (a value that is not a boolean at all
	// has been refused by request validation already).
	if status := x.wf.At(req.Now).Status; req.Query.Get("force") != "true" && !workflow.Final(status) {
		return nil, resources.Fail(resources.ErrActive, "workflow %q is %s: deleting it takes force=true", x.id, status)
	}
	if err := w.k.Store.Delete(resources.WorkflowsCollection, x.id); errors.Is(err, store.ErrNotFound) {
		return nil, resources.Fail(resources.ErrMissing, "no workflow %q", x.id)
	} else if err != nil {
		return nil, err
	}
	if err := x.kind.forget(x); err != nil {
		return nil, err
	}
	return resources.Success(req.Op, nil), nil
}

func (w *runs) progressOp(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	sch := resources.SuccessSchema(req.Op)
	root := x.kind.frame(x, sch, "progress/"+x.id)
	if ps := sch.Prop("progress"); ps != nil {
		root["progress"] = x.kind.progress(x, ps, x.wf.At(req.Now), true)
	}
	return resources.Success(req.Op, root), nil
}

// logOp answers the run's console log: every entry so far, as a JSON list
// of strings (Nextflow's launch command reads log.entries as one, and the
// service's Jackson writes its Iterator<String> so; the published schema
// renders it as a bare object, which answers.objects_as_any lets through),
// pending until the run has ended. The fake keeps no log text beyond the
// run, so one page holds it all and there is no cursor.
func (w *runs) logOp(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	sch := resources.SuccessSchema(req.Op)
	root := x.kind.frame(x, sch, "log/"+x.id)
	if ls := sch.Prop("log"); ls != nil {
		lines := x.kind.log(x, req.Now)
		entries := make([]any, len(lines))
		for i, l := range lines {
			entries[i] = l
		}
		page := x.kind.frame(x, ls, "log/"+x.id+"/page")
		w.k.Fit.Overlay(ls, page, map[string]any{
			"entries": entries, "pending": !workflow.Final(x.wf.At(req.Now).Status), "truncated": false,
			"message": nil, "rewindToken": nil, "forwardToken": nil, "downloads": nil,
		})
		root["log"] = page
	}
	return resources.Success(req.Op, root), nil
}

func (w *runs) tasksOp(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	return x.kind.tasks(x, req)
}

// taskOp answers one task of a run.
func (w *runs) taskOp(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	n, err := taskID(req)
	if err != nil {
		return nil, err
	}
	task, err := x.kind.task(x, resources.SuccessSchema(req.Op), n, req.Now)
	if err != nil {
		return nil, err
	}
	return resources.Success(req.Op, task), nil
}

// metricsOp answers the metrics of each process of a run.
func (w *runs) metricsOp(req *handler.Request) (*handler.Response, error) {
	x, err := w.get(req)
	if err != nil {
		return nil, err
	}
	sch := resources.SuccessSchema(req.Op)
	root := w.k.Bases.Bare(sch, "metrics/"+x.id)
	if ms := sch.Prop("metrics"); ms != nil {
		out := []any{}
		if ms.IsArray() {
			if out, err = x.kind.metrics(x, ms.Items()); err != nil {
				return nil, err
			}
		}
		root["metrics"] = out
	}
	return resources.Success(req.Op, root), nil
}

// wrapTask puts a rendered task where the answer's entry keeps it: inside
// {"task": ...} as the service answers, or bare for a document that
// lists tasks bare.
func wrapTask(b *fit.Bases, entry *spec.Schema, task func(*spec.Schema) map[string]any) map[string]any {
	inner := entry.Prop("task")
	if inner == nil {
		return task(entry)
	}
	outer := b.Bare(entry, "task wrapper")
	outer["task"] = task(inner)
	return outer
}

// taskID reads the taskId path parameter; a value that is not a task's
// number names no task.
func taskID(req *handler.Request) (int64, error) {
	v := req.PathParams["taskId"]
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, resources.Fail(resources.ErrMissing, "no task %q", v)
	}
	return n, nil
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

// SetWorkflowStatus forces a run's status (from now on) or the status it
// will end in, for the control API. status and endStatus may each be "";
// an invalid one fails with workflow.ErrInvalidStatus.
func SetWorkflowStatus(st store.Store, id, status, endStatus string, now time.Time) error {
	if err := workflow.CheckStatuses(status, endStatus); err != nil {
		return err
	}
	_, err := updateRun(st, id, now, func(wf *workflow.Run) error { return wf.Force(status, endStatus, now) })
	if errors.Is(err, resources.ErrMissing) {
		return store.ErrNotFound
	}
	return err
}

// WorkflowStatus is a run's status at now, for the control API.
func WorkflowStatus(st store.Store, id string, now time.Time) (string, error) {
	r, err := st.Get(resources.WorkflowsCollection, id)
	if err != nil {
		return "", err
	}
	wf, err := decodeWorkflow(r)
	if err != nil {
		return "", err
	}
	return wf.At(now).Status, nil
}
