package schemadiff_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/wmsmock/wmsmock/conformance/schemadiff"
	"github.com/wmsmock/wmsmock/internal/testenv"
)

// published loads each published schema once for the whole package: a
// load of one costs about a quarter of a second.
var published = struct {
	sync.Mutex
	specs map[string]*schemadiff.Spec
}{specs: map[string]*schemadiff.Spec{}}

func publishedSpec(t testing.TB, name string) *schemadiff.Spec {
	t.Helper()
	if testenv.RaceEnabled {
		t.Skip("the published schemas are compared without -race (see .ci/run)")
	}
	path := testenv.PublishedSpec(t, name)
	published.Lock()
	defer published.Unlock()
	if s := published.specs[name]; s != nil {
		return s
	}
	s, err := schemadiff.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	published.specs[name] = s
	return s
}

// named is a change a report must hold.
type named struct {
	rule, op, id, what string
	direction          string
	severity           schemadiff.Severity
}

// TestPublishedVersions: the changes between published versions of the
// service's schema that clients met (a download answered in another media
// type, a response field removed, new enum values), each with its
// operation, direction and the severity the service's policy gives it. No
// response enum addition is ever breaking; every removed response property
// is.
func TestPublishedVersions(t *testing.T) {
	pairs := []struct {
		old, new string
		want     []named
	}{
		{"seqera-api-1.140.0.yaml", "seqera-api-1.181.0.yaml", []named{
			{"response-media-type-removed", "GET /workflow/{workflowId}/download", "DownloadWorkflowLog", "application/json", "response", schemadiff.Breaking},
			{"response-property-enum-value-added", "GET /compute-envs/{computeEnvId}", "DescribeComputeEnv", "`DELETED`", "response", schemadiff.Safe},
			{"request-property-enum-value-added", "POST /actions", "CreateAction", "`cron`", "request", schemadiff.Safe},
		}},
		{"seqera-api-1.181.0.yaml", "seqera-api-cloud.yaml", []named{
			{"response-optional-property-removed", "GET /agents/{agentId}", "DescribeAgent", "agent/systemPrompt", "response", schemadiff.Breaking},
			{"response-property-enum-value-added", "GET /admin/audit-logs-v2/{auditLogId}", "DescribeAuditLogV2", "`scim_token_created`", "response", schemadiff.Safe},
			{"request-property-removed", "POST /agents", "CreateAgent", "systemPrompt", "request", schemadiff.Review},
			{"endpoint-added", "POST /agents/launch", "LaunchAgent", "", "", schemadiff.Safe},
		}},
	}
	for _, p := range pairs {
		t.Run(p.old+"->"+p.new, func(t *testing.T) {
			rep := compare(t, publishedSpec(t, p.old), publishedSpec(t, p.new), nil)
			for _, w := range p.want {
				got := find(rep, w.rule, w.op, w.what)
				if len(got) == 0 {
					t.Errorf("no %s on %s about %q", w.rule, w.op, w.what)
					continue
				}
				for _, c := range got {
					if c.Operation.ID != w.id || c.Direction != w.direction || c.Severity != w.severity {
						t.Errorf("%s on %s: operationId %q, direction %q, severity %s; want %q, %q, %s",
							w.rule, w.op, c.Operation.ID, c.Direction, c.Severity, w.id, w.direction, w.severity)
					}
				}
			}
			var enumAdded, removed int
			for _, c := range rep.Changes {
				if c.Direction != "response" {
					continue
				}
				switch {
				case strings.Contains(c.Rule, "enum-value-added"):
					enumAdded++
					if c.Severity == schemadiff.Breaking {
						t.Errorf("a response enum addition is breaking: %+v", c)
					}
				case strings.HasPrefix(c.Rule, "response-") && strings.HasSuffix(c.Rule, "property-removed"):
					removed++
					if c.Severity != schemadiff.Breaking {
						t.Errorf("a removed response property is %s: %+v", c.Severity, c)
					}
				}
			}
			if enumAdded == 0 {
				t.Error("no response enum addition to check")
			}
			t.Logf("%d changes %+v; %d response enum additions, %d removed response properties", len(rep.Changes), rep.Counts, enumAdded, removed)
		})
	}
}

// BenchmarkDiffPublished is what `wmsmock diff` spends on two versions of
// the published schema: reading both (at once) and comparing them.
func BenchmarkDiffPublished(b *testing.B) {
	old := testenv.PublishedSpec(b, "seqera-api-1.181.0.yaml")
	new := testenv.PublishedSpec(b, "seqera-api-cloud.yaml")
	for b.Loop() {
		o, n, err := schemadiff.LoadPair(old, new)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := schemadiff.Compare(o, n, nil); err != nil {
			b.Fatal(err)
		}
	}
}
