package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

// The judge knows the service's habits: against a fake that answers with
// the service's nulls (the default profile) the schema scenarios pass with
// the nulls listed by operation and place, in the summary and the JUnit
// report, and with StrictSchema they fail, naming them. Against a fake that
// sends no such nulls (answers.nulls: omit) they pass either way, with none
// listed.
func TestHabitsAreReportedNotFailed(t *testing.T) {
	omit := profile.Default()
	omit.Answers.Nulls = profile.NullsOmit
	named := regexp.MustCompile(`GET /[^:\n]*: \$\.[A-Za-z]`)
	for _, tc := range []struct {
		name   string
		prof   *profile.Profile
		habits bool
	}{
		{"service", profile.Default(), true},
		{"omit", omit, false},
	} {
		for _, strict := range []bool{false, true} {
			name := tc.name
			if strict {
				name += "/strict-schema"
			}
			t.Run(name, func(t *testing.T) {
				if testenv.RaceEnabled && !tc.habits && !strict {
					// The strict run's verdict implies this one's; each run
					// starts a fake and a judge, seconds under -race.
					t.Skip("under -race the strict run covers it")
				}
				junit := filepath.Join(t.TempDir(), "report.xml")
				var out bytes.Buffer
				res, err := conformance.Run(context.Background(), conformance.Options{
					Target: inprocess.New(inprocess.Options{Mock: []mock.Option{mock.WithProfile(tc.prof)}}),
					// The list of runs: its answer shows habits, and one
					// scenario keeps the four runs quick under -race.
					Paths:        []string{"schema.feature:13"},
					StrictSchema: strict,
					Output:       &out,
					JUnitFile:    junit,
				})
				if res == nil {
					t.Fatalf("no result: %v", err)
				}
				var summary strings.Builder
				res.WriteSummary(&summary)
				habits := res.Habits()
				switch {
				case !tc.habits:
					if err != nil || len(habits) > 0 {
						t.Fatalf("a fake without the service's nulls: error %v, habits %v\n%s", err, habits, summary.String())
					}
					if strings.Contains(summary.String(), "habits") {
						t.Errorf("the summary lists habits:\n%s", summary.String())
					}
				case strict:
					if !errors.Is(err, conformance.ErrScenariosFailed) {
						t.Fatalf("the service's nulls passed a strict schema check: %v\n%s", err, summary.String())
					}
					for _, sc := range res.Scenarios {
						if sc.Status == conformance.Failed && (!strings.Contains(sc.Reason, "null where the schema has a non-nullable property") || !named.MatchString(sc.Reason)) {
							t.Errorf("%s failed without naming the nulls: %s", sc.Name, sc.Reason)
						}
					}
				default:
					if err != nil {
						t.Fatalf("the service's nulls failed the run: %v\n%s", err, summary.String())
					}
					if len(habits) == 0 {
						t.Fatal("no habit listed")
					}
					// The summary counts them in one line; the report lists
					// every place.
					report, err := os.ReadFile(junit)
					if err != nil {
						t.Fatal(err)
					}
					count, ops := 0, map[string]bool{}
					for _, h := range habits {
						if h.Kind != conformance.HabitNull || !strings.HasPrefix(h.Path, "$.") || h.Count < 1 || !bytes.Contains(report, []byte(h.Path)) {
							t.Errorf("habit %+v is not listed in the JUnit report as it should be", h)
						}
						if strings.Contains(summary.String(), h.Path) {
							t.Errorf("habit %s is listed in the summary, which only counts them", h.Path)
						}
						count += h.Count
						ops[h.Operation] = true
					}
					line := fmt.Sprintf("Habits: %d nulls where the schema has a non-nullable property, at %d places in %d operations: ", count, len(habits), len(ops))
					if strings.Count(summary.String(), "Habits:") != 1 || !strings.Contains(summary.String(), line) {
						t.Errorf("the summary does not count the habits in one line %q:\n%s", line, summary.String())
					}
					if !bytes.Contains(report, []byte("<system-out>The service&#39;s habits")) {
						t.Errorf("the JUnit report does not list the habits:\n%s", report)
					}
				}
				t.Logf("%s", summary.String())
			})
		}
	}
}
