package profile

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultFaultReplies(t *testing.T) {
	f := Default().Faults
	for _, tc := range []struct {
		status     int
		retryAfter bool
		title      string
	}{
		{502, false, "502 Bad Gateway"},
		{503, false, "503 Service Temporarily Unavailable"},
		{504, false, "504 Gateway Time-out"},
		{503, true, "503 Service Temporarily Unavailable"},
	} {
		r, ok := f.Reply(tc.status, tc.retryAfter)
		if !ok || r.Status != tc.status || r.Body != BodyText || r.Headers["Content-Type"] != "text/html" {
			t.Errorf("%d (retry after %v): %+v", tc.status, tc.retryAfter, r)
		}
		if text := r.Text("", nil); !strings.Contains(text, "<title>"+tc.title+"</title>") || !strings.Contains(text, "<center>nginx</center>") {
			t.Errorf("%d: page %q", tc.status, text)
		}
		if got := r.Headers["Retry-After"]; (got == PlaceRetryAfter) != tc.retryAfter {
			t.Errorf("%d (retry after %v): Retry-After %q", tc.status, tc.retryAfter, got)
		}
	}
	if r, ok := f.Reply(500, false); !ok || r.Status != 500 || r.Body != BodyMessage || !r.NeedsErrorID() {
		t.Errorf("500: %+v, want a message with an Error ID", r)
	}
	if _, ok := f.Reply(501, false); ok {
		t.Error("501 has a fault reply")
	}
	if len(f.Rules) != 0 {
		t.Errorf("the default profile injects faults: %+v", f.Rules)
	}
}

func TestTextReply(t *testing.T) {
	r := Reply{Status: 503, Body: BodyText, Message: "down ({errorId}), back in {retryAfter}s"}
	if got := r.Text("ID", map[string]string{PlaceRetryAfter: "7"}); got != "down (ID), back in 7s" {
		t.Errorf("Text = %q", got)
	}
	if !r.NeedsErrorID() {
		t.Error("a text naming {errorId} needs one")
	}
	if _, err := Parse([]byte("faults: {bad_gateway: {status: 502, body: text, message: \"{oops}\"}}\n")); err == nil ||
		!strings.Contains(err.Error(), "{oops} is not a placeholder") {
		t.Errorf("a misspelt placeholder in a text body: %v", err)
	}
}

func TestFaultRulesInAProfile(t *testing.T) {
	p, err := Parse([]byte(`
faults:
  rules:
    - {share: 0.05, status: 503}
    - {operation: ListWorkflows, times: 2, connection: reset, note: flaky}
    - {tag: workflow, delay: 50ms, delay_max: 400ms}
    - {status: 503, retry_after: 30s}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []FaultRule{
		{Share: 0.05, Status: 503},
		{Operation: "ListWorkflows", Times: 2, Connection: ConnReset, Note: "flaky"},
		{Tag: "workflow", Delay: 50 * time.Millisecond, DelayMax: 400 * time.Millisecond},
		{Status: 503, RetryAfter: 30 * time.Second},
	}
	if len(p.Faults.Rules) != len(want) {
		t.Fatalf("rules %+v", p.Faults.Rules)
	}
	for i := range want {
		if p.Faults.Rules[i] != want[i] {
			t.Errorf("rule %d = %+v, want %+v", i, p.Faults.Rules[i], want[i])
		}
	}
	c := p.Clone()
	c.Faults.Rules[0].Status = 500
	c.Faults.Maintenance.Headers["Retry-After"] = "1"
	if p.Faults.Rules[0].Status != 503 || p.Faults.Maintenance.Headers["Retry-After"] != PlaceRetryAfter {
		t.Error("changing a clone changed the profile")
	}
}

func TestBadFaultRules(t *testing.T) {
	for _, tc := range []struct{ rule, want string }{
		{"{status: 503, connection: reset}", "faults.rules[0].connection: a fault either answers with a status or breaks the connection"},
		{"{status: 501}", "faults.rules[0].status: 501: a fault answers with one of"},
		{"{status: 502, retry_after: 5s}", "faults.rules[0].retry_after: goes with status 503 only"},
		{"{status: 503, retry_after: 1500ms}", "faults.rules[0].retry_after: 1.5s: Retry-After is whole seconds"},
		{"{status: 503, retry_after: 2h}", "Retry-After is whole seconds, from 1s up to 1h0m0s"},
		{"{delay: 61s}", "faults.rules[0].delay: 1m1s: use 0s up to 1m0s"},
		{"{delay: 2s, delay_max: 1s}", "faults.rules[0].delay_max: 1s: use a time from delay (2s)"},
		{"{delay: 1s, delay_max: 2m}", "faults.rules[0].delay_max: 2m0s"},
		{"{share: 1.5, status: 500}", "faults.rules[0].share: must be between 0 and 1"},
		{"{share: lots, status: 500}", `faults.rules[0].share: the value "lots" is not a number`},
		{"{times: -1, status: 500}", "faults.rules[0].times: must not be negative"},
		{"{connection: drop}", `faults.rules[0].connection: "drop": use one of`},
		{"{connection: cut, stall: 5s}", "faults.rules[0].stall: goes with connection: stall only"},
		{"{connection: stall, stall: 5m}", "faults.rules[0].stall: 5m0s: use a time up to 1m0s"},
		{"{operation: ListWorkflows, tag: workflow, status: 500}", "faults.rules[0].tag: give an operation or a tag, not both"},
		{"{operation: ListWorkflows}", "faults.rules[0]: the rule does nothing"},
		{"{status: 500, colour: red}", `faults.rules[0].colour: unknown key "colour"`},
	} {
		_, err := Parse([]byte("faults:\n  rules:\n    - " + tc.rule + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %q", tc.rule, err, tc.want)
		}
	}
	var many strings.Builder
	many.WriteString("faults:\n  rules:\n")
	for range MaxFaultRules + 1 {
		many.WriteString("    - {status: 500}\n")
	}
	if _, err := Parse([]byte(many.String())); err == nil || !strings.Contains(err.Error(), "at most 100") {
		t.Errorf("%d rules: %v", MaxFaultRules+1, err)
	}
	if _, err := Parse([]byte("faults: {bad_gateway: {status: 404, body: empty}}\n")); err == nil ||
		!strings.Contains(err.Error(), "faults.bad_gateway.status: 404: an injected fault answers with a 5xx status") {
		t.Errorf("a 4xx fault reply: %v", err)
	}
}
