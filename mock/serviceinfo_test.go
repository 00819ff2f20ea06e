package mock_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
)

// versionShaped is what a client parsing a version expects: numbers
// separated by dots, perhaps with a suffix (1.187.0, 24.10.2-edge).
var versionShaped = regexp.MustCompile(`^v?\d+(\.\d+)+([-+][0-9A-Za-z.-]+)?$`)

// TestServiceInfoIsWhole: GET /service-info carries its serviceInfo, with
// every property the schema declares and a version-shaped version and
// apiVersion, whatever the seed. A client reading serviceInfo.version must
// never meet a missing object or a random word.
func TestServiceInfoIsWhole(t *testing.T) {
	seeds := 50
	if testenv.RaceEnabled {
		seeds = 5
	}
	for _, dc := range documents {
		t.Run(dc.name, func(t *testing.T) {
			doc := dc.doc(t)
			op, _, ok := doc.Route("GET", "/service-info")
			if !ok {
				t.Fatal("the document has no GET /service-info")
			}
			declared := propertyNames(op.Success.Schema.Schema().Properties.GetOrZero("serviceInfo").Schema())
			for seed := int64(1); seed <= int64(seeds); seed++ {
				srv, _ := newServer(t, doc, mock.WithSeed(seed), mock.WithStrictResponses())
				a := call(t, srv.Handler(), "GET", "/api/service-info", devToken, nil)
				if a.status != 200 {
					t.Fatalf("seed %d: %d %s", seed, a.status, a.body)
				}
				var body struct {
					ServiceInfo map[string]any `json:"serviceInfo"`
				}
				if err := json.Unmarshal(a.body, &body); err != nil || body.ServiceInfo == nil {
					t.Fatalf("seed %d: no serviceInfo in %s (%v)", seed, a.body, err)
				}
				for _, name := range declared {
					if _, ok := body.ServiceInfo[name]; !ok {
						t.Errorf("seed %d: serviceInfo has no %s: %s", seed, name, a.body)
					}
				}
				for _, name := range []string{"version", "apiVersion"} {
					if v := fmt.Sprint(body.ServiceInfo[name]); !versionShaped.MatchString(v) {
						t.Errorf("seed %d: serviceInfo.%s = %q, not a version", seed, name, v)
					}
				}
			}
		})
	}
}
