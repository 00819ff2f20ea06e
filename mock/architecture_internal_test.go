package mock

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryStage: docs/architecture.md lists the
// pipeline's stages as stageNames names them, in order, so a stage added
// to the pipeline without its line in the docs fails here.
func TestArchitectureNamesEveryStage(t *testing.T) {
	b, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	at := 0
	for i, name := range stageNames {
		line := "\n" + strconv.Itoa(i+1) + ". " + name + "\n"
		j := strings.Index(doc[at:], line)
		if j < 0 {
			t.Fatalf("docs/architecture.md has no line %q after the stages before it", strings.TrimSpace(line))
		}
		at += j + len(line) - 1
	}
}
