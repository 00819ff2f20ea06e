package features_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"github.com/wmsmock/wmsmock/features"
)

// The runner decides from tags alone what may run against the real
// service, so a scenario whose tags understate what it does would run
// where it must not. These rules keep the tags honest as scenarios are
// added.
var tagRules = []struct {
	step *regexp.Regexp
	tag  string
	why  string
}{
	{regexp.MustCompile(`^I (POST|PUT|PATCH|DELETE) "[^"]*" \d+ times`), "@destructive", "it writes data"},
	{regexp.MustCompile(`the expired access token`), "@fake-only", "only the fake has a known expired token"},
	{regexp.MustCompile(`the second access token`), "@second-token", "it needs a second token"},
	{regexp.MustCompile(`schema`), "@schema", "it needs a schema"},
	{regexp.MustCompile(`^\d+ (seconds|minutes) pass`), "@fake-only", "only the fake's clock can be moved that far"},
}

var (
	call    = regexp.MustCompile(`^I (GET|HEAD|POST|PUT|PATCH|DELETE|send) `)
	write   = regexp.MustCompile(`^I (POST|PUT|PATCH|DELETE) `)
	success = regexp.MustCompile(`^the response status is 2\d\d$`)
)

func TestScenariosAreTaggedForWhatTheyDo(t *testing.T) {
	ts := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: []string{"."}}}
	feats, err := ts.RetrieveFeatures()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	count := 0
	for _, f := range feats {
		if len(f.Pickles) == 0 {
			t.Errorf("%s has no scenario", f.Uri)
		}
		for _, p := range f.Pickles {
			count++
			if prev, dup := names[p.Name]; dup {
				t.Errorf("scenario name %q is used in %s and %s; results are reported by name", p.Name, prev, p.Uri)
			}
			names[p.Name] = p.Uri
			tags := map[string]bool{}
			for _, tg := range p.Tags {
				tags[tg.Name] = true
			}
			// A run judges @contract and @profile scenarios differently
			// (a @profile one that does not pass is a difference, not a
			// failure), so each scenario says which it is.
			if tags["@contract"] == tags["@profile"] {
				t.Errorf("%s: scenario %q must be tagged either @contract (a documented rule) or @profile (a point the document leaves open)", p.Uri, p.Name)
			}
			for _, st := range p.Steps {
				if strings.Contains(st.Text, "the profile's") && !tags["@profile"] {
					t.Errorf("%s: scenario %q checks the profile but is not tagged @profile", p.Uri, p.Name)
				}
			}
			// wrote: the latest call was a write.
			wrote := false
			for _, st := range p.Steps {
				for _, r := range tagRules {
					if r.step.MatchString(st.Text) && !tags[r.tag] {
						t.Errorf("%s: %q has step %q but no %s tag (%s)", p.Uri, p.Name, st.Text, r.tag, r.why)
					}
				}
				if call.MatchString(st.Text) {
					wrote = write.MatchString(st.Text)
				}
				// A write that is expected to succeed changes the target.
				if wrote && success.MatchString(st.Text) && !tags["@destructive"] {
					t.Errorf("%s: %q expects a write to succeed but is not tagged @destructive", p.Uri, p.Name)
				}
			}
		}
	}
	if count == 0 {
		t.Fatal("no scenarios found in features.FS")
	}
}
