package mock_test

import (
	"sync"
	"testing"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/callgen"
	"github.com/wmsmock/wmsmock/mock/synth"
)

// TestConcurrentFirstCalls: the first calls to operations compile their
// schemas lazily; many of them at once, on operations that share component
// schemas, must be safe (run with -race) and answer as one at a time would.
func TestConcurrentFirstCalls(t *testing.T) {
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			srv, _ := newServer(t, doc, mock.WithState(mock.NoRecords()), mock.WithStrictResponses())
			// Calls are built while earlier ones are served: the generator
			// walks the document the server compiles, so it takes the
			// document's lock.
			gen := synth.New(synth.WithSeed(11), synth.WithGuard(doc.Guard))
			ops := doc.Operations
			if len(ops) > 60 {
				ops = ops[:60]
			}
			ops = sample(t, ops, 30)
			var wg sync.WaitGroup
			for _, op := range ops {
				c, err := callgen.Build(op, gen, op.ID)
				if err != nil {
					t.Fatal(err)
				}
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						a := call(t, srv.Handler(), c.Method, c.URL(mock.DefaultBasePath), devToken, c.Body, "Content-Type", c.ContentType)
						if a.status != op.Success.Status {
							t.Errorf("%s: %d %s", op.ID, a.status, a.body)
						}
					}()
				}
			}
			wg.Wait()
		})
	}
}
