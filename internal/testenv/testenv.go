// Package testenv finds the files tests share with the development
// workspace, such as the service's published schema, which lives beside the
// repository (in ../shared) and is never copied into it.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the directory holding go.mod, walking up from the
// working directory of the test.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// PublishedSpec returns the path of a published schema in ../shared/specs
// (name "" means the current one, seqera-api-cloud.yaml), or skips the test
// with the reason when the workspace does not have it, as on a user's
// machine.
func PublishedSpec(t testing.TB, name string) string {
	t.Helper()
	if name == "" {
		name = "seqera-api-cloud.yaml"
	}
	path := filepath.Join(RepoRoot(t), "..", "shared", "specs", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("published schema not found at %s: this check runs only in the wmsmock development workspace", path)
	}
	return path
}
