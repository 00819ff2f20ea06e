package oasdoc

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/pb33f/libopenapi/datamodel"
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/fixtures"
	"github.com/wmsmock/wmsmock/internal/testenv"
)

// sameAsOneParse fails t unless parsing b in halves gave what one parse
// of b gives: every node with its lines, columns, styles and comments, and
// the document's facts.
func sameAsOneParse(t *testing.T, b []byte, halves *datamodel.SpecInfo) {
	t.Helper()
	one, err := datamodel.ExtractSpecInfoWithConfig(b, documentConfig())
	if err != nil {
		t.Fatalf("the halves parsed, one parse fails: %v", err)
	}
	if diff := nodeDiff("", one.RootNode, halves.RootNode); diff != "" {
		t.Fatalf("halves differ from one parse: %s", diff)
	}
	type facts struct {
		Type, Version, Format, FileType string
		Lines, Indent                   int
		Bytes                           int
	}
	fa := func(i *datamodel.SpecInfo) facts {
		return facts{i.SpecType, i.Version, i.SpecFormat, i.SpecFileType, i.NumLines, i.OriginalIndentation, len(*i.SpecBytes)}
	}
	if a, b := fa(one), fa(halves); a != b {
		t.Fatalf("document facts: one parse %+v, halves %+v", a, b)
	}
}

// nodeDiff describes the first difference between two node trees.
func nodeDiff(path string, a, b *yaml.Node) string {
	if a == nil || b == nil {
		if a != b {
			return path + ": one side has no node"
		}
		return ""
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment {
		return fmt.Sprintf("%s: %+v against %+v", path, *a, *b)
	}
	if len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s (line %d): %d children against %d", path, a.Line, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := nodeDiff(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return nodeDiff(path+"/*", a.Alias, b.Alias)
}

// TestHalvesParseAsOne: the published schema, cut where parseInfo cuts
// it, gives the tree one parse gives, node for node.
func TestHalvesParseAsOne(t *testing.T) {
	b, err := os.ReadFile(testenv.PublishedSpec(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	at, line := cutPoint(b)
	if at < len(b)/4 || at > len(b)*3/4 {
		t.Fatalf("cut at byte %d of %d (line %d): less than a quarter on one side", at, len(b), line)
	}
	info := parseHalves(b, at, line, documentConfig())
	if info == nil {
		t.Fatal("the halves were refused")
	}
	sameAsOneParse(t, b, info)
}

// TestHalvesLineEndings: the embedded document, made cuttable at
// components (it has a blank line above it), parses in halves as in one
// piece with Unix and Windows line ends and behind a byte-order mark; so
// this runs where the published schema is absent.
func TestHalvesLineEndings(t *testing.T) {
	lf := bytes.Replace(fixtures.OpenAPI(), []byte("\n\ncomponents:\n"), []byte("\ncomponents:\n"), 1)
	variants := map[string][]byte{
		"lf":   lf,
		"crlf": bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n")),
		"bom":  append([]byte("\ufeff"), lf...),
	}
	for name, b := range variants {
		t.Run(name, func(t *testing.T) {
			at, line := cutPoint(b)
			if !bytes.HasPrefix(b[at:], []byte("components:")) {
				t.Fatalf("cut at line %d, not at components", line)
			}
			info := parseHalves(b, at, line, documentConfig())
			if info == nil {
				t.Fatal("the halves were refused")
			}
			sameAsOneParse(t, b, info)
		})
	}
}

// TestHalvesRefused: each document here would parse differently, or fail
// differently, if cut; either cutPoint finds no cut in it ("cut") or
// parseHalves refuses the halves ("join"), and parseInfo's single parse
// gives libopenapi's own answer.
func TestHalvesRefused(t *testing.T) {
	// paths, after a blank line, is no cut point: components is.
	head := "openapi: 3.0.3\ninfo:\n  title: t\n  version: \"1\"\n\n"
	cases := []struct{ name, stage, doc string }{
		{"alias to an anchor of the head", "join", head + "paths:\n  /a: &op\n    get: {}\ncomponents:\n  x: *op\n"},
		{"a key in both halves", "join", head + "paths:\n  /a: {}\ncomponents:\n  schemas: {}\ninfo:\n  title: u\n"},
		{"openapi again in the tail", "join", head + "paths:\n  /a: {}\ncomponents:\n  schemas: {}\nopenapi: 3.1.0\n"},
		{"a malformed tail", "join", head + "paths:\n  /a: {}\ncomponents:\n  schemas: [\n"},
		{"a duplicate in the tail", "join", head + "paths:\n  /a: {}\ncomponents:\n  schemas: {}\n  schemas: {}\n"},
		{"a quoted key at the top", "cut", head + "paths:\n  /a: {}\n\"components\":\n  schemas: {}\n"},
		{"an anchor at the top", "cut", head + "paths:\n  /a: {}\ncomponents: &c\n  schemas: {}\n"},
		{"a second document", "cut", head + "paths:\n  /a: {}\n---\ncomponents:\n  schemas: {}\n"},
		{"a directive", "cut", head + "paths:\n  /a: {}\n%YAML 1.2\ncomponents:\n  schemas: {}\n"},
		{"a top-level continuation", "cut", head + "paths:\n  /a: {}\ncomponents:\n  schemas: {}\nx: a\nb c\n"},
		{"JSON", "cut", `{"openapi": "3.0.3",
"paths": {}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.doc)
			at, line := cutPoint(b)
			switch {
			case tc.stage == "cut" && at != 0:
				t.Fatalf("cut at line %d:\n%s", line, b)
			case tc.stage == "join" && at == 0:
				t.Fatalf("no cut found, so the join is not tested:\n%s", b)
			case at != 0 && parseHalves(b, at, line, documentConfig()) != nil:
				t.Fatalf("cut at line %d and joined:\n%s", line, b)
			}
			one, oneErr := datamodel.ExtractSpecInfoWithConfig(b, documentConfig())
			got, err := parseInfo(b, documentConfig())
			if (oneErr == nil) != (err == nil) || oneErr != nil && oneErr.Error() != err.Error() {
				t.Fatalf("parseInfo's error %v, one parse's %v", err, oneErr)
			}
			if oneErr == nil {
				if d := nodeDiff("", one.RootNode, got.RootNode); d != "" {
					t.Fatal(d)
				}
			}
		})
	}
}

// TestCutKeepsBlockScalars: a key after blank lines or a comment is not a
// cut point, since what lies above it may belong to the value before it
// (a kept block scalar's trailing newlines) or to the key (its comment).
func TestCutKeepsBlockScalars(t *testing.T) {
	b := []byte("openapi: 3.0.3\ninfo:\n  description: |+\n    text\n\n\npaths:\n  /a: {}\n# the parts\ncomponents:\n  x: 1\n" +
		"tags:\n  - name: a\n")
	at, line := cutPoint(b)
	if line != 12 {
		t.Fatalf("cut at line %d (byte %d), want 12 (tags), the only key after indented content", line, at)
	}
	info := parseHalves(b, at, line, documentConfig())
	if info == nil {
		t.Fatal("refused")
	}
	sameAsOneParse(t, b, info)
}

// FuzzHalves: whatever the input, the halves are either refused or give
// exactly what one parse gives.
func FuzzHalves(f *testing.F) {
	f.Add("openapi: 3.0.3\ninfo:\n  title: t\npaths:\n  /a: {}\ncomponents:\n  schemas: {}\n")
	f.Add("openapi: 3.0.3\ninfo:\n  d: >-\n    a\n    b\npaths:\n  /a: &x\n    get: {}\n  /b: *x\n")
	f.Add("---\nopenapi: 3.1.0\npaths:\n  /a: {}\n  # note\ncomponents: # c\n  schemas: {}\n")
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		if len(b) == 0 || len(b) > 4096 {
			return
		}
		at, line := cutPoint(b)
		if at == 0 {
			return
		}
		info := parseHalves(b, at, line, documentConfig())
		if info == nil {
			return
		}
		one, err := datamodel.ExtractSpecInfoWithConfig(b, documentConfig())
		if err != nil {
			t.Fatalf("halves joined where one parse fails (%v):\n%s", err, b)
		}
		if d := nodeDiff("", one.RootNode, info.RootNode); d != "" {
			t.Fatalf("%s\n%s", d, b)
		}
	})
}

// BenchmarkParse parses the published schema and the embedded document in
// one piece and, where they can be cut, in halves at once:
//
//	go test ./internal/oasdoc -run XXX -bench Parse -count 5
func BenchmarkParse(b *testing.B) {
	docs := []struct {
		name string
		doc  []byte
	}{{"embedded", fixtures.OpenAPI()}}
	if raw, err := os.ReadFile(testenv.PublishedSpec(b, "")); err == nil {
		docs = append(docs, struct {
			name string
			doc  []byte
		}{"published", raw})
	}
	for _, d := range docs {
		b.Run(d.name+"/one", func(b *testing.B) {
			for b.Loop() {
				if _, err := datamodel.ExtractSpecInfoWithConfig(d.doc, documentConfig()); err != nil {
					b.Fatal(err)
				}
			}
		})
		if at, _ := cutPoint(d.doc); at == 0 {
			continue
		}
		b.Run(d.name+"/halves", func(b *testing.B) { // the cut's search included
			for b.Loop() {
				at, line := cutPoint(d.doc)
				if parseHalves(d.doc, at, line, documentConfig()) == nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
