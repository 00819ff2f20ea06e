package schemadiff_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestIndependentOfTheFake: like the rest of the judge, the comparison
// imports nothing of the fake (its tests may run it).
func TestIndependentOfTheFake(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list is not available here: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/wmsmock/wmsmock/mock") {
			t.Errorf("package schemadiff depends on %s", pkg)
		}
	}
}
