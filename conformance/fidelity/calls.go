package fidelity

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
)

// Difference is one place where the two servers' answers to a scenario's
// calls differ: the call, where in its answer, and what each server sent
// there.
type Difference struct {
	// Call is the call's number in the scenario (from 1), and Request how
	// the first server was called ("GET /workflow/4Jk2").
	Call    int    `json:"call"`
	Request string `json:"request"`
	// Where is "status", "header NAME", "body" (an answer that is not
	// JSON), "call" (a call only one server got), or a JSON Pointer into
	// the body ("/workflow/errorMessage"; "" is the whole body).
	Where string `json:"where"`
	// A and B are what each server sent there: the value as JSON (cut
	// short), "absent", or a status.
	A string `json:"a"`
	B string `json:"b"`
}

func (d Difference) String() string {
	return fmt.Sprintf("call %d (%s): %s: %s against %s", d.Call, d.Request, d.Place(), d.A, d.B)
}

// Place says where the difference is in words: "status", "header NAME",
// or "body at /pointer".
func (d Difference) Place() string {
	switch {
	case d.Where == "":
		return "the whole body"
	case strings.HasPrefix(d.Where, "/"):
		return "body at " + d.Where
	}
	return d.Where
}

// Bounds on what a scenario's comparison lists (it still disagrees
// beyond them).
const (
	maxDiffsPerCall     = 10
	maxDiffsPerScenario = 30
)

// absent stands for a value one server did not send.
const absent = "absent"

// compareCalls compares the calls two runs of a scenario made, and lists
// where their answers differ; none means they agree. Calls are paired by
// kind, not by order, since a burst's answers arrive in any order: each of
// the first run's calls with the first of the second's that answered alike,
// and what is left over in order, which is where the differences are
// named. nullsAbsent says that a property sent as null and one left out
// are the same answer (the profile's answers.nulls: omit).
func compareCalls(a, b []conformance.Call, nullsAbsent bool) []Difference {
	used := make([]bool, len(b))
	var left []int // the first run's calls without a partner that agrees
	for i, ca := range a {
		found := false
		for j, cb := range b {
			if !used[j] && ca.Method == cb.Method && len(callDiffs(ca, cb, nullsAbsent)) == 0 {
				used[j], found = true, true
				break
			}
		}
		if !found {
			left = append(left, i)
		}
	}
	var out []Difference
	add := func(ds []Difference) {
		for _, d := range ds {
			if len(out) < maxDiffsPerScenario {
				out = append(out, d)
			}
		}
	}
	for _, i := range left {
		ca := a[i]
		j := -1
		for k := range b { // the first unpaired call of the same method
			if !used[k] && b[k].Method == ca.Method {
				j = k
				break
			}
		}
		if j < 0 {
			add([]Difference{{Call: i + 1, Request: request(ca), Where: "call", A: answered(ca), B: "no such call"}})
			continue
		}
		used[j] = true
		ds := callDiffs(ca, b[j], nullsAbsent)
		for k := range ds {
			ds[k].Call, ds[k].Request = i+1, request(ca)
		}
		add(ds)
	}
	for j, cb := range b {
		if !used[j] {
			add([]Difference{{Call: len(a) + 1, Request: request(cb), Where: "call", A: "no such call", B: answered(cb)}})
		}
	}
	return out
}

func request(c conformance.Call) string { return c.Method + " " + c.Path }

func answered(c conformance.Call) string { return fmt.Sprintf("%s answered %d", request(c), c.Status) }

// callDiffs lists where two answers differ in kind: the status, the
// headers a client acts on, and the body's fields, whatever the values.
func callDiffs(x, y conformance.Call, nullsAbsent bool) []Difference {
	var out []Difference
	if x.Status != y.Status {
		out = append(out, Difference{Where: "status", A: fmt.Sprint(x.Status), B: fmt.Sprint(y.Status)})
	}
	for _, h := range union(x.Headers, y.Headers) {
		hx, hy := slices.Contains(x.Headers, h), slices.Contains(y.Headers, h)
		if hx != hy {
			out = append(out, Difference{Where: "header " + h, A: presence(hx), B: presence(hy)})
		}
	}
	// Answers of different statuses are different kinds of answer: their
	// bodies are shown whole rather than field by field.
	if x.Fields == nil || y.Fields == nil || x.Status != y.Status {
		if x.Shape != y.Shape {
			out = append(out, Difference{Where: "body", A: x.Shape, B: y.Shape})
		}
		return out
	}
	ds := fieldDiffs(x.Fields, y.Fields, nullsAbsent)
	if len(ds) > maxDiffsPerCall {
		ds = ds[:maxDiffsPerCall]
	}
	return append(out, ds...)
}

func presence(b bool) string {
	if b {
		return "present"
	}
	return absent
}

// fieldDiffs compares two flattened bodies (conformance.Call.Fields). Two
// values differ when their kinds do, except that null goes with any kind
// (one record has no value where another has one: data, not structure),
// and a container that is empty, or was not followed deeper, goes with
// whatever the other has inside it. A value only one body has differs,
// unless nulls count as absent (left out is then null, and goes with
// anything), or the other body has null or such a container above it.
func fieldDiffs(fa, fb map[string]string, nullsAbsent bool) []Difference {
	ptrs := make([]string, 0, len(fa)+len(fb))
	for p := range fa {
		ptrs = append(ptrs, p)
	}
	for p := range fb {
		if _, ok := fa[p]; !ok {
			ptrs = append(ptrs, p)
		}
	}
	sort.Strings(ptrs)
	var out []Difference
	reported := map[string]bool{}
	for _, p := range ptrs {
		va, oka := fa[p]
		vb, okb := fb[p]
		switch {
		case oka && okb:
			if ka, kb := conformance.FieldKind(va), conformance.FieldKind(vb); ka != kb && ka != "null" && kb != "null" {
				out = append(out, Difference{Where: p, A: va, B: vb})
			}
		case oka:
			if d, ok := oneSided(p, va, fb, nullsAbsent, reported); ok {
				out = append(out, d)
			}
		default:
			if d, ok := oneSided(p, vb, fa, nullsAbsent, reported); ok {
				d.A, d.B = d.B, d.A
				out = append(out, d)
			}
		}
	}
	return out
}

// oneSided judges a value at p that only one body has; other is the other
// body. The difference is given as (this body, other body), and is named
// once at the other body's value above p when there is one.
func oneSided(p, v string, other map[string]string, nullsAbsent bool, reported map[string]bool) (Difference, bool) {
	for q := parent(p); ; q = parent(q) {
		if ov, ok := other[q]; ok {
			switch conformance.FieldKind(ov) {
			case "null", "object", "array":
				return Difference{}, false
			}
			if reported[q] {
				return Difference{}, false
			}
			reported[q] = true
			return Difference{Where: q, A: "an object or array", B: ov}, true
		}
		if q == "" {
			break
		}
	}
	// Null, or a container the other body has members under: the other
	// has a record where this one has none, or more of it.
	switch conformance.FieldKind(v) {
	case "null", "object", "array":
		for q := range other {
			if strings.HasPrefix(q, p+"/") {
				return Difference{}, false
			}
		}
	}
	if nullsAbsent { // left out is null, and null goes with anything
		return Difference{}, false
	}
	return Difference{Where: p, A: v, B: absent}, true
}

// parent is the JSON Pointer above p ("" above a top-level member).
func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}
