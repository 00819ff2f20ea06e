package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/store"
)

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
// run, and a search matches its name, in lower case. It runs on every
// write of a task, so it reads the one member it needs from the encoded
// record rather than decoding it.
func fileTask(r store.Record) ([]string, string) {
	i := strings.LastIndexByte(r.ID, '/')
	if i <= 0 {
		return nil, ""
	}
	var name string
	_ = jsonvalue.Members(r.Data, func(k, raw []byte) bool {
		if string(k) != "name" {
			return true
		}
		v, _ := jsonvalue.Scalar(raw)
		name, _ = v.(string)
		return false
	})
	return []string{taskList(r.ID[:i])}, strings.ToLower(name)
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
	return factsFrom(func(k string) any { return m[k] })
}

// factKeys are the members of a task factsFrom reads.
var factKeys = [...]string{"process", "executor", "status", "errorAction", "cpus", "memory", "realtime",
	"pcpu", "peakRss", "rchar", "wchar", "volCtxt", "invCtxt"}

// recordFacts reads, from a task as stored, the members factsFrom needs,
// without decoding the others.
func recordFacts(data []byte) (*[len(factKeys)]any, error) {
	var vals [len(factKeys)]any
	err := jsonvalue.Members(data, func(k, raw []byte) bool {
		for i, f := range factKeys {
			if string(k) == f {
				vals[i], _ = jsonvalue.Scalar(raw)
				break
			}
		}
		return true
	})
	return &vals, err
}

// factsFrom builds a task's facts from its members (get returns nil for
// one it does not have).
func factsFrom(get func(string) any) *workflow.TaskFacts {
	n := func(k string) int64 { v, _ := jsonvalue.Int(get(k)); return v }
	pcpu, _ := floatOf(get("pcpu"))
	return &workflow.TaskFacts{
		Process: textOf(get("process")), Executor: textOf(get("executor")), Status: strings.ToUpper(textOf(get("status"))), ErrorAction: strings.ToUpper(textOf(get("errorAction"))),
		Cpus: n("cpus"), Memory: n("memory"), Realtime: n("realtime"), Pcpu: pcpu, PeakRss: n("peakRss"),
		Rchar: n("rchar"), Wchar: n("wchar"), VolCtxt: n("volCtxt"), InvCtxt: n("invCtxt"),
	}
}

// storeTask keeps one reported task, its fields merged over those of its
// earlier reports, and returns how it changed: a read and a write of its
// own record, whatever else the run holds. The merge works on the
// encoded record (jsonvalue.MergeObject): the members a report does not
// name are copied as they were stored, never decoded.
func (t *reports) storeTask(run string, task int64, fields map[string]any, now time.Time) (workflow.Change, error) {
	var c workflow.Change
	err := store.Upsert(t.k.Store, resources.TasksCollection, taskKey(run, task), func(r *store.Record) error {
		old, err := recordFacts(r.Data)
		if err != nil {
			return fmt.Errorf("resources: task %s: %w", r.ID, err)
		}
		b, err := jsonvalue.MergeObject(r.Data, fields)
		if err != nil {
			return err
		}
		c = workflow.Change{
			Old: factsFrom(func(k string) any { return old[slices.Index(factKeys[:], k)] }),
			New: factsFrom(func(k string) any {
				if v, ok := fields[k]; ok {
					return v
				}
				return old[slices.Index(factKeys[:], k)]
			}),
		}
		r.Updated, r.Data = now, b
		return nil
	}, func() (store.Record, error) {
		c = workflow.Change{New: factsOf(fields)}
		b, err := jsonvalue.MergeObject(nil, fields)
		return store.Record{Created: taskPlace(task), Updated: now, Data: b}, err
	})
	return c, err
}
