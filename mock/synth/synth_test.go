package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// determinismSchemas are the schemas the determinism tests run on: the
// inline keyword spec always, the published list response when available.
func determinismSchemas(t *testing.T) map[string]*base.Schema {
	d := inlineDoc(t)
	out := map[string]*base.Schema{}
	for _, n := range []string{"Scalars", "Maps", "Tree", "Pet", "Shape"} {
		out[n] = componentSchema(t, d, n)
	}
	return out
}

func TestDeterminism(t *testing.T) {
	for name, s := range determinismSchemas(t) {
		t.Run(name, func(t *testing.T) {
			base := mustJSON(t, New(WithSeed(7)).value(bg, s, "GET /x", Response))
			tests := []struct {
				what string
				g    *Generator
				key  string
				same bool
			}{
				{"same seed and key, fresh generator", New(WithSeed(7)), "GET /x", true},
				{"different seed", New(WithSeed(8)), "GET /x", false},
				{"different key", New(WithSeed(7)), "GET /y", false},
			}
			for _, tc := range tests {
				got := mustJSON(t, tc.g.value(bg, s, tc.key, Response))
				if (got == base) != tc.same {
					t.Errorf("%s: same=%v, want %v\n%s\n%s", tc.what, got == base, tc.same, base, got)
				}
			}
		})
	}
}

// TestConcurrentUse generates from one cold generator on many goroutines
// and checks every result equals the sequential one (run with -race).
func TestConcurrentUse(t *testing.T) {
	schemas := determinismSchemas(t)
	want := map[string]string{}
	for name, s := range schemas {
		for i := 0; i < 4; i++ {
			key := fmt.Sprintf("%s/%d", name, i)
			want[key] = mustJSON(t, New().value(bg, s, key, Response))
		}
	}
	g := New()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name, s := range schemas {
				for i := 0; i < 4; i++ {
					key := fmt.Sprintf("%s/%d", name, i)
					got := mustJSON(t, g.Value(s, key, Response))
					mu.Lock()
					if got != want[key] {
						t.Errorf("%s: concurrent value differs", key)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
}

var (
	dateTimeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	dateRE     = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)
	uuidRE     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	emailRE    = regexp.MustCompile(`^[a-z.-]+@example\.com$`)
	idRE       = regexp.MustCompile(`^[0-9A-Za-z]{14}$`)
)

func TestFormats(t *testing.T) {
	s := componentSchema(t, inlineDoc(t), "Scalars")
	epoch := time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	num := func(v any) float64 {
		f, ok := jsonvalue.Number(v)
		if !ok {
			t.Fatalf("not a number: %T %v", v, v)
		}
		return f
	}
	checks := []struct {
		prop string
		ok   func(v any) bool
	}{
		{"when", func(v any) bool {
			s, _ := v.(string)
			ts, err := time.Parse(time.RFC3339, s)
			return dateTimeRE.MatchString(s) && err == nil && !ts.After(epoch) && ts.After(epoch.AddDate(-1, 0, -1))
		}},
		{"day", func(v any) bool { s, _ := v.(string); return dateRE.MatchString(s) }},
		{"token", func(v any) bool { s, _ := v.(string); return uuidRE.MatchString(s) }},
		{"contact", func(v any) bool { s, _ := v.(string); return emailRE.MatchString(s) }},
		{"id", func(v any) bool { s, _ := v.(string); return idRE.MatchString(s) }},
		{"runId", func(v any) bool { _, isInt := v.(int64); f := num(v); return isInt && f >= 1 && f < 1<<53 }},
		{"bigInt32", func(v any) bool {
			_, isInt := v.(int64)
			f := num(v)
			return isInt && f >= math.MinInt32 && f <= math.MaxInt32
		}},
		{"count", func(v any) bool { f := num(v); return f >= 10 && f <= 20 && math.Mod(f, 5) == 0 }},
		{"ratio", func(v any) bool { f := num(v); return f > 0 && f < 1 }},
		{"price", func(v any) bool { f := num(v); return f >= 1 && math.Mod(f*4, 1) == 0 }},
		{"step", func(v any) bool { f := num(v); return f >= 0.5 && f <= 0.6 }},
		{"short", func(v any) bool { s, _ := v.(string); return len(s) <= 3 }},
		{"code", func(v any) bool { s, _ := v.(string); return len(s) >= 30 && len(s) <= 32 }},
		{"fixed", func(v any) bool { return v == "fixed-value" }},
		{"status", func(v any) bool { return v == "SUBMITTED" || v == "RUNNING" || v == "SUCCEEDED" }},
		{"tags", func(v any) bool {
			a, _ := v.([]any)
			seen := map[any]bool{}
			for _, e := range a {
				seen[e] = true
			}
			return len(a) >= 2 && len(a) <= 4 && len(seen) == len(a)
		}},
		{"level", func(v any) bool {
			switch v {
			case int64(1), 2.5, true, "x":
				return true
			}
			return false
		}},
	}
	for seed := int64(0); seed < 50; seed++ {
		m := New(WithSeed(seed), WithEpoch(epoch)).value(bg, s, "formats", Response).(map[string]any)
		for _, c := range checks {
			v, present := m[c.prop]
			if !present {
				continue
			}
			if !c.ok(v) {
				t.Errorf("seed %d: %s = %#v", seed, c.prop, v)
			}
		}
	}
}

// TestTimestampsInOrder checks that an object's submit/start/complete and
// created/updated timestamps come in a sensible order.
func TestTimestampsInOrder(t *testing.T) {
	d := loadSpec(t, []byte(`
openapi: 3.1.0
info: {title: times, version: "1"}
paths: {}
components:
  schemas:
    Run:
      type: object
      required: [submit, start, complete, dateCreated, lastUpdated]
      properties:
        submit: {type: string, format: date-time}
        start: {type: string, format: date-time}
        complete: {type: string, format: date-time}
        dateCreated: {type: string, format: date-time}
        lastUpdated: {type: string, format: date-time}
`))
	s := componentSchema(t, d, "Run")
	at := func(m map[string]any, k string) time.Time {
		ts, err := time.Parse(time.RFC3339, m[k].(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	for seed := int64(0); seed < 50; seed++ {
		m := New(WithSeed(seed)).value(bg, s, "k", Response).(map[string]any)
		if at(m, "start").Before(at(m, "submit")) || at(m, "complete").Before(at(m, "start")) ||
			at(m, "lastUpdated").Before(at(m, "dateCreated")) || at(m, "complete").After(defaultEpoch) {
			t.Errorf("seed %d: out of order: %s", seed, mustJSON(t, m))
		}
	}
}

func TestID(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := ID(r)
		if !idRE.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
	if got := IDN(r, 22); len(got) != 22 {
		t.Fatalf("IDN(22) = %q", got)
	}
}

// TestHeuristics checks name-based values, and that a schema constraint
// overrides a heuristic that would break it.
func TestHeuristics(t *testing.T) {
	d := loadSpec(t, []byte(`
openapi: 3.1.0
info: {title: names, version: "1"}
paths: {}
components:
  schemas:
    Named:
      type: object
      required: [workflowId, runName, projectName, email, repository, orgId, tightName, description, cpus]
      properties:
        workflowId: {type: string}
        runName: {type: string}
        projectName: {type: string}
        email: {type: string}
        repository: {type: string}
        orgId: {type: integer, format: int64}
        tightName: {type: string, maxLength: 4}
        description: {type: string}
        cpus: {type: integer, maximum: 2}
`))
	s := componentSchema(t, d, "Named")
	want := map[string]*regexp.Regexp{
		"workflowId":  idRE,
		"runName":     regexp.MustCompile(`^[a-z]+_[a-z]+$`),
		"projectName": regexp.MustCompile(`^[a-z-]+/[a-z-]+$`),
		"email":       emailRE,
		"repository":  regexp.MustCompile(`^https://github\.com/[a-z-]+/[a-z-]+$`),
		"orgId":       regexp.MustCompile(`^[1-9]\d{12,14}$`),
		"tightName":   regexp.MustCompile(`^.{0,4}$`),
		"description": regexp.MustCompile(`^[A-Z].*\.$`),
		"cpus":        regexp.MustCompile(`^[12]$`),
	}
	for seed := int64(0); seed < 20; seed++ {
		m := New(WithSeed(seed)).value(bg, s, "k", Response).(map[string]any)
		for k, re := range want {
			if got := fmt.Sprint(m[k]); !re.MatchString(got) {
				t.Errorf("seed %d: %s = %q, want %s", seed, k, got, re)
			}
		}
	}
}
