package conformance_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestJudgeIsIndependent: the judge shares no code with the fake it judges.
// It reads the document with the same rules (internal/oasdoc) but builds its
// own model, validates with libopenapi-validator itself and writes its own
// calls; nothing under mock/ is among its dependencies.
func TestJudgeIsIndependent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list is not available here: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/wmsmock/wmsmock/mock") {
			t.Errorf("the conformance package depends on %s", pkg)
		}
	}
}
