package resources

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/wmsmock/wmsmock/internal/workflow"
	"github.com/wmsmock/wmsmock/mock/apierror"
	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/mock/store"
	"github.com/wmsmock/wmsmock/profile"
)

// Every domain error a handler can return becomes the service's answer for
// it, and only through reply: change one mapping and a row here fails.
func TestReply(t *testing.T) {
	p := profile.Default()
	s := &Service{d: Deps{Profile: p}}
	internal := errors.New("disk on fire")
	for _, tc := range []struct {
		name   string
		err    error
		kind   apierror.Kind // 0: not an answer, left to the pipeline
		status int           // the reply's status, when it sets one
		msg    string
	}{
		{"missing", Fail(ErrMissing, "no workflow %q", "w1"), apierror.Forbidden, p.MissingResource.Status, `no workflow "w1"`},
		{"store not found", fmt.Errorf("reading: %w", store.ErrNotFound), apierror.Forbidden, p.MissingResource.Status, ""},
		{"token not found", auth.ErrNotFound, apierror.Forbidden, p.MissingResource.Status, ""},
		{"duplicate", Fail(ErrDuplicate, "A resource with name '%s' already exists", "x"), apierror.Conflict, http.StatusConflict, "A resource with name 'x' already exists"},
		{"duplicate token name", auth.ErrDuplicateName, apierror.Conflict, http.StatusConflict, ""},
		{"record exists", store.ErrExists, apierror.Conflict, http.StatusConflict, ""},
		{"bad input", Fail(ErrBadInput, "launch.pipeline is missing"), apierror.BadRequest, 0, "launch.pipeline is missing"},
		{"bad token name", auth.ErrInvalidName, apierror.BadRequest, 0, ""},
		{"bad status", fmt.Errorf("%w: NOPE", workflow.ErrInvalidStatus), apierror.BadRequest, 0, ""},
		{"anything else", internal, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.reply(tc.err)
			var ae *apierror.Error
			if !errors.As(got, &ae) {
				if tc.kind != 0 {
					t.Fatalf("reply(%v) = %v, want a %v answer", tc.err, got, tc.kind)
				}
				if got != tc.err {
					t.Errorf("an unknown error was changed to %v", got)
				}
				return
			}
			if ae.Kind != tc.kind {
				t.Fatalf("reply(%v): kind %v, want %v", tc.err, ae.Kind, tc.kind)
			}
			if tc.status != 0 && (ae.Reply == nil || ae.Reply.Status != tc.status) {
				t.Errorf("reply(%v): reply %+v, want status %d", tc.err, ae.Reply, tc.status)
			}
			if tc.msg != "" && ae.Reason != tc.msg {
				t.Errorf("reason %q, want %q", ae.Reason, tc.msg)
			}
		})
	}
	if s.reply(nil) != nil {
		t.Error("reply(nil) is not nil")
	}
}
