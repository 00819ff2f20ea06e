package mock

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/mock/spec"
	"github.com/wmsmock/wmsmock/profile"
)

// requestPolicy is the profile's requests section as the body reader
// takes it.
func requestPolicy(p *profile.Profile) leniency.Policy {
	r := p.Requests
	return leniency.Policy{
		NullsAsAbsent: r.NullsAsAbsent, ScalarsAsStrings: r.ScalarsAsStrings, StringsAsNumbers: r.StringsAsNumbers,
		InferDiscriminator: r.InferDiscriminator, ObjectsAsAny: r.ObjectsAsAny,
		RequiredExceptions: r.RequiredExceptions, Strict: r.Strict,
	}
}

// readLeniently is the pipeline's leniency step: the body as the service's
// JSON layer reads it, which is what the validator checks and the handler
// gets. What the profile tolerates is kept on the call's progress for the
// request journal and the log; what it refuses is a Bad Request whose
// Error ID leads to each deviation.
func (s *Server) readLeniently(r *http.Request, a *api, op *spec.Operation, body []byte, prog *progress) ([]byte, error) {
	res := a.lenient.Read(op, r.Header.Get("Content-Type"), body)
	if len(res.Tolerated)+len(res.Refused) == 0 {
		return res.Body, nil
	}
	prog.deviations = append(append([]leniency.Deviation{}, res.Refused...), res.Tolerated...)
	prog.moreDeviations = res.More
	if len(res.Refused) == 0 {
		return res.Body, nil
	}
	why := "the profile refuses"
	if s.profile.Requests.Strict {
		why = "strict mode refuses"
	}
	lines := make([]string, len(res.Refused))
	for i, d := range res.Refused {
		lines[i] = d.String()
	}
	err := apierror.BadRequestf("%s: the body differs from the document where the service would read it, and %s it: %s",
		op.ID, why, strings.Join(lines, "; "))
	err.Deviations = res.Refused
	return nil, err
}

// logDeviations writes, at debug level, what a call's body was tolerated.
func (s *Server) logDeviations(r *http.Request, prog *progress) {
	if len(prog.deviations) == 0 || !s.logger.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	lines := make([]string, len(prog.deviations))
	for i, d := range prog.deviations {
		lines[i] = d.String()
	}
	s.logger.Log(context.Background(), slog.LevelDebug, "request body deviates from the document",
		"method", r.Method, "path", r.URL.Path, "operation", prog.operation(),
		"deviations", strings.Join(lines, "; "), "more", prog.moreDeviations)
}
