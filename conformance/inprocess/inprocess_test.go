package inprocess_test

import (
	"testing"

	"github.com/wmsmock/wmsmock/conformance"
	"github.com/wmsmock/wmsmock/mock/auth"
)

// The judge knows the fake's expired fixture token from the fake's
// documentation, not from its code; this keeps the two the same.
func TestFakeExpiredToken(t *testing.T) {
	if conformance.FakeExpiredToken != auth.ExpiredToken {
		t.Fatalf("conformance.FakeExpiredToken is %q, the fake holds %q", conformance.FakeExpiredToken, auth.ExpiredToken)
	}
}
