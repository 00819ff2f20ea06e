package runs

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
	"github.com/wmsmock/wmsmock/mock/fit"
	"github.com/wmsmock/wmsmock/mock/resources"
	"github.com/wmsmock/wmsmock/mock/spec"
)

// Values a client reports (Nextflow's trace calls) are read tolerantly:
// the service accepts nulls, numbers where its schema says text, and
// dates in any offset (CONTRACT.md, last section), so a handler here never
// fails on them, whatever the validation stage in front of it let through.

// normalizeReported prepares a reported value for keeping and showing, by the
// request schema s: nulls are dropped (a null says "no value"), numbers
// and booleans where s expects text become text (Nextflow sends its build
// number and a task's native id as numbers), and date-times are written
// as the service writes them (CONTRACT T2), whether they came as text in
// any offset, without seconds (Java's OffsetDateTime leaves out zero
// seconds) or as epoch milliseconds. What s does not describe is kept as
// it came. v is changed in place where it is an object or a list.
func normalizeReported(s *spec.Schema, v any, depth int) any {
	if s == nil || depth > fit.MaxDepth*2 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if !s.DeclaresProps() {
			return x // free-form (a run's parameters): kept as reported
		}
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = normalizeReported(s.Prop(k), e, depth+1)
		}
		return x
	case []any:
		it := s.Items()
		kept := x[:0]
		for _, e := range x {
			if e != nil {
				kept = append(kept, normalizeReported(it, e, depth+1))
			}
		}
		return kept
	}
	if !s.HasType(spec.String) {
		return v
	}
	if s.Format == "date-time" {
		if t, ok := timeOf(v); ok {
			return resources.Stamp(t)
		}
		return v
	}
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return v
}

// textOf reads a reported value as text: a string as it is, a number or a
// boolean as written; anything else (null, an object) is "".
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// floatOf reads a reported value as a number, from a number or text.
func floatOf(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, err == nil
	}
	return jsonvalue.Number(v)
}

// boolOf reads a reported boolean, also from the text true or false.
func boolOf(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		b, err := strconv.ParseBool(x)
		return b, err == nil
	}
	return false, false
}

// reportedTimeLayouts are the forms a reported time comes in: RFC 3339
// with or without fractions, and Java's OffsetDateTime text, which leaves
// out seconds that are zero.
var reportedTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04"}

// timeOf reads a reported time, from text or from epoch milliseconds,
// in UTC.
func timeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range reportedTimeLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), true
			}
		}
	case json.Number:
		if ms, err := x.Int64(); err == nil {
			return time.UnixMilli(ms).UTC(), true
		}
	}
	return time.Time{}, false
}

// textsOf reads a reported list of names, keeping the non-empty ones.
func textsOf(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s := textOf(e); s != "" {
			out = append(out, s)
		}
	}
	return out
}
