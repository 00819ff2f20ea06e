// Package apierror is the one place where a failed call becomes an HTTP
// answer. Handlers and pipeline stages return an *Error describing what went
// wrong and why; Writer turns it into the status, headers and body the
// service gives, mints the Error ID, logs the reason and keeps it in a
// journal a developer can query, since the real service never says why.
package apierror

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/wmsmock/wmsmock/mock/leniency"
	"github.com/wmsmock/wmsmock/profile"
)

// Kind is the class of failure; each class has one answer shape.
type Kind int

// The failures the service is known to answer.
const (
	// Forbidden covers a missing, malformed, unknown, revoked or expired
	// token, an unknown path or method, and a resource that does not exist
	// (CONTRACT A3, A4). Its body is empty by default.
	Forbidden Kind = iota + 1
	// BadRequest covers anything wrong with the request itself: parameters,
	// body, size, version (CONTRACT E1). The body carries an Error ID.
	BadRequest
	// TooManyRequests is a call over the token's rate limit.
	TooManyRequests
	// Conflict is a create that clashes with an existing record, such as a
	// token name already in use.
	Conflict
	// Internal is a failure inside the fake itself.
	Internal
	// ClientClosed is a call whose client went away before its answer:
	// nobody reads the answer, so it is not a failure of the fake (no
	// Error ID, not logged as an error). It is recorded as 499, the status
	// proxies use for it (nginx's "client closed request"), as the
	// recording proxy does.
	ClientClosed
	// Injected is a failure the fake was asked to give (mock/faults): an
	// answer chosen on purpose, so it is logged as information, not as
	// the fake failing. Its Reason names the rule.
	Injected
)

// StatusClientClosed is the status recorded for a call whose client went
// away; no client ever receives it.
const StatusClientClosed = 499

func (k Kind) String() string {
	switch k {
	case Forbidden:
		return "forbidden"
	case BadRequest:
		return "bad_request"
	case TooManyRequests:
		return "too_many_requests"
	case Conflict:
		return "conflict"
	case Internal:
		return "internal"
	case ClientClosed:
		return "client_closed"
	case Injected:
		return "injected"
	}
	return "unknown"
}

// Error is a failed call: what kind of failure, and the reason behind it.
// The reason is for the developer (log and journal), never for the body.
type Error struct {
	Kind   Kind
	Reason string
	// Header holds extra response headers, such as the rate-limit ones.
	Header http.Header
	// Reply is how to answer, chosen by the stage that failed from the
	// behaviour profile (an expired token and an unknown path may be
	// answered differently). Nil means the writer's default for Kind.
	Reply *profile.Reply
	// Values fill the reply's placeholders other than the Error ID (the
	// seconds to wait, for a rate-limit refusal), keyed by placeholder.
	Values map[string]string
	// Cause is the underlying error, if any.
	Cause error
	// Deviations are the places a refused body differs from the document
	// (mock/leniency), kept with the Error ID so the developer sees each.
	Deviations []leniency.Deviation
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Reason, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Reason)
}

func (e *Error) Unwrap() error { return e.Cause }

// New returns an error of the given kind with a formatted reason.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

// Forbiddenf is a 403 with the reason it was given.
func Forbiddenf(format string, args ...any) *Error { return New(Forbidden, format, args...) }

// BadRequestf is a Bad Request with the reason it was given.
func BadRequestf(format string, args ...any) *Error { return New(BadRequest, format, args...) }

// Conflictf is a clash with an existing record; message is sent to the
// client, followed by an Error ID like every other error message.
func Conflictf(message string) *Error {
	return &Error{Kind: Conflict, Reason: message,
		Reply: &profile.Reply{Status: http.StatusConflict, Body: profile.BodyMessage, Message: message}}
}

// WithReply sets how the error is answered and returns it.
func (e *Error) WithReply(r profile.Reply) *Error {
	e.Reply = &r
	return e
}

// Wrap turns any error into an *Error: errors that already are one pass
// through, anything else is an internal failure.
func Wrap(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: Internal, Reason: "unexpected error", Cause: err}
}
