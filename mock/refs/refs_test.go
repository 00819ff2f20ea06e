package refs

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock/store"
)

// A small world: compute environments in two workspaces, and runs.
const (
	envs = "/compute-envs"
	runs = "/workflow"
)

func headContext(r store.Record) (int64, bool) {
	var h struct {
		Workspace  int64      `json:"workspaceId"`
		DeletingAt *time.Time `json:"deletingAt"`
	}
	err := json.Unmarshal(r.Data, &h)
	return h.Workspace, err == nil && h.DeletingAt == nil
}

func fill(b *Build) error {
	if err := b.Collection("computeEnvId", envs, headContext); err != nil {
		return err
	}
	if err := b.Collection("workflowId", runs, headContext, "launchId"); err != nil {
		return err
	}
	b.Nested("checkpointId")
	return nil
}

var writes = Writes{Frequent: runs, Uncopied: func(coll string) bool { return coll == runs }}

type world struct {
	t  *testing.T
	st store.Store // the backend's
	x  *Index
	w  store.Store // the index's view of writes
}

func newWorld(t *testing.T, st store.Store) *world {
	x := New(st)
	return &world{t: t, st: st, x: x, w: x.Watch(st, writes)}
}

func (w *world) insert(coll, id, data string) {
	w.t.Helper()
	if _, err := w.w.Insert(coll, store.Record{ID: id, Data: []byte(data)}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) seeded() *world {
	w.insert(envs, "ce-a", `{"workspaceId":1}`)
	w.insert(envs, "ce-b", `{"workspaceId":1}`)
	w.insert(envs, "ce-c", `{"workspaceId":2}`)
	w.insert(envs, "ce-gone", `{"workspaceId":2,"deletingAt":"2026-01-01T00:00:00Z"}`)
	if err := w.x.Rebuild(fill); err != nil {
		w.t.Fatal(err)
	}
	return w
}

// TestFixPicksHeldIdsOfTheContext: a generated id is replaced by a held
// one, of the answer's workspace when it has any, the same for the same
// generated value; an item being deleted is never named; a nested kind's
// reference is dropped; a value already held stays a held one.
func TestFixPicksHeldIdsOfTheContext(t *testing.T) {
	w := newWorld(t, store.NewMemory()).seeded()
	inWS1 := map[any]bool{"ce-a": true, "ce-b": true}
	for _, g := range []string{"x", "y", "zz", "q1"} {
		v := map[string]any{"computeEnvId": g, "checkpointRef": map[string]any{"checkpointId": 3}}
		w.x.Fix(v, 1)
		if !inWS1[v["computeEnvId"]] {
			t.Errorf("workspace 1: %q became %v, not one of its environments", g, v["computeEnvId"])
		}
		if _, kept := v["checkpointRef"]; kept {
			t.Errorf("a reference to a nested item was kept: %v", v)
		}
		again := map[string]any{"computeEnvId": g}
		w.x.Fix(again, 1)
		if again["computeEnvId"] != v["computeEnvId"] {
			t.Errorf("%q named %v, then %v", g, v["computeEnvId"], again["computeEnvId"])
		}
		in2 := map[string]any{"computeEnvIds": []any{g}}
		w.x.Fix(in2, 2)
		if got := in2["computeEnvIds"].([]any)[0]; got != "ce-c" {
			t.Errorf("workspace 2 holds ce-c live only; %q became %v", g, got)
		}
	}
}

// TestWritesMoveTheIndex: a created item becomes a target and a deleted
// one stops being one; deletes and changes of copied records move the
// generation, changes of uncopied ones (runs) do not; a second index on
// the same store (a replica) learns the changes when it syncs.
func TestWritesMoveTheIndex(t *testing.T) {
	st := store.NewMemory()
	w := newWorld(t, st).seeded()
	replica := New(st)
	if err := replica.Rebuild(fill); err != nil {
		t.Fatal(err)
	}
	w.insert(envs, "ce-new", `{"workspaceId":3}`)
	if !w.x.Holds("computeEnvId", "ce-new") {
		t.Fatal("a created environment is not a target")
	}
	replica.Sync(fill)
	if !replica.Holds("computeEnvId", "ce-new") {
		t.Fatal("the replica did not learn of the created environment")
	}
	g := w.x.Generation()
	if _, err := w.w.Update(envs, "ce-new", func(r *store.Record) error { r.Data = []byte(`{"workspaceId":3,"name":"n"}`); return nil }); err != nil {
		t.Fatal(err)
	}
	if w.x.Generation() == g {
		t.Error("a change of a copied record left the generation as it was")
	}
	w.insert(runs, "run-1", `{"workspaceId":3}`)
	g = w.x.Generation()
	if _, err := w.w.Update(runs, "run-1", func(r *store.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if w.x.Generation() != g {
		t.Error("a change of a run moved the generation")
	}
	if !w.x.Holds("launchId", "run-1") {
		t.Error("a launchId does not name the run it is the launch of")
	}
	if err := w.w.Delete(envs, "ce-new"); err != nil {
		t.Fatal(err)
	}
	if w.x.Holds("computeEnvId", "ce-new") || w.x.Generation() == g {
		t.Errorf("after the delete: held %v, generation moved %v", w.x.Holds("computeEnvId", "ce-new"), w.x.Generation() != g)
	}
	replica.Sync(fill)
	if replica.Holds("computeEnvId", "ce-new") {
		t.Error("the replica still names the deleted environment")
	}
}

// TestFrequentCreatesDoNotWaitForReaders: an item of the frequent
// collection (a launched run) created while the index is being read (its
// read lock held) is filed at once and is a target at once.
func TestFrequentCreatesDoNotWaitForReaders(t *testing.T) {
	w := newWorld(t, store.NewMemory()).seeded()
	w.x.mu.RLock() // the index being read
	done := make(chan error)
	go func() {
		_, err := w.w.Insert(runs, store.Record{ID: "run-9", Data: []byte(`{"workspaceId":1}`)})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute): // a bound for the failure, not a wait
		w.x.mu.RUnlock()
		t.Fatal("a run's creation waited for the index's readers")
	}
	w.x.mu.RUnlock()
	if !w.x.Holds("workflowId", "run-9") {
		t.Fatal("a created run is not a target")
	}
}
