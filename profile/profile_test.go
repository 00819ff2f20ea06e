package profile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

func TestDefaultValues(t *testing.T) {
	p := Default()
	forbidden := Reply{Status: 403, Body: BodyEmpty}
	badRequest := Reply{Status: 400, Body: BodyMessage, Message: "Unable to process request"}
	tests := []struct {
		key       string
		got, want any
	}{
		{"auth.missing", p.Auth.Missing, forbidden},
		{"auth.bad_scheme", p.Auth.BadScheme, forbidden},
		{"auth.malformed", p.Auth.Malformed, forbidden},
		{"auth.unknown", p.Auth.Unknown, forbidden},
		{"auth.expired", p.Auth.Expired, forbidden},
		{"auth.revoked", p.Auth.Revoked, forbidden},
		{"auth.require_on_unsecured", p.Auth.RequireOnUnsecured, false},
		{"unknown_route", p.UnknownRoute, forbidden},
		{"bad_request", p.BadRequest, badRequest},
		{"body_limit.max", p.BodyLimit.Max, Size(10 << 20)},
		{"body_limit.reject", p.BodyLimit.Reject, badRequest},
		{"rate_limit.enabled", p.RateLimit.Enabled, true},
		{"rate_limit.windows", p.RateLimit.Windows, []string{"20/s", "72000/h"}},
		{"rate_limit.count_rejected", p.RateLimit.CountRejected, false},
		{"rate_limit.headers", p.RateLimit.Headers, false},
		{"rate_limit.reject", p.RateLimit.Reject, Reply{Status: 429, Body: BodyTemplate,
			Message: "Maximum request rate exceeded. Wait {retryAfter}secs before issuing a new request"}},
		{"versions.served", p.Versions.Served, []string{"1"}},
		{"versions.default", p.Versions.Default, "1"},
		{"versions.unserved", p.Versions.Unserved, badRequest},
		{"paging.default_max", p.Paging.DefaultMax, 50},
		{"paging.max_limit", p.Paging.MaxLimit, 100},
		{"missing_resource", p.MissingResource, forbidden},
		{"internal_error", p.InternalError, Reply{Status: 500, Body: BodyMessage, Message: "Internal server error"}},
		{"workflows.submitted_for", p.Workflows.SubmittedFor, 30 * time.Second},
		{"workflows.running_for", p.Workflows.RunningFor, 2 * time.Minute},
		{"workflows.outcomes", p.Workflows.Outcomes, []Outcome{{RunNameContains: "wmsmock-fail", Status: "FAILED"}}},
		{"workflows.delete_active", p.Workflows.DeleteActive, Reply{Status: 400, Body: BodyMessage, Message: "Workflow is still active, use force=true to delete it"}},
		{"workflows.unknown_after", p.Workflows.UnknownAfter, 190 * time.Second},
		{"compute_envs.creating_for", p.ComputeEnvs.CreatingFor, 20 * time.Second},
		{"compute_envs.deleting_for", p.ComputeEnvs.DeletingFor, 10 * time.Second},
		{"compute_envs.after_delete", p.ComputeEnvs.AfterDelete, "deleted"},
		{"tokens", p.Tokens, []TokenSpec{}},
		{"auth.basic_token", p.Auth.BasicToken, true},
		{"requests", p.Requests, Requests{NullsAsAbsent: true, ScalarsAsStrings: true, StringsAsNumbers: true, InferDiscriminator: true,
			ObjectsAsAny: true, RequiredExceptions: []string{"Workflow.submit"}}},
		{"answers.nulls", p.Answers.Nulls, NullsService},
	}
	for _, tc := range tests {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.key, tc.got, tc.want)
		}
	}
}

// TestDefaultFileIsComplete makes sure every setting has its value written in
// default.yaml, rather than silently defaulting to Go's zero value.
func TestDefaultFileIsComplete(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal(defaultYAML, &doc); err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	var errs []error
	walk(doc.Content[0], profileType, "", lines, &errs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var leaves func(t reflect.Type, path string) []string
	leaves = func(t reflect.Type, path string) []string {
		if t.Kind() != reflect.Struct || t == timeType {
			return []string{path}
		}
		var out []string
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if (name == "message" || name == "headers") && path != "" { // optional in a reply
				continue
			}
			if f.Type.Kind() == reflect.Pointer { // optional: absent means another key's value
				continue
			}
			out = append(out, leaves(f.Type, join(path, name))...)
		}
		return out
	}
	for _, key := range leaves(profileType, "") {
		if lines[key] == 0 {
			t.Errorf("default.yaml does not set %s", key)
		}
	}
}

func TestDefaultIsACopy(t *testing.T) {
	p := Default()
	p.RateLimit.Windows[0] = "1/s"
	p.Versions.Served[0] = "9"
	p.Workflows.Outcomes[0].Status = "UNKNOWN"
	p.Paging.MaxLimit = 1
	p.Requests.RequiredExceptions[0] = "Other.x"
	q := Default()
	if q.RateLimit.Windows[0] != "20/s" || q.Versions.Served[0] != "1" ||
		q.Workflows.Outcomes[0].Status != "FAILED" || q.Paging.MaxLimit != 100 ||
		q.Requests.RequiredExceptions[0] != "Workflow.submit" {
		t.Errorf("changing one Default() changed the next: %+v", q)
	}
}

func TestBrokenEmbeddedDefaultPanics(t *testing.T) {
	saved := embedded
	defer func() { embedded = saved }()
	embedded = sync.OnceValues(func() (*Profile, error) { return parse([]byte("paging: {max_limit: -1}\n"), &Profile{}) })
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "embedded default.yaml") {
			t.Errorf("recovered %v, want a panic naming default.yaml", r)
		}
	}()
	Default()
}

func TestOverlay(t *testing.T) {
	tests := []struct {
		name string
		file string
		edit func(*Profile)
	}{
		{"empty file", "", func(*Profile) {}},
		{"comments only", "# nothing\n", func(*Profile) {}},
		{"null section keeps defaults", "auth:\n", func(*Profile) {}},
		{"one nested key", "auth:\n  missing:\n    status: 401\n", func(p *Profile) { p.Auth.Missing.Status = 401 }},
		{"reply body", "unknown_route: {status: 404, body: message, message: Not found}\n", func(p *Profile) {
			p.UnknownRoute = Reply{Status: 404, Body: BodyMessage, Message: "Not found"}
		}},
		{"size with unit", "body_limit: {max: 512KiB}\n", func(p *Profile) { p.BodyLimit.Max = 512 << 10 }},
		{"size plain", "body_limit: {max: 1000}\n", func(p *Profile) { p.BodyLimit.Max = 1000 }},
		{"windows replaced whole", "rate_limit:\n  windows: [5/m]\n", func(p *Profile) { p.RateLimit.Windows = []string{"5/m"} }},
		{"rate limit off without windows", "rate_limit: {enabled: false, windows: []}\n", func(p *Profile) {
			p.RateLimit.Enabled = false
			p.RateLimit.Windows = []string{}
		}},
		{"durations", "workflows: {submitted_for: 0s, running_for: 1h30m}\ncompute_envs: {deleting_for: 1s}\n", func(p *Profile) {
			p.Workflows.SubmittedFor = 0
			p.Workflows.RunningFor = 90 * time.Minute
			p.ComputeEnvs.DeletingFor = time.Second
		}},
		{"versions", "versions: {served: [\"1\", \"2\"], default: 2}\n", func(p *Profile) {
			p.Versions.Served = []string{"1", "2"}
			p.Versions.Default = "2"
		}},
		{"paging", "paging: {default_max: 20}\n", func(p *Profile) { p.Paging.DefaultMax = 20 }},
		{"tokens", "tokens:\n  - {name: ci, value: ci-token}\n  - {name: old, value: old-token, expires: 2021-05-01T10:00:00Z}\n", func(p *Profile) {
			e := time.Date(2021, 5, 1, 10, 0, 0, 0, time.UTC)
			p.Tokens = []TokenSpec{{Name: "ci", Value: "ci-token"}, {Name: "old", Value: "old-token", Expires: &e}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			tc.edit(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"bogus: 1\n", []string{`line 1`, `"bogus"`, "top level", "known keys: auth,"}},
		{"auth:\n  missing:\n    stauts: 401\n", []string{"line 3", `"stauts"`, "auth.missing", "status, body, message"}},
		{"paging:\n  default_max: 10\n  max: 20\n", []string{"line 3", `"max"`, "in paging"}},
		{"tokens:\n  - name: a\n    value: b\n    secret: c\n", []string{"line 4", `"secret"`, "tokens[0]"}},
		{"workflows:\n  outcomes:\n    - {run_name: x, status: FAILED}\n", []string{"line 3", `"run_name"`, "workflows.outcomes[0]"}},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.file))
		if err == nil {
			t.Errorf("%q: accepted", tc.file)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not mention %s", tc.file, err, w)
			}
		}
	}
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"negative status", "auth: {missing: {status: -403}}", "line 1: auth.missing.status: -403 is not an HTTP status"},
		{"status too large", "bad_request: {status: 600}", "bad_request.status: 600 is not an HTTP status"},
		{"status not an error", "unknown_route: {status: 200}", "unknown_route.status: 200 is not an error status"},
		{"status not a number", "internal_error: {status: five}", `internal_error.status: the value "five" is not a whole number`},
		{"unknown body kind", "missing_resource: {body: json}", `missing_resource.body: "json" is not a body kind`},
		{"message body without text", "auth: {expired: {body: message}}", "auth.expired.message: must not be empty"},
		{"bool as word", "rate_limit: {headers: on}", `rate_limit.headers: the value "on" is not true or false`},
		{"size unit", "body_limit: {max: 10MB2}", `body_limit.max: "10MB2" is not a size`},
		{"size negative", "body_limit: {max: -1}", `body_limit.max: "-1" is not a size`},
		{"size zero", "body_limit: {max: 0}", "body_limit.max: must be more than 0"},
		{"size overflow", "body_limit: {max: 9000000000GiB}", "too large"},
		{"duration unparsable", "workflows: {running_for: 2 minutes}", `workflows.running_for: "2 minutes" is not a duration`},
		{"duration without unit", "compute_envs: {creating_for: 20}", `compute_envs.creating_for: "20" is not a duration`},
		{"duration negative", "compute_envs: {deleting_for: -1s}", "compute_envs.deleting_for: must not be negative"},
		{"after delete unknown", "compute_envs: {after_delete: purged}", "compute_envs.after_delete: \"purged\": use"},
		{"silence limit negative", "workflows: {unknown_after: -1m}", "workflows.unknown_after: must not be negative"},
		{"window no slash", "rate_limit: {windows: [20]}", `rate_limit.windows[0]: rate limit: spec "20"`},
		{"window zero calls", "rate_limit: {windows: [20/s, 0/h]}", `rate_limit.windows[1]: rate limit: spec "0/h"`},
		{"window bad unit", "rate_limit: {windows: [20/sec]}", `rate_limit.windows[0]: rate limit: spec "20/sec"`},
		{"window zero period", "rate_limit: {windows: [20/0s]}", `rate_limit.windows[0]: rate limit: spec "20/0s"`},
		{"enabled without windows", "rate_limit: {windows: []}", "rate_limit.windows: list at least one window"},
		{"windows not a list", "rate_limit: {windows: 20/s}", "rate_limit.windows: expected a list"},
		{"default not served", "versions: {default: \"2\"}", `versions.default: "2" is not one of versions.served`},
		{"no versions", "versions: {served: []}", "versions.served: list at least one version"},
		{"version twice", "versions: {served: [\"1\", \"1\"]}", `versions.served[1]: "1" is listed twice`},
		{"page size zero", "paging: {default_max: 0}", "paging.default_max: must be at least 1"},
		{"limit below default", "paging: {max_limit: 10}", "line 1: paging.max_limit: must be between"},
		{"limit beyond int32", "paging: {max_limit: 3000000000}", "paging.max_limit: must be between"},
		{"outcome empty text", "workflows: {outcomes: [{status: FAILED}]}", "workflows.outcomes[0].run_name_contains: must not be empty"},
		{"outcome bad status", "workflows: {outcomes: [{run_name_contains: x, status: RUNNING}]}", `workflows.outcomes[0].status: "RUNNING" is not a final workflow status`},
		{"token without name", "tokens: [{value: abc}]", "tokens[0].name: must not be empty"},
		{"token bad value", "tokens: [{name: a, value: \"a b\"}]", `tokens[0].value: "a b" cannot be sent as a bearer token`},
		{"token duplicate name", "tokens: [{name: a, value: x}, {name: a, value: y}]", `tokens[1].name: "a" is used by an earlier token`},
		{"token duplicate value", "tokens: [{name: a, value: x}, {name: b, value: x}]", "tokens[1].value: the same value"},
		{"answer nulls unknown", "answers: {nulls: never}", `answers.nulls: "never": use "service"`},
		{"token bad expiry", "tokens: [{name: a, value: x, expires: tomorrow}]", `tokens[0].expires: "tomorrow" is not a time`},
		{"section not a mapping", "auth: [1]", "auth: expected a mapping of keys, found a list"},
		{"document not a mapping", "- 1", "the document: expected a mapping"},
		{"two documents", "paging: {default_max: 5}\n---\npaging: {default_max: 6}", "one YAML document"},
		{"duplicate key", "paging: {default_max: 5, default_max: 6}", `"default_max" already defined`},
		{"broken yaml", "auth: {missing: {status: ", "profile:"},
		{"exception without property", "requests: {required_exceptions: [Workflow]}", `requests.required_exceptions[0]: "Workflow" is not Component.property`},
		{"exception ending in a dot", "requests: {required_exceptions: [Workflow.]}", "is not Component.property"},
		{"exception twice", "requests: {required_exceptions: [Workflow.submit, Workflow.submit]}", `requests.required_exceptions[1]: "Workflow.submit" is listed twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file + "\n"))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	p := Default()
	p.Auth.Missing.Status = 0
	p.Paging.DefaultMax = 0
	p.Workflows.RunningFor = -time.Second
	err := p.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, key := range []string{"auth.missing.status", "paging.default_max", "workflows.running_for"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not mention %s: %v", key, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	custom, err := Parse([]byte(`
auth: {unknown: {status: 401, body: message, message: Unauthorized}, require_on_unsecured: false}
body_limit: {max: 1500}
rate_limit: {windows: [3/s, 10/1m30s], count_rejected: true}
versions: {served: ["1", "2"]}
workflows: {running_for: 1h2m3s, outcomes: []}
tokens: [{name: ci, value: "Y2k+/=", expires: 2030-01-01T00:00:00Z}]
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Profile{"default": Default(), "custom": custom} {
		t.Run(name, func(t *testing.T) {
			b, err := p.Encode()
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if !reflect.DeepEqual(back, p) {
				t.Errorf("round trip changed the profile:\n got %+v\nwant %+v\n%s", back, p, b)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte("paging: {max_limit: 500}\n"), 0o644)
	os.WriteFile(bad, []byte("paging: {max_limt: 500}\n"), 0o644)

	p, err := Load(good)
	if err != nil || p.Paging.MaxLimit != 500 || p.Paging.DefaultMax != 50 {
		t.Errorf("Load(good) = %+v, %v", p, err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `"max_limt"`) {
		t.Errorf("Load(bad) error %v: want the path and the key", err)
	}
	if _, err := Load(filepath.Join(dir, "absent.yaml")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		in   string
		want Size
		text string
	}{
		{"0", 0, "0"},
		{"1500", 1500, "1500"},
		{"2048", 2048, "2KiB"},
		{"512KiB", 512 << 10, "512KiB"},
		{"10MiB", 10 << 20, "10MiB"},
		{"1GiB", 1 << 30, "1GiB"},
		{"3 MB", 3e6, "3000000"},
		{"7B", 7, "7"},
		{"1KB", 1000, "1000"},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.text {
			t.Errorf("Size(%d).String() = %q, want %q", got, s, tc.text)
		}
	}
	for _, bad := range []string{"", "MiB", "1.5MiB", "-1", "10TB", "ten"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// TestRateWindows: the profile accepts exactly the windows the limiter
// can run, so a profile that loads never fails later at start.
func TestRateWindows(t *testing.T) {
	check := func(windows ...string) error {
		p := Default()
		p.RateLimit.Windows = windows
		return p.Validate()
	}
	for _, ok := range []string{"20/s", "72000/h", "5/m", "2/ms", "3/10s", "1/1h30m"} {
		if err := check(ok); err != nil {
			t.Errorf("window %q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "20", "/s", "20/", "0/s", "-1/s", "1.5/s", "20/d", "20/-1s", "20/s/s", "x/s", "off", "1/1ns"} {
		if err := check(bad); err == nil {
			t.Errorf("window %q accepted", bad)
		}
	}
	if err := check("20/s", "30/s"); err == nil || !strings.Contains(err.Error(), "rate_limit.windows") {
		t.Errorf("two windows with one period: %v", err)
	}
}

func TestEndStatus(t *testing.T) {
	w := Workflows{Outcomes: []Outcome{{"boom", "FAILED"}, {"o", "UNKNOWN"}}}
	for name, want := range map[string]string{"nf-boom-1": "FAILED", "boom-o": "FAILED", "foo": "UNKNOWN", "plain": "SUCCEEDED", "": "SUCCEEDED"} {
		if got := w.EndStatus(name); got != want {
			t.Errorf("EndStatus(%q) = %s, want %s", name, got, want)
		}
	}
	if got := Default().Workflows.EndStatus("run-wmsmock-fail"); got != "FAILED" {
		t.Errorf("default rule: %s", got)
	}
}

func TestReplyText(t *testing.T) {
	id := "54apnFENQxbvCr23JaIjLb"
	if got := Default().BadRequest.Text(id, nil); got != "Unable to process request - Error ID: "+id {
		t.Errorf("Text = %q", got)
	}
	wait := map[string]string{PlaceRetryAfter: "3"}
	for _, tc := range []struct {
		reply  Reply
		text   string
		withID bool
	}{
		{Default().RateLimit.Reject, "Maximum request rate exceeded. Wait 3secs before issuing a new request", false},
		{Reply{Status: 429, Body: BodyTemplate, Message: "slow down ({errorId}), retry in {retryAfter}s"}, "slow down (" + id + "), retry in 3s", true},
		{Reply{Status: 403, Body: BodyEmpty}, "", false},
		{Reply{Status: 403, Body: BodyEmpty, Headers: map[string]string{"X-Request-Id": "{errorId}"}}, "", true},
	} {
		if got := tc.reply.Text(id, wait); got != tc.text {
			t.Errorf("%+v: Text = %q, want %q", tc.reply, got, tc.text)
		}
		if got := tc.reply.NeedsErrorID(); got != tc.withID {
			t.Errorf("%+v: NeedsErrorID = %v", tc.reply, got)
		}
	}
	if got := Fill("wait {retryAfter}", id, nil); got != "wait 0" {
		t.Errorf("a placeholder without a value: %q", got)
	}
}

// A template or reply header naming something that is not a placeholder
// is refused when the profile loads, and so is a header that could not be
// sent.
func TestReplyPlaceholdersValidated(t *testing.T) {
	for _, doc := range []string{
		"rate_limit:\n  reject: {status: 429, body: template, message: \"wait {retryafter}\"}\n",
		"bad_request:\n  status: 400\n  body: message\n  message: x\n  headers: {\"X-Id\": \"{errorID}\"}\n",
		"bad_request:\n  status: 400\n  body: message\n  message: x\n  headers: {\"Bad Name\": \"v\"}\n",
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("accepted:\n%s", doc)
		}
	}
}

func TestPerOperationPagingIsChecked(t *testing.T) {
	if _, err := Parse([]byte("paging:\n  operations: {ListWorkflows: {default_max: 20, max_limit: 10}}\n")); err == nil ||
		!strings.Contains(err.Error(), "paging.operations.ListWorkflows") {
		t.Fatalf("a default over the operation's bound: %v", err)
	}
	if _, err := Parse([]byte("paging:\n  operations: {ListWorkflows: {default_max: 20}}\n")); err != nil {
		t.Fatalf("a default under the general bound: %v", err)
	}
}

// An unknown method is answered like an unknown path until a profile gives
// it a reply of its own, so profiles written before the split keep their
// meaning; a reply given is validated like every other.
func TestUnknownMethodFollowsUnknownRoute(t *testing.T) {
	p, err := Parse([]byte("unknown_route: {status: 404, body: empty}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.MethodReply(); got.Status != 404 {
		t.Errorf("without unknown_method the method reply is %+v, want unknown_route's 404", got)
	}
	p, err = Parse([]byte("unknown_route: {status: 404, body: empty}\nunknown_method: {status: 405, body: empty}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.MethodReply(); got.Status != 405 || p.UnknownRoute.Status != 404 {
		t.Errorf("method reply %+v, route reply %+v; want 405 and 404", got, p.UnknownRoute)
	}
	c := p.Clone()
	c.UnknownMethod.Status = 406
	if p.UnknownMethod.Status != 405 {
		t.Error("Clone shares unknown_method with the original")
	}
	if _, err := Parse([]byte("unknown_method: {status: 200, body: empty}\n")); err == nil || !strings.Contains(err.Error(), "unknown_method.status") {
		t.Errorf("an unknown_method reply with status 200: %v, want an error naming unknown_method.status", err)
	}
}
