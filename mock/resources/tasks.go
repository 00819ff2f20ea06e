package resources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/workflow"
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
		Process: textOf(m["process"]), Executor: textOf(m["executor"]), Status: strings.ToUpper(textOf(m["status"])), ErrorAction: strings.ToUpper(textOf(m["errorAction"])),
		Cpus: n("cpus"), Memory: n("memory"), Realtime: n("realtime"), Pcpu: pcpu, PeakRss: n("peakRss"),
		Rchar: n("rchar"), Wchar: n("wchar"), VolCtxt: n("volCtxt"), InvCtxt: n("invCtxt"),
	}
}

// storeTask keeps one reported task, its fields merged over those of its
// earlier reports, and returns how it changed: a read and a write of its
// own record, whatever else the run holds.
func (t *reports) storeTask(run string, task int64, fields map[string]any, now time.Time) (workflow.Change, error) {
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
