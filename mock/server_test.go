package mock

import (
	"testing"

	"github.com/wmsmock/wmsmock/mock/auth"
	"github.com/wmsmock/wmsmock/profile"
)

// Each failed bearer check is refused with its own profile entry, so a
// profile that sets one of them apart changes that case only.
func TestAuthReply(t *testing.T) {
	p := profile.Default()
	p.Auth.Expired.Status = 401
	p.Auth.Missing.Status = 402
	for r, want := range map[auth.Result]int{auth.Missing: 402, auth.BadScheme: 403, auth.Malformed: 403,
		auth.Unknown: 403, auth.Expired: 401, auth.Revoked: 403} {
		if got := authReply(&p.Auth, r); got.Status != want {
			t.Errorf("authReply(%v) = %+v; want status %d", r, got, want)
		}
	}
}
