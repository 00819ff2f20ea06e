package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// CI runs every test under -race, where the published-schema halves of
// many tests skip or check a sample (they would take minutes); those
// tests must then also run whole without -race, in .ci/run's list of
// sweeps, or nothing in CI checks their other half. A test is such a test
// when its body reads testenv.RaceEnabled or goes through one of the
// helpers that do (onDocuments, sample, wholeRunOnly); the sweeps' go test
// must also be given its package.
func TestCIRunsWhatRaceSkips(t *testing.T) {
	root := testenv.RepoRoot(t)
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`Test[A-Za-z0-9_]+`).FindAllString(string(ci), -1) {
		listed[m] = true
	}
	// Tests that only check less under -race and whose whole run adds no
	// coverage of its own worth CI's time: more random documents, rounds
	// or goroutines of the same check.
	fewer := map[string]bool{
		"TestRandomComposedSchemas": true, // 30 random documents instead of 300
		"TestConcurrentUse":         true, // auth: fewer goroutines
	}
	marks := regexp.MustCompile(`\bRaceEnabled\b|\bonDocuments\(|\bsample\(|\bwholeRunOnly\(`)
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			body := string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset])
			name := fn.Name.Name
			if !marks.MatchString(body) || fewer[name] {
				continue
			}
			rel, _ := filepath.Rel(root, path)
			if !listed[name] {
				t.Errorf("%s (%s) checks less under -race, and .ci/run does not run it without", name, rel)
			} else if pkg := "./" + filepath.ToSlash(filepath.Dir(rel)) + "/"; !strings.Contains(string(ci), " "+pkg) {
				// Listed by name, but go test is not given its package: the
				// sweep would match nothing there and pass.
				t.Errorf("%s is in .ci/run's sweeps, but its package %s is not", name, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCIBuildFlagsNameThisModule: .ci/run builds this module's packages
// without inlining and DWARF (its comment says why), and docs/development.md
// gives developers the same setting. Both name the packages by the module
// path; a path that no longer matches (a renamed module, a typo) would
// silently build everything as before, and CI would go back over its
// budget without a failing line.
func TestCIBuildFlagsNameThisModule(t *testing.T) {
	root := testenv.RepoRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no module line")
	}
	want := "-gcflags=" + string(m[1]) + "/...=-l -dwarf=false"
	for _, file := range []string{".ci/run", "docs/development.md"} {
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		var flags []string
		for _, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "GOFLAGS=") && strings.Contains(line, "-gcflags=") {
				flags = append(flags, line)
			}
		}
		if len(flags) == 0 {
			t.Errorf("%s sets no GOFLAGS with -gcflags", file)
		}
		for _, line := range flags {
			if !strings.Contains(line, want) {
				t.Errorf("%s: %q does not hold %q", file, line, want)
			}
		}
	}
}
