package mock_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// firstCallBound is how long the first call to an operation may take before
// the test calls it a hang. Generation on this document takes milliseconds;
// before discriminated compositions were read as the document means them,
// it never finished.
const firstCallBound = 10 * time.Second

// Every GET of a document whose discriminated oneOf branches refer back to
// the oneOf (as older versions of the service's schema do) answers, each as
// the first request to a fresh fake, with a body the document accepts.
func TestCyclicCompositionsAnswer(t *testing.T) {
	doc, err := spec.LoadFile("testdata/cyclic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range doc.Operations {
		if op.Method != "GET" {
			continue
		}
		t.Run(op.ID, func(t *testing.T) {
			for _, seed := range []int64{1, 2, 3} {
				srv, _ := newServer(t, doc, mock.WithStrictResponses(), mock.WithSeed(seed), mock.WithState(mock.NoRecords()))
				path := "/api" + op.Path
				path = replaceParams(path, "cfg-1")
				done := make(chan *httptest.ResponseRecorder, 1)
				go func() {
					rec := httptest.NewRecorder()
					req := httptest.NewRequest("GET", path, nil)
					req.Header.Set("Authorization", "Bearer "+devToken)
					srv.Handler().ServeHTTP(rec, req)
					done <- rec
				}()
				select {
				case rec := <-done:
					if rec.Code != 200 {
						t.Fatalf("seed %d: GET %s = %d %s", seed, path, rec.Code, rec.Body.String())
					}
				case <-time.After(firstCallBound):
					t.Fatalf("seed %d: GET %s did not answer within %s", seed, path, firstCallBound)
				}
			}
		})
	}
}

// replaceParams fills every {param} of a path template with value.
func replaceParams(path, value string) string {
	out := []byte{}
	for i := 0; i < len(path); i++ {
		if path[i] == '{' {
			for i < len(path) && path[i] != '}' {
				i++
			}
			out = append(out, value...)
			continue
		}
		out = append(out, path[i])
	}
	return string(out)
}
