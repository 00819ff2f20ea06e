package mock

import (
	"errors"
	"net/http"

	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/control"
	"github.com/wmsmock/wmsmock/mock/faults"
	"github.com/wmsmock/wmsmock/profile"
)

// The doors onto the rules of a running fake: Server.AddFault and
// AddOverride for Go tests, and the admin API's (admin.go), both checked
// as the rules pinned at start are (faults.go).

// AddFault has the fake inject f from its next call. The error wraps
// faults.ErrInvalid for a rule it cannot use (and names why), or is the
// rule store's (Redis) failure.
func (s *Server) AddFault(f faults.Fault) (*Rule, error) {
	e, err := s.addFault(f, faults.SourceLibrary)
	if err != nil {
		return nil, err
	}
	return &Rule{store: s.backend.Faults(), id: e.ID}, nil
}

// AddOverride pins o from the fake's next call. An answer the operation
// does not document is refused unless o.Deliberate.
func (s *Server) AddOverride(o faults.Override) (*Rule, error) {
	e, err := s.addOverride(o, faults.SourceLibrary)
	if err != nil {
		return nil, err
	}
	return &Rule{store: s.backend.Faults(), id: e.ID}, nil
}

func (s *Server) addFault(f faults.Fault, source string) (faults.Entry, error) {
	if err := s.clock.Sync(); err != nil {
		return faults.Entry{}, err
	}
	f, err := prepareFault(f, &s.versions, s.clock.Now())
	if err != nil {
		return faults.Entry{}, err
	}
	return faults.AddFault(s.backend.Faults(), f, source)
}

func (s *Server) addOverride(o faults.Override, source string) (faults.Entry, error) {
	o, err := prepareOverride(o, &s.versions)
	if err != nil {
		return faults.Entry{}, err
	}
	return faults.AddOverride(s.backend.Faults(), o, source)
}

// refuseRule answers a rule the admin API cannot take: a Bad Request
// with an Error ID whose message says why (the reason is also in the
// error journal), or the internal-error reply when the rule store failed.
func (s *Server) refuseRule(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, faults.ErrInvalid) || errors.Is(err, control.ErrInvalid) {
		reply := profile.Reply{Status: http.StatusBadRequest, Body: profile.BodyMessage, Message: err.Error()}
		s.errors.Write(w, r, apierror.BadRequestf("%s", err.Error()).WithReply(reply))
		return
	}
	s.errors.Write(w, r, &apierror.Error{Kind: apierror.Internal, Reason: "fault rules", Cause: err})
}
