package conformance_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/conformance/inprocess"
	"github.com/wmsmock/wmsmock/mock"
	"github.com/wmsmock/wmsmock/profile"
)

// The suite is only worth something if it notices a server that breaks the
// contract. Each case below breaks one rule of the fake, and must fail
// exactly the scenarios that check that rule: fewer means a rule is not
// really checked, more means scenarios depend on rules they do not name.

// authOff lets every API call through as the development token.
func authOff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/_mock/") {
			r.Header.Set("Authorization", "Bearer "+mock.DevToken)
		}
		next.ServeHTTP(w, r)
	})
}

// rewrite lets a test change every answer the fake gives before it is sent.
func rewrite(change func(status int, body []byte) []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := change(rec.Code, rec.Body.Bytes())
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			if body != nil {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
}

// wrongErrorBody answers Bad Requests with a body of another shape.
var wrongErrorBody = rewrite(func(status int, body []byte) []byte {
	if status == http.StatusBadRequest {
		return []byte(`{"error":"Bad Request","status":400}`)
	}
	return body
})

var secondsTimestamp = regexp.MustCompile(`"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})Z"`)

// millisecondTimestamps writes every timestamp with fractional seconds:
// still RFC 3339 (so the schema accepts it), but not the contract's form.
var millisecondTimestamps = rewrite(func(_ int, body []byte) []byte {
	return secondsTimestamp.ReplaceAll(body, []byte(`"${1}.000Z"`))
})

func TestBrokenFakesFailTheirScenarios(t *testing.T) {
	cases := []struct {
		name string
		opts inprocess.Options
		want []string
	}{
		{
			name: "authentication off",
			opts: inprocess.Options{Wrap: authOff},
			want: []string{
				"A call with a scheme other than Bearer is refused",
				"A call with a token nobody issued is refused",
				"A call with an expired token is refused",
				"A call without a token is refused",
				"A created token works until it is deleted",
				"Calls are counted per token",
			},
		},
		{
			name: "Bad Request body without message and Error ID",
			opts: inprocess.Options{Wrap: wrongErrorBody},
			want: []string{
				"A malformed JSON body is a Bad Request",
				"A missing body is a Bad Request",
				"A page size or offset that is not a count is a Bad Request: max=-1",
				"A page size or offset that is not a count is a Bad Request: max=1.5",
				"A page size or offset that is not a count is a Bad Request: offset=-3",
				"A page size or offset that is not a count is a Bad Request: offset=first",
				"An invalid query value is a Bad Request: max=1;offset=2",
				"An invalid query value is a Bad Request: max=many",
				"An invalid query value is a Bad Request: search=%zz",
				"Every Bad Request has an Error ID of its own",
			},
		},
		{
			name: "no rate limit",
			opts: inprocess.Options{Mock: []mock.Option{mock.WithRateLimit(nil)}},
			// The @profile scenario fails too: its first check, 20 of 21
			// accepted, is the contract's, not the profile's.
			want: []string{
				"A call over the limit is refused as the profile says",
				"Calls are accepted again once the second has passed",
				"Calls are counted per token",
				"More than 20 calls in one second are refused",
			},
		},
		{
			name: "timestamps with fractional seconds",
			opts: inprocess.Options{Wrap: millisecondTimestamps},
			want: []string{
				"A run Nextflow reports is kept and shown like any other",
				"Timestamps in the caller's profile",
				"Timestamps of a run just launched, described and listed",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each run has its own servers and state
			res, err := conformance.Run(context.Background(), conformance.Options{
				Target: inprocess.New(c.opts),
				Output: io.Discard,
				// The fault scenarios judge the fake's own control, and
				// the wrappers that break a rule hold every answer, which
				// no broken connection gets through (faults.feature).
				Tags: "~@faults",
			})
			if res == nil {
				t.Fatalf("the suite did not run: %v", err)
			}
			if err == nil {
				t.Fatal("the suite passed a server that breaks the contract")
			}
			got, want := res.FailedNames(), sorted(c.want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				var summary bytes.Buffer
				res.WriteSummary(&summary)
				t.Errorf("failed scenarios:\n  %s\nwant:\n  %s\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), summary.String())
			}
		})
	}
}

// A server that answers the open points otherwise than the profile in use
// keeps the contract: judged with the default profile every @profile
// scenario reports a difference (each for its own point) and the run
// passes; with StrictProfile those are failures; judged with the profile
// the server runs on, everything passes.
func TestProfileDifferencesAreNotContractFailures(t *testing.T) {
	wholeRunOnly(t)
	other, err := profile.Parse([]byte(`auth:
  missing: {status: 401, body: template, message: "Unauthorized"}
  bad_scheme: {status: 401, body: empty}
  require_on_unsecured: true
unknown_route: {status: 404, body: template, message: "Not found ({errorId})"}
versions:
  unserved: {status: 406, body: empty, headers: {X-Versions: "1"}}
rate_limit:
  headers: true
  reject:
    status: 503
    body: template
    message: "busy, id {errorId}"
    headers: {X-Busy: "yes"}
`))
	if err != nil {
		t.Fatal(err)
	}
	differ := []string{
		"A call over the limit is refused as the profile says",
		"A call with a scheme other than Bearer gets the profile's reply",
		"A call without a token gets the profile's reply",
		"A method the path does not define is refused",
		"A path the service does not have is refused",
		"A version the service does not serve is answered as the profile says",
		"Operations the schema declares open are answered as the profile says without a token",
	}
	for _, tc := range []struct {
		name           string
		judge          *profile.Profile
		strict         bool
		differ, failed []string
	}{
		{"default profile", nil, false, differ, nil},
		{"default profile, strict", nil, true, nil, differ},
		{"the fake's own profile", other, true, nil, nil},
	} {
		res, err := conformance.Run(context.Background(), conformance.Options{
			Target:        inprocess.New(inprocess.Options{Mock: []mock.Option{mock.WithProfile(other)}}),
			Tags:          "@auth,@unknown-path,@versions,@rate-limit",
			Profile:       tc.judge,
			StrictProfile: tc.strict,
			Output:        io.Discard,
		})
		if res == nil {
			t.Fatalf("%s: the suite did not run: %v", tc.name, err)
		}
		differ, failed := res.DifferingNames(), res.FailedNames()
		if strings.Join(differ, "\n") != strings.Join(tc.differ, "\n") || strings.Join(failed, "\n") != strings.Join(tc.failed, "\n") ||
			(err == nil) != (len(tc.failed) == 0) {
			var summary bytes.Buffer
			res.WriteSummary(&summary)
			t.Errorf("%s: differ %q, failed %q (err %v); want differ %q, failed %q\n%s", tc.name, differ, failed, err, tc.differ, tc.failed, summary.String())
		}
		if len(tc.differ) > 0 {
			var summary bytes.Buffer
			res.WriteSummary(&summary)
			if !strings.Contains(summary.String(), "DIFFERS") || !strings.Contains(summary.String(), "want 403") {
				t.Errorf("%s: the summary does not show the differences with what the profile expected:\n%s", tc.name, summary.String())
			}
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// The JUnit and Cucumber reports agree with the run: a scenario that only
// differs from the profile is reported skipped with the difference, not
// failed, so CI that reads the files does not fail a run that passed.
func TestReportsShowDifferencesAsSkipped(t *testing.T) {
	wholeRunOnly(t)
	other, err := profile.Parse([]byte("unknown_route: {status: 404, body: empty}\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	junit, cucumber := filepath.Join(dir, "j.xml"), filepath.Join(dir, "c.json")
	res, err := conformance.Run(context.Background(), conformance.Options{
		Target: inprocess.New(inprocess.Options{Mock: []mock.Option{mock.WithProfile(other)}}),
		Tags:   "@unknown-path,@versions", Output: io.Discard, JUnitFile: junit, CucumberJSONFile: cucumber,
	})
	if err != nil || res.Count(conformance.Differs) != 2 {
		t.Fatalf("run: %v, %d differ", err, res.Count(conformance.Differs))
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &suites); err != nil || suites.Failures != 0 || suites.Skipped != 2 {
		t.Fatalf("JUnit: %v, %d failures, %d skipped, want 0 and 2\n%s", err, suites.Failures, suites.Skipped, x)
	}
	skipped := 0
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if c.Skipped != nil && strings.HasPrefix(c.Skipped.Message, "differs from the profile: ") && strings.Contains(c.Skipped.Message, "404") {
				skipped++
			}
		}
	}
	if skipped != 2 {
		t.Errorf("JUnit: %d cases skipped with the difference, want 2\n%s", skipped, x)
	}
	c, err := os.ReadFile(cucumber)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(c, []byte(`"failed"`)) || !bytes.Contains(c, []byte("differs from the profile: ")) {
		t.Errorf("Cucumber report still fails a difference, or does not say it:\n%.2000s", c)
	}
}

// aside answers every point the document leaves open otherwise than the
// default profile, and keeps the contract.
const aside = `
auth:
  missing: {status: 401, body: template, message: Unauthorized, headers: {Www-Authenticate: Bearer}}
  bad_scheme: {status: 401, body: empty}
unknown_route: {status: 404, body: template, message: "Not found ({errorId})"}
versions: {unserved_as_default: true}
missing_resource: {status: 404, body: template, message: No such resource}
compute_envs: {after_delete: missing}
paging: {default_max: 10, max_limit: 30}
body_limit:
  max: 1MiB
  reject: {status: 413, body: template, message: Too large}
rate_limit:
  fixed: true
  headers: true
  reject: {status: 503, body: template, message: "Slow down for {retryAfter}s", headers: {X-Wait: "{retryAfter}"}}
`

// TestWholeSuiteOnAnotherProfile: the whole suite against a fake that
// differs from the default profile on every open point: judged by the
// default profile nothing fails and the run passes, the differences being
// reported; judged by the fake's own profile, everything passes.
func TestWholeSuiteOnAnotherProfile(t *testing.T) {
	wholeRunOnly(t)
	p, err := profile.Parse([]byte(aside))
	if err != nil {
		t.Fatal(err)
	}
	for _, judge := range []*profile.Profile{nil, p} {
		res, err := conformance.Run(context.Background(), conformance.Options{
			Target:  inprocess.New(inprocess.Options{Mock: []mock.Option{mock.WithProfile(p)}}),
			Profile: judge,
			Output:  io.Discard,
		})
		if res == nil {
			t.Fatalf("the suite did not run: %v", err)
		}
		var summary strings.Builder
		res.WriteSummary(&summary)
		if err != nil || res.Count(conformance.Failed) != 0 || res.Count(conformance.Skipped) != 0 {
			t.Fatalf("judged by the %s profile: %v\n%s", name(judge), err, summary.String())
		}
		differ := res.Count(conformance.Differs)
		if judge == nil && differ < 8 || judge != nil && differ != 0 {
			t.Errorf("judged by the %s profile: %d differences\n%s", name(judge), differ, summary.String())
		}
	}
}

func name(p *profile.Profile) string {
	if p == nil {
		return "default"
	}
	return "fake's own"
}
