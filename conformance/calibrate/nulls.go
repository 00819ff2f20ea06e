package calibrate

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/profile"
)

// nullProbes are the answers the nulls probe reads: what the caller is and
// what it has run, which every account can read and which describe records
// the service holds, so a server with the habit shows it there.
var nullProbes = []string{"/user-info", "/workflow?max=20"}

// answerNulls tells whether the target's answers carry the service's nulls
// (profile answers.nulls): null for a property the schema declares, does
// not require and does not make nullable (service), or such properties
// left out (omit). Only the schema can tell such a null from one it allows,
// so without a document (Options.Document) the point is left open.
func (p *prober) answerNulls(ctx context.Context) error {
	if p.o.Document == nil {
		p.note("answers.nulls not probed: telling the service's nulls from those the schema allows needs the schema (--spec)")
		return nil
	}
	var nulls []conformance.Habit
	var absent []string
	for _, path := range nullProbes {
		a, err := p.call(ctx, "GET", path, withToken, nil, nil)
		if err != nil {
			return err
		}
		if a.status != http.StatusOK {
			continue
		}
		r, err := p.o.Document.ReadNulls("GET", path, a.status, a.header, a.body)
		if err != nil {
			p.note("answers.nulls: GET %s: %v", path, err)
			continue
		}
		nulls = append(nulls, r.Nulls...)
		for _, at := range r.Absent {
			absent = append(absent, "GET "+strings.SplitN(path, "?", 2)[0]+" "+at)
		}
	}
	read := "GET " + strings.Join(nullProbes, " and GET ")
	switch {
	case len(nulls) > 0:
		count := 0
		for _, h := range nulls {
			count += h.Count
		}
		p.find("answers.nulls", profile.NullsService, fmt.Sprintf("%s: %d nulls where the schema has a non-nullable property, e.g. %s",
			read, count, examples(nulls, 3)))
	case len(absent) > 0:
		p.find("answers.nulls", profile.NullsOmit, fmt.Sprintf("%s: no null where the schema has a non-nullable property, and %d properties it declares left out, e.g. %s",
			read, len(absent), strings.Join(absent[:min(3, len(absent))], ", ")))
	default:
		p.note("answers.nulls not settled: %s carry every property the schema declares, none of them null", read)
	}
	return nil
}

func examples(habits []conformance.Habit, n int) string {
	var out []string
	for _, h := range habits[:min(n, len(habits))] {
		out = append(out, h.String())
	}
	return strings.Join(out, ", ")
}
