package mock

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryStage: the "Stages" section of
// docs/architecture.md lists the pipeline's stages as the pipeline table
// (pipeline.go) has them, in order, each with the file that holds it, and
// no other: a stage added, removed, renamed or moved to another file
// without its line in the docs fails here.
func TestArchitectureNamesEveryStage(t *testing.T) {
	b, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	section := stagesSection(t, string(b))
	var numbered []string
	for _, line := range strings.Split(section, "\n") {
		if n, _, ok := strings.Cut(line, ". "); ok {
			if _, err := strconv.Atoi(n); err == nil {
				numbered = append(numbered, line)
			}
		}
	}
	for i, st := range pipeline {
		want := strconv.Itoa(i+1) + ". **" + st.name + "** (`mock/" + stageFile(t, st) + "`)"
		if i >= len(numbered) {
			t.Errorf("docs/architecture.md lists %d stages; the pipeline's stage %d is %q, in mock/%s: want a line starting %q",
				len(numbered), i+1, st.name, stageFile(t, st), want)
			continue
		}
		if !strings.HasPrefix(numbered[i], want) {
			t.Errorf("docs/architecture.md's stage %d is %q; want a line starting %q", i+1, numbered[i], want)
		}
	}
	if len(numbered) > len(pipeline) {
		t.Errorf("docs/architecture.md lists %d stages, the pipeline has %d: %q", len(numbered), len(pipeline), numbered[len(pipeline):])
	}
}

// stagesSection is the text under the "## Stages" heading, up to the next
// heading of its level.
func stagesSection(t *testing.T, doc string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## Stages\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Stages" section`)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// stageFile is the file (in mock/) that defines a stage's method.
func stageFile(t *testing.T, st stage) string {
	t.Helper()
	fn := runtime.FuncForPC(reflect.ValueOf(st.run).Pointer())
	if fn == nil {
		t.Fatalf("stage %q: no function", st.name)
	}
	file, _ := fn.FileLine(fn.Entry())
	return filepath.Base(file)
}

// TestEveryStageRuns: the pipeline table, indexed by the stage constants,
// has no gap a constant added without its entry would leave.
func TestEveryStageRuns(t *testing.T) {
	for i, st := range pipeline {
		if st.name == "" || st.run == nil {
			t.Errorf("pipeline[%d] is empty: a stage constant without its entry in the table", i)
		}
	}
}
