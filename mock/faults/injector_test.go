package faults

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/redis/go-redis/v9"

	"github.com/wmsmock/wmsmock/mock/spec"
)

var (
	epoch     = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	listRuns  = &spec.Operation{ID: "ListWorkflows", Method: "GET", Path: "/workflow", Op: &v3.Operation{Tags: []string{"workflow"}}}
	describe1 = &spec.Operation{ID: "DescribeWorkflow", Method: "GET", Path: "/workflow/{workflowId}", Op: &v3.Operation{Tags: []string{"workflow"}}}
	userInfo  = &spec.Operation{ID: "UserInfo", Method: "GET", Path: "/user-info", Op: &v3.Operation{Tags: []string{"users"}}}
)

func add(t *testing.T, st Store, f Fault) string {
	t.Helper()
	f, err := f.Prepare(epoch)
	if err != nil {
		t.Fatal(err)
	}
	e, err := AddFault(st, f, SourceAdmin)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// inject asks which fault acts on a call to op at now.
func inject(t *testing.T, in *Injector, op *spec.Operation, now time.Time) *Injection {
	t.Helper()
	rs, err := in.Current()
	if err != nil {
		t.Fatal(err)
	}
	got, err := in.Fault(rs, &Call{Op: op, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestFaultForTheNextCalls(t *testing.T) {
	in := NewInjector(NewMemory(), 1)
	id := add(t, in.Store(), Fault{Operation: "ListWorkflows", Status: 503, Times: 2})
	for i := int64(1); i <= 2; i++ {
		got := inject(t, in, listRuns, epoch)
		if got == nil || got.Rule != id || got.Hit != i || got.Fault.Status != 503 {
			t.Fatalf("call %d: %+v", i, got)
		}
	}
	if got := inject(t, in, listRuns, epoch); got != nil {
		t.Errorf("third call: %+v; the fault was for two", got)
	}
	if rules, _, _ := in.Store().Rules(); len(rules) != 0 {
		t.Errorf("a spent rule is still kept: %v", ids(rules))
	}
}

// An operation is named by its operationId or its method and template;
// a tag selects every operation with it; nothing selects every call.
func TestFaultSelection(t *testing.T) {
	for _, tc := range []struct {
		fault Fault
		hits  []*spec.Operation
		not   []*spec.Operation
	}{
		{Fault{Operation: "GET /workflow/{workflowId}", Status: 500}, []*spec.Operation{describe1}, []*spec.Operation{listRuns, userInfo}},
		{Fault{Operation: "get /workflow", Status: 500}, []*spec.Operation{listRuns}, []*spec.Operation{describe1}},
		{Fault{Tag: "workflow", Status: 500}, []*spec.Operation{listRuns, describe1}, []*spec.Operation{userInfo}},
		{Fault{Status: 500}, []*spec.Operation{listRuns, describe1, userInfo}, nil},
	} {
		in := NewInjector(NewMemory(), 1)
		add(t, in.Store(), tc.fault)
		for _, op := range tc.hits {
			if inject(t, in, op, epoch) == nil {
				t.Errorf("%+v does not select %s", tc.fault, op.ID)
			}
		}
		for _, op := range tc.not {
			if inject(t, in, op, epoch) != nil {
				t.Errorf("%+v selects %s", tc.fault, op.ID)
			}
		}
	}
}

// A token narrows a fault to the calls made with it; the token is kept as
// its hash only.
func TestFaultByToken(t *testing.T) {
	in := NewInjector(NewMemory(), 1)
	add(t, in.Store(), Fault{Token: "secret-token", Status: 503})
	stored, _, _ := in.Store().Rules()
	if strings.Contains(string(stored[0].Rule), "secret-token") {
		t.Fatalf("the token's value is kept: %s", stored[0].Rule)
	}
	rs, _ := in.Current()
	mine, other := sha256.Sum256([]byte("secret-token")), sha256.Sum256([]byte("another"))
	for _, tc := range []struct {
		call Call
		want bool
	}{
		{Call{Op: listRuns, Now: epoch, Token: mine, HasToken: true}, true},
		{Call{Op: listRuns, Now: epoch, Token: other, HasToken: true}, false},
		{Call{Op: listRuns, Now: epoch}, false},
	} {
		got, _ := in.Fault(rs, &tc.call)
		if (got != nil) != tc.want {
			t.Errorf("%+v: injected %v, want %v", tc.call, got != nil, tc.want)
		}
	}
}

// A window is on the fake's clock: from its start (included) to its end
// (excluded); "for" counts from when the rule is added.
func TestFaultWindowOnTheFakeClock(t *testing.T) {
	in := NewInjector(NewMemory(), 1)
	add(t, in.Store(), Fault{Status: 503, From: epoch.Add(time.Minute), For: 10 * time.Minute})
	for _, tc := range []struct {
		at   time.Duration
		want bool
	}{{0, false}, {time.Minute - 1, false}, {time.Minute, true}, {10 * time.Minute, true}, {11*time.Minute - 1, true}, {11 * time.Minute, false}} {
		if got := inject(t, in, listRuns, epoch.Add(tc.at)) != nil; got != tc.want {
			t.Errorf("at +%s: injected %v, want %v", tc.at, got, tc.want)
		}
	}
	in2 := NewInjector(NewMemory(), 1)
	add(t, in2.Store(), Fault{Status: 503, For: time.Hour}) // from epoch, when it is added
	if inject(t, in2, listRuns, epoch) == nil || inject(t, in2, listRuns, epoch.Add(time.Hour)) != nil {
		t.Error("a window of an hour from now")
	}
}

// A share picks calls with the seed: the same calls for the same seed,
// others for another, about the share of them over many.
func TestFaultShareIsSeeded(t *testing.T) {
	picks := func(seed int64) []bool {
		in := NewInjector(NewMemory(), seed)
		add(t, in.Store(), Fault{Status: 503, Share: 0.3})
		out := make([]bool, 2000)
		for i := range out {
			out[i] = inject(t, in, listRuns, epoch) != nil
		}
		return out
	}
	a, again, other := picks(7), picks(7), picks(8)
	count := 0
	same := true
	for i := range a {
		if a[i] {
			count++
		}
		same = same && a[i] == again[i]
	}
	if !same {
		t.Error("the same seed picked other calls")
	}
	if equal(a, other) {
		t.Error("another seed picked the same calls")
	}
	// 2000 draws at 0.3: the standard deviation is about 20.5; 5 of them.
	if math.Abs(float64(count)-600) > 103 {
		t.Errorf("%d of 2000 picked at a share of 0.3", count)
	}
}

func equal(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A random delay lies within its range, is drawn with the seed, and
// differs between hits.
func TestFaultDelayRange(t *testing.T) {
	delays := func(seed int64) []time.Duration {
		in := NewInjector(NewMemory(), seed)
		add(t, in.Store(), Fault{Delay: 100 * time.Millisecond, DelayMax: 300 * time.Millisecond})
		var out []time.Duration
		for range 50 {
			out = append(out, inject(t, in, listRuns, epoch).Delay)
		}
		return out
	}
	a, b := delays(3), delays(3)
	distinct := map[time.Duration]bool{}
	for i, d := range a {
		if d < 100*time.Millisecond || d > 300*time.Millisecond {
			t.Errorf("delay %s out of [100ms, 300ms]", d)
		}
		if d != b[i] {
			t.Errorf("hit %d: %s then %s on the same seed", i+1, d, b[i])
		}
		distinct[d] = true
	}
	if len(distinct) < 40 {
		t.Errorf("%d distinct delays of 50", len(distinct))
	}
	in := NewInjector(NewMemory(), 1)
	add(t, in.Store(), Fault{Delay: 250 * time.Millisecond})
	if got := inject(t, in, listRuns, epoch); got.Delay != 250*time.Millisecond || got.What() != "delay 250ms" {
		t.Errorf("fixed delay: %+v %q", got, got.What())
	}
}

// The newest rule added wins over older ones; pinned rules come last.
func TestFaultOrder(t *testing.T) {
	in := NewInjector(NewMemory(), 1)
	if err := Pin(in.Store(), Pinning{Source: SourceProfile, Faults: []Fault{{Status: 500}}}); err != nil {
		t.Fatal(err)
	}
	if got := inject(t, in, listRuns, epoch); got.Rule != "profile-fault-1" {
		t.Errorf("only the pinned rule: %s", got.Rule)
	}
	add(t, in.Store(), Fault{Status: 502})
	newest := add(t, in.Store(), Fault{Status: 504, Times: 1})
	if got := inject(t, in, listRuns, epoch); got.Rule != newest || got.Fault.Status != 504 {
		t.Errorf("newest first: %+v", got)
	}
	if got := inject(t, in, listRuns, epoch); got.Fault.Status != 502 {
		t.Errorf("once the newest is spent, the next: %+v", got)
	}
}

// Two replicas on one Redis: a rule added through one acts on the calls
// of both, and its calls are counted across them.
func TestFaultsSharedOnRedis(t *testing.T) {
	mr := miniredis.RunT(t)
	open := func() *Injector {
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		return NewInjector(NewRedis(c, "wmsmock:faults", 0), 1)
	}
	a, b := open(), open()
	if inject(t, b, listRuns, epoch) != nil {
		t.Fatal("a fault before any was added")
	}
	add(t, a.Store(), Fault{Operation: "ListWorkflows", Status: 503, Times: 3})
	var got []string
	for _, in := range []*Injector{b, a, b, a} {
		if inj := inject(t, in, listRuns, epoch); inj != nil {
			got = append(got, inj.Rule)
		} else {
			got = append(got, "-")
		}
	}
	if strings.Join(got, " ") != "fault-1 fault-1 fault-1 -" {
		t.Errorf("calls on B, A, B, A: %v; want the three calls the fault was for, then none", got)
	}
}

func TestOverrideMatching(t *testing.T) {
	in := NewInjector(NewMemory(), 1)
	o, err := Override{Operation: "DescribeWorkflow", Status: 200, Body: json.RawMessage(`{"workflow": {"id": "abc"}}`),
		Match: Match{Path: map[string]string{"workflowId": "abc"}, Query: map[string]string{"workspaceId": "7"},
			Body: []BodyMatch{{Pointer: "/launch/pipeline", Value: json.RawMessage(`"https://github.com/a/b"`)}, {Pointer: "/n", Value: json.RawMessage(`3`)}}},
		Times: 2}.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Body) != `{"workflow":{"id":"abc"}}` {
		t.Errorf("body kept as %s, want it compacted", o.Body)
	}
	if _, err := AddOverride(in.Store(), o, SourceAdmin); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"launch": {"pipeline": "https://github.com/a/b"}, "n": 3.0}`)
	q := url.Values{"workspaceId": {"1", "7"}}
	path := map[string]string{"workflowId": "abc"}
	rs, _ := in.Current()
	for _, tc := range []struct {
		name string
		call Call
		want bool
	}{
		{"other operation", Call{Op: listRuns, Path: path, Query: q, Body: body}, false},
		{"other path value", Call{Op: describe1, Path: map[string]string{"workflowId": "xyz"}, Query: q, Body: body}, false},
		{"query missing", Call{Op: describe1, Path: path, Body: body}, false},
		{"body differs", Call{Op: describe1, Path: path, Query: q, Body: []byte(`{"launch": {"pipeline": "x"}, "n": 3}`)}, false},
		{"body not JSON", Call{Op: describe1, Path: path, Query: q, Body: []byte(`nope`)}, false},
		{"everything matches", Call{Op: describe1, Path: path, Query: q, Body: body}, true},
	} {
		got, err := in.Override(rs, &tc.call)
		if err != nil {
			t.Fatal(err)
		}
		if (got != nil) != tc.want {
			t.Errorf("%s: pinned %v, want %v", tc.name, got != nil, tc.want)
		}
	}
	call := Call{Op: describe1, Path: path, Query: q, Body: body}
	got, _ := in.Override(rs, &call)
	if got == nil || got.Hit != 2 || !strings.Contains(got.Reason(), "override override-1, hit 2 of 2") {
		t.Fatalf("second answer: %+v", got)
	}
	if got, _ := in.Override(rs, &call); got != nil {
		t.Error("a third answer from an override for two")
	}
}

func TestPrepareRefusesWhatCannotWork(t *testing.T) {
	for _, tc := range []struct {
		fault Fault
		want  string
	}{
		{Fault{Status: 503, DelayMax: time.Second, Delay: 2 * time.Second}, "delayMax: 1s: use a time from delay"},
		{Fault{Connection: "reset", Status: 500}, "connection: a fault either answers"},
		{Fault{Status: 503, For: time.Minute, Until: epoch}, "for: give until or for, not both"},
		{Fault{Status: 503, From: epoch, Until: epoch}, "until: must be after from"},
		{Fault{}, "the rule does nothing"},
	} {
		if _, err := tc.fault.Prepare(epoch); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.fault, err, tc.want)
		}
	}
	for _, tc := range []struct {
		o    Override
		want string
	}{
		{Override{Status: 200}, "operation: name the operation"},
		{Override{Operation: "x", Status: 700}, "status: 700"},
		{Override{Operation: "x", Status: 200, Body: json.RawMessage(`{`)}, "body: not JSON"},
		{Override{Operation: "x", Status: 200, Body: json.RawMessage(`"` + strings.Repeat("a", 256<<10) + `"`)}, "body: 262146 bytes, at most 262144"},
		{Override{Operation: "x", Status: 200, Headers: map[string]string{"Content-Length": "3"}}, "Content-Length is the fake's to set"},
		{Override{Operation: "x", Status: 200, Headers: map[string]string{"Bad Name": "v"}}, `headers: "Bad Name"`},
		{Override{Operation: "x", Status: 200, Match: Match{Body: []BodyMatch{{Pointer: "launch", Value: json.RawMessage(`1`)}}}}, `match.body[0].pointer: "launch" is not a JSON Pointer`},
		{Override{Operation: "x", Status: 200, Match: Match{Body: []BodyMatch{{Pointer: "/a"}}}}, "match.body[0].value: give a JSON value"},
	} {
		if _, err := tc.o.Prepare(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}

// The admin API's JSON: durations as text, unknown fields refused, and
// what is listed reads back as the same fault.
func TestFaultJSON(t *testing.T) {
	var f Fault
	if err := json.Unmarshal([]byte(`{"operation":"ListWorkflows","delay":"150ms","delayMax":"1s","status":503,"retryAfter":"30s","for":"10m","share":0.5}`), &f); err != nil {
		t.Fatal(err)
	}
	want := Fault{Operation: "ListWorkflows", Delay: 150 * time.Millisecond, DelayMax: time.Second, Status: 503,
		RetryAfter: 30 * time.Second, For: 10 * time.Minute, Share: 0.5}
	if f != want {
		t.Errorf("decoded %+v, want %+v", f, want)
	}
	p, err := f.Prepare(epoch)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	if !strings.Contains(string(b), `"until":"2026-03-01T12:10:00Z"`) || strings.Contains(string(b), `"for"`) {
		t.Errorf("a window given with for is kept with its end: %s", b)
	}
	var back Fault
	if err := json.Unmarshal(b, &back); err != nil || back != p {
		t.Errorf("read back %+v (%v), want %+v", back, err, p)
	}
	for _, bad := range []string{`{"status":503,"colour":"red"}`, `{"delay":"soon"}`} {
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
