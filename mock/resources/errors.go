package resources

import (
	"errors"
	"fmt"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/handler"
	"github.com/wmsmock/wmsmock/mock/store"
)

// Handlers report what went wrong as domain errors: one of the kinds below
// (through fail) or a store's own sentinel. reply turns them into the
// service's answers, in this one place.
var (
	// ErrMissing: the call names something the fake does not hold (or not
	// in the workspace asked for). The service answers 403, with the
	// profile's missing-resource reply.
	ErrMissing = errors.New("missing")
	// ErrDuplicate: a name that must be unique is taken; 409, with the
	// message shown to the client.
	ErrDuplicate = errors.New("duplicate")
	// ErrBadInput: the request passed the document's checks but still
	// cannot be acted on; 400, with the message shown to the client.
	ErrBadInput = errors.New("bad input")
	// ErrActive: the call would delete a run that has not ended, without
	// force; answered with the profile's delete_active reply.
	ErrActive = errors.New("active")
)

// ErrUnchanged, returned by an update's change, leaves the record as it
// was without failing the call.
var ErrUnchanged = errors.New("unchanged")

// failure is a domain error of one kind with its message.
type failure struct {
	kind error
	msg  string
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.kind }

// Fail returns an error of kind (ErrMissing, ErrDuplicate, ErrBadInput).
func Fail(kind error, format string, args ...any) error {
	return &failure{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// reply maps a handler's error to the answer the service gives; an error
// of no known kind stays as it is, and the pipeline answers it as an
// internal error.
func (s *Service) reply(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case errors.Is(err, ErrMissing), errors.Is(err, store.ErrNotFound), errors.Is(err, auth.ErrNotFound):
		return apierror.Forbiddenf("%s", msg).WithReply(s.d.Profile.MissingResource)
	case errors.Is(err, ErrDuplicate), errors.Is(err, auth.ErrDuplicateName), errors.Is(err, store.ErrExists):
		return apierror.Conflictf(msg)
	case errors.Is(err, ErrActive):
		return apierror.BadRequestf("%s", msg).WithReply(s.d.Profile.Workflows.DeleteActive)
	case errors.Is(err, ErrBadInput), errors.Is(err, auth.ErrInvalidName), errors.Is(err, workflow.ErrInvalidStatus):
		return apierror.BadRequestf("%s", msg)
	}
	return err
}

// replying wraps a handler so its errors leave through reply.
func (s *Service) replying(h handler.Func) handler.Func {
	return func(req *handler.Request) (*handler.Response, error) {
		s.SyncRefs()                                // refs.go
		if err := s.checkContext(req); err != nil { // held.go
			return nil, s.reply(err)
		}
		resp, err := h(req)
		if err == nil && resp != nil && resp.Body != nil {
			sch := SuccessSchema(req.Op)
			s.copyIn(sch, resp.Body, req.Now, 0, 0) // copies.go
			s.fit.Complete(sch, resp.Body)          // complete.go
		}
		return resp, s.reply(err)
	}
}
