package oasdoc_test

import (
	"runtime"
	"testing"
	"weak"

	"github.com/pb33f/libopenapi/index"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/oasdoc"
)

// TestReadPinsNothing: once the caller drops a model Read built, nothing
// in the process keeps its index (and with it the parse tree) alive.
// libopenapi's global memo is keyed by the index and its nodes, so a
// missing ReleaseCaches shows here as an index that survives collection.
func TestReadPinsNothing(t *testing.T) {
	idx := func() weak.Pointer[index.SpecIndex] {
		model, _, err := oasdoc.Read(fixtures.OpenAPI())
		if err != nil {
			t.Fatal(err)
		}
		if model.Index == nil {
			t.Fatal("the model has no index to watch")
		}
		return weak.Make(model.Index)
	}()
	runtime.GC()
	runtime.GC()
	if idx.Value() != nil {
		t.Fatal("a dropped document's index is still reachable after collection: something global keeps every document read")
	}
}
