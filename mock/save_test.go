package mock_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/backend"
	"github.com/wmsmock/wmsmock/mock/store"
)

// countingStore is the in-memory store, counting what saves take from it.
type countingStore struct {
	*store.Memory
	snapshots int   // whole copies
	changed   []int // records handed out by each Changes
}

func (c *countingStore) Snapshot() (store.Snapshot, error) {
	c.snapshots++
	return c.Memory.Snapshot()
}

func (c *countingStore) Changes(since uint64) (store.Changes, error) {
	ch, err := c.Memory.Changes(since)
	n := 0
	for _, rs := range ch.Records {
		n += len(rs)
	}
	c.changed = append(c.changed, n)
	return ch, err
}

// A save of the state file copies, under the store's lock, the records
// changed since the previous save, never the whole store; and the file it
// writes is still complete: a restart finds every run.
func TestSaveCopiesOnlyChanges(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	cs := &countingStore{Memory: store.NewMemory()}
	// A state file over a store of the test's: a State of the caller's own.
	fileOverCounting := func(opts ...backend.Option) (*backend.Backend, error) {
		return backend.NewFile(file, 0, append(opts, backend.WithRecords(cs))...)
	}
	srv, _ := newServer(t, embedded(t), mock.WithState(fileOverCounting))
	h := srv.Handler()
	save := func() {
		t.Helper()
		if a := adminCall(t, h, "POST", "/_mock/admin/state/save", "", nil); a.status != 200 {
			t.Fatalf("save: %d %s", a.status, a.body)
		}
	}
	var ids []string
	for range 30 {
		ids = append(ids, launch(t, h, "many", ""))
	}
	save()
	last := launch(t, h, "late", "")
	ok(t, h, call(t, h, "POST", "/api/workflow/"+ids[3]+"/cancel", devToken, nil), 204, "cancel")
	save()
	if cs.snapshots != 0 {
		t.Errorf("saves took %d whole copies of the store", cs.snapshots)
	}
	// A launch does not count up the store's reference generation
	// (resources/refindex.go, addRef), so only the two runs changed.
	if len(cs.changed) != 2 || cs.changed[0] < 30 || cs.changed[1] != 2 {
		t.Fatalf("records copied by each save: %v, want everything (at least 30), then the 2 changed", cs.changed)
	}
	if err := srv.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	again, _ := newServer(t, embedded(t), mock.WithState(mock.InFile(file, 0)))
	for _, id := range append(ids, last) {
		ok(t, again.Handler(), call(t, again.Handler(), "GET", "/api/workflow/"+id, devToken, nil), 200, "describe after restart")
	}
}

// TestSaveWithoutAStateFile: asking a fake that keeps its state in memory
// to save it is refused with a message saying so, not answered "saved";
// one with a state file names the file it wrote.
func TestSaveWithoutAStateFile(t *testing.T) {
	srv, _ := newServer(t, embedded(t))
	a := adminCall(t, srv.Handler(), "POST", "/_mock/admin/state/save", "", nil)
	if a.status != http.StatusConflict || !strings.Contains(string(a.body), "--state-file") {
		t.Errorf("save without a state file: %d %s", a.status, a.body)
	}
	file := filepath.Join(t.TempDir(), "state.json")
	withFile, _ := newServer(t, embedded(t), mock.WithState(mock.InFile(file, 0)))
	a = adminCall(t, withFile.Handler(), "POST", "/_mock/admin/state/save", "", nil)
	if a.status != http.StatusOK || !strings.Contains(string(a.body), `"file":"`+file+`"`) {
		t.Errorf("save with a state file: %d %s", a.status, a.body)
	}
}
