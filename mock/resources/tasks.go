package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/store"
)

// TasksCollection holds the tasks clients report, one record each, with
// the id "<workflowId>/<taskId>". The store files them in one ordered list
// per run (see fileTask), in the order of their taskIds, so a page of a
// run's tasks costs the page, whatever the run's size.
const TasksCollection = "tasks"

// taskKey is a reported task's record id.
func taskKey(run string, task int64) string { return run + "/" + strconv.FormatInt(task, 10) }

// taskList names the store's list of a run's reported tasks.
func taskList(run string) string { return "run:" + run }

// taskPlace is where a task sits in its run's list: the store orders a
// list by record time, so a task's record is stamped with its taskId as
// seconds, which puts the list in taskId order however the client
// batched its reports. (No answer shows this time; a task's own times are
// among its fields.)
func taskPlace(task int64) time.Time { return time.Unix(task, 0).UTC() }

// fileTask is the store's indexer for tasks: each task is listed in its
// run, and a search matches its name, in lower case.
func fileTask(r store.Record) ([]string, string) {
	i := strings.LastIndexByte(r.ID, '/')
	if i <= 0 {
		return nil, ""
	}
	var f struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(r.Data, &f)
	return []string{taskList(r.ID[:i])}, strings.ToLower(f.Name)
}

// decodeTask reads a stored task, keeping numbers exact.
func decodeTask(r store.Record) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("resources: task %s: %w", r.ID, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// factsOf reads what of a task its run's progress depends on.
func factsOf(m map[string]any) *workflow.TaskFacts {
	n := func(k string) int64 { v, _ := intOf(m[k]); return v }
	pcpu, _ := floatOf(m["pcpu"])
	return &workflow.TaskFacts{
		Process: textOf(m["process"]), Status: strings.ToUpper(textOf(m["status"])), ErrorAction: strings.ToUpper(textOf(m["errorAction"])),
		Cpus: n("cpus"), Memory: n("memory"), Realtime: n("realtime"), Pcpu: pcpu, PeakRss: n("peakRss"),
		Rchar: n("rchar"), Wchar: n("wchar"), VolCtxt: n("volCtxt"), InvCtxt: n("invCtxt"),
	}
}

// storeTask keeps one reported task, its fields merged over those of its
// earlier reports, and returns how it changed: a read and a write of its
// own record, whatever else the run holds.
func (t *traces) storeTask(run string, task int64, fields map[string]any, now time.Time) (workflow.Change, error) {
	var c workflow.Change
	err := upsert(t.s.d.Store, TasksCollection, taskKey(run, task), func(r *store.Record) error {
		old, err := decodeTask(*r)
		if err != nil {
			return err
		}
		c = workflow.Change{Old: factsOf(old)}
		for k, v := range fields {
			old[k] = v
		}
		c.New = factsOf(old)
		b, err := json.Marshal(old)
		r.Updated, r.Data = now, b
		return err
	}, func() (store.Record, error) {
		c = workflow.Change{New: factsOf(fields)}
		b, err := json.Marshal(fields)
		return store.Record{Created: taskPlace(task), Updated: now, Data: b}, err
	})
	return c, err
}

// renderTask lays a stored task over the answer's task schema: only what
// was reported, plus what the schema requires. Every task shares one
// frame: what the frame holds (taskId, status) every task reports.
func (t *traces) renderTask(sch *base.Schema, task map[string]any) map[string]any {
	m := t.s.bases.bare(sch, "reported task")
	t.s.fit.overlay(sch, m, task)
	return m
}

// wrapTask puts a rendered task where the answer's entry keeps it: inside
// {"task": ...} as the service answers, or bare for a document that
// lists tasks bare.
func (t *traces) wrapTask(entry *base.Schema, task func(*base.Schema) map[string]any) map[string]any {
	inner := prop(entry, "task")
	if inner == nil {
		return task(entry)
	}
	outer := t.s.bases.bare(entry, "task wrapper")
	outer["task"] = task(inner)
	return outer
}

// listTasks answers a page of a reported run's tasks, in taskId order
// (sortDir=desc: the other way), filtered by a search of their names.
// The store lists newest (highest taskId) first, so the n-th task from
// the start is read as the (total-n)-th from the end.
func (t *traces) listTasks(req *handler.Request, run string) (*handler.Response, error) {
	pg, err := ParsePage(req.Query, req.Op, t.s.d.Profile.Paging)
	if err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	key, entry := listShape(sch)
	if key == "" {
		return nil, fmt.Errorf("resources: %s has no list of tasks in its answer", req.Op.ID)
	}
	limit := pg.Max
	if pg.All {
		limit = t.s.d.Profile.Paging.MaxLimit
	}
	q := store.Query{List: taskList(run), Contains: strings.ToLower(strings.TrimSpace(req.Query.Get("search")))}
	_, total, err := t.s.d.Store.Page(TasksCollection, q)
	if err != nil {
		return nil, err
	}
	desc := strings.EqualFold(req.Query.Get("sortDir"), "desc")
	q.Offset, q.Limit = pg.Offset, limit
	if !desc {
		end := total - pg.Offset // one past the last wanted, counted from the newest
		q.Offset, q.Limit = max(0, end-limit), max(0, min(limit, end))
	}
	var recs []store.Record
	if q.Limit > 0 {
		if recs, _, err = t.s.d.Store.Page(TasksCollection, q); err != nil {
			return nil, err
		}
	}
	items := make([]json.RawMessage, len(recs))
	for i, r := range recs {
		at := i
		if !desc {
			at = len(recs) - 1 - i
		}
		// Clients poll a run's tasks; a task is rendered again only when
		// its record has changed.
		k := taskRenderKey{entry, r.ID, r.Seq, t.s.hash.bytes(r.Data)}
		items[at], err = renderOnce(t.renders, k, func() (any, error) {
			task, err := decodeTask(r)
			if err != nil {
				return nil, err
			}
			return t.wrapTask(entry, func(s *base.Schema) map[string]any { return t.renderTask(s, task) }), nil
		})
		if err != nil {
			return nil, err
		}
	}
	root := t.s.bases.bare(sch, "tasks/"+run)
	t.s.fit.set(sch, root, "total", int64(total))
	t.s.fit.set(sch, root, "totalSize", int64(total))
	body, err := withArray(root, key, items)
	if err != nil {
		return nil, err
	}
	return &handler.Response{Status: req.Op.Success.Status, Raw: body, MediaType: req.Op.Success.MediaType}, nil
}

// taskRenderKey names a task's rendering: the entry schema and the
// stored record as it is.
type taskRenderKey struct {
	schema *base.Schema
	id     string
	seq    uint64
	hash   uint64
}

// describeTask answers one task of a run: a reported one as it was
// reported, or one of a launched run's planned tasks.
func (t *traces) describeTask(req *handler.Request) (*handler.Response, error) {
	r, wf, err := t.w.get(req)
	if err != nil {
		return nil, err
	}
	n, err := taskID(req)
	if err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	if wf.Trace == nil {
		tasks := t.w.plannedTasks(r.ID, wf, req.Now)
		if n > int64(len(tasks)) {
			return nil, fail(errMissing, "run %s has no task %d", r.ID, n)
		}
		return success(req.Op, t.wrapTask(sch, func(s *base.Schema) map[string]any {
			return t.w.renderPlanned(s, r.ID, wf, req.Now, tasks[n-1])
		})), nil
	}
	rec, err := t.s.d.Store.Get(TasksCollection, taskKey(r.ID, n))
	if errors.Is(err, store.ErrNotFound) {
		return nil, fail(errMissing, "run %s has no task %d", r.ID, n)
	}
	if err != nil {
		return nil, err
	}
	task, err := decodeTask(rec)
	if err != nil {
		return nil, err
	}
	return success(req.Op, t.wrapTask(sch, func(s *base.Schema) map[string]any { return t.renderTask(s, task) })), nil
}

// taskID reads the taskId path parameter; a value that is not a task's
// number names no task.
func taskID(req *handler.Request) (int64, error) {
	v := req.PathParams["taskId"]
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fail(errMissing, "no task %q", v)
	}
	return n, nil
}

// metrics answers the metrics of each process a reported run's
// completion gave; a run that has not completed, or that the fake runs
// itself, has none.
func (t *traces) metrics(req *handler.Request) (*handler.Response, error) {
	r, wf, err := t.w.get(req)
	if err != nil {
		return nil, err
	}
	sch := successSchema(req.Op)
	root := t.s.bases.bare(sch, "metrics/"+r.ID)
	ms := prop(sch, "metrics")
	out := []any{}
	if wf.Trace != nil && isArray(ms) {
		d, err := t.details(r.ID)
		if err != nil {
			return nil, err
		}
		item := itemsOf(ms)
		for i, m := range d.Metrics {
			fields, ok := m.(map[string]any)
			if !ok {
				continue
			}
			e := t.s.bases.bare(item, fmt.Sprintf("metrics/%s/%d", r.ID, i))
			t.s.fit.overlay(item, e, fields)
			out = append(out, e)
		}
	}
	if ms != nil {
		root["metrics"] = out
	}
	return success(req.Op, root), nil
}

// forgetTrace removes what a deleted run's reports left: its detail
// record and its tasks. It costs the run's own tasks, a page at a time.
func (t *traces) forgetTrace(run string) error {
	if err := t.s.d.Store.Delete(TraceDetailsCollection, run); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	for {
		recs, _, err := t.s.d.Store.Page(TasksCollection, store.Query{List: taskList(run), Limit: 500})
		if err != nil || len(recs) == 0 {
			return err
		}
		for _, r := range recs {
			if err := t.s.d.Store.Delete(TasksCollection, r.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
}
