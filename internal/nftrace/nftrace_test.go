package nftrace

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// Times render as Java's OffsetDateTime.toString does: zero seconds and
// fractions left out, fractions in groups of three digits, Z for UTC.
func TestJavaTime(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		zone *time.Location
		want string
	}{
		{base, nil, "2026-03-01T12:00Z"},
		{base, cet, "2026-03-01T13:00+01:00"},
		{base.Add(5 * time.Second), cet, "2026-03-01T13:00:05+01:00"},
		{base.Add(1500 * time.Millisecond), nil, "2026-03-01T12:00:01.500Z"},
		{base.Add(120 * time.Microsecond), nil, "2026-03-01T12:00:00.000120Z"},
		{base.Add(7), nil, "2026-03-01T12:00:00.000000007Z"},
	} {
		if got := JavaTime(tc.t, tc.zone); got != tc.want {
			t.Errorf("JavaTime(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

// The header follows the token's look: the service's own formats go as
// Bearer, anything else as Basic with the "@token:" user.
func TestAuthorization(t *testing.T) {
	tid := base64.StdEncoding.EncodeToString([]byte(`{"tid":42}.9f86d081884c7d65`))
	for token, want := range map[string]string{
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln": "Bearer",
		tid:                 "Bearer",
		"wmsmock-dev-token": "Basic",
		base64.StdEncoding.EncodeToString([]byte("no-dot-here")): "Basic",
		base64.StdEncoding.EncodeToString([]byte("[1].x")):       "Basic",
	} {
		got := Authorization(token)
		if !strings.HasPrefix(got, want+" ") {
			t.Errorf("Authorization(%q) = %q, want %s", token, got, want)
		}
		if want == "Basic" {
			b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(got, "Basic "))
			if string(b) != "@token:"+token {
				t.Errorf("Basic credentials %q, want @token:%s", b, token)
			}
		}
	}
}

// The replay's bodies carry what makes them Nextflow's: nulls, numbers
// where the service's schema says text, no workflow.submit, extra members.
func TestBodiesAreNextflows(t *testing.T) {
	r := &Run{RunName: "r", SessionID: "s", Token: "t"}
	var calls []Call
	id := ""
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, st := range r.Steps() {
		now = now.Add(st.After)
		c := st.Build(id, now)
		calls = append(calls, c)
		id = "abc"
	}
	body := func(step string) string {
		for _, c := range calls {
			if c.Step == step {
				return string(c.Body)
			}
		}
		t.Fatalf("no step %s", step)
		return ""
	}
	for step, want := range map[string][]string{
		"create":     {`"workflowId":null`, `"instant":`},
		"begin":      {`"build":5934`, `"complete":null`, `"exitStatus":null`, `"dag":`, `"start":"2026-03-01T12:00:00.600Z"`},
		"progress 1": {`"nativeId":40212`, `"tag":null`, `"start":null`, `"exit":2147483647`, `"containers":[]`},
		"complete":   {`"metrics":[`, `"success":true`},
	} {
		for _, w := range want {
			if !strings.Contains(body(step), w) {
				t.Errorf("%s body lacks %s: %s", step, w, body(step))
			}
		}
	}
	if strings.Contains(body("begin"), `"submit"`) {
		t.Error("begin sends workflow.submit, which Nextflow never does")
	}
	if n := len(calls); n != 7 || calls[0].Path != "/trace/create" || calls[6].Path != "/trace/abc/complete" {
		t.Errorf("%d calls: %v...", n, calls[0].Path)
	}
}
