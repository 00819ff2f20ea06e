package mock_test

import (
	"net/http"
	"runtime"
	"testing"
	"weak"

	"github.com/pb33f/libopenapi/index"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// TestClosedFakeIsCollected: a fake that has answered calls (which build
// validators and schemas lazily) and is closed leaves nothing behind that
// keeps its document alive. Tests start hundreds of fakes in one process;
// before Close released libopenapi's global memo each kept its whole
// document, 3 MB for the embedded one.
func TestClosedFakeIsCollected(t *testing.T) {
	idx := func() weak.Pointer[index.SpecIndex] {
		doc, err := spec.Load(fixtures.OpenAPI())
		if err != nil {
			t.Fatal(err)
		}
		srv, err := mock.New(mock.WithDocument("", doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/workflow", "/workflow/3cSucceeded003", "/service-info"} {
			req, _ := http.NewRequest("GET", srv.BaseURL()+path, nil)
			req.Header.Set("Authorization", "Bearer "+mock.DevToken)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d", path, resp.StatusCode)
			}
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		return weak.Make(doc.Model.Index)
	}()
	runtime.GC()
	runtime.GC()
	if idx.Value() != nil {
		t.Fatal("a closed fake's document is still reachable after collection")
	}
}
