package profile_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProfileIsData: the profile is data the fake and the judge both read,
// so it depends on neither of them, nor on the tools that write it
// (calibrate lives in conformance/calibrate). An import from here up to
// conformance or mock would make the two sides share code through it.
func TestProfileIsData(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list is not available here: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(pkg, "github.com/wmsmock/wmsmock/")
		if !ok || pkg == "github.com/wmsmock/wmsmock/profile" {
			continue
		}
		if !strings.HasPrefix(rest, "internal/") {
			t.Errorf("the profile package depends on %s: it should need only internal/ helpers", pkg)
		}
	}
}
