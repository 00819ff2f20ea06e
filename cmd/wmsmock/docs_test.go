package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/testenv"
)

// The README is the front door: short, with the two commands a newcomer
// runs, and a link to every page under docs/, where everything else lives.
func TestREADMEIsAFrontDoor(t *testing.T) {
	root := testenv.RepoRoot(t)
	readme := readDoc(t, root, "README.md")
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines, at most 300: move the detail to a page under docs/", n)
	}
	for _, cmd := range []string{"go run ./cmd/wmsmock serve", "go test ./..."} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("README.md does not show %q", cmd)
		}
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under docs/ (%v)", err)
	}
	for _, p := range pages {
		if name := "docs/" + filepath.Base(p); !strings.Contains(readme, "]("+name) {
			t.Errorf("README.md does not link %s", name)
		}
	}
}

// mdLink is a markdown link's target; links to other sites are not
// checked (no network in tests).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every link between the README and the pages under docs/ leads to a file
// that exists and, where it names a heading, to that heading.
func TestDocLinksResolve(t *testing.T) {
	root := testenv.RepoRoot(t)
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files := append([]string{filepath.Join(root, "README.md")}, pages...)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, m := range mdLink.FindAllStringSubmatch(readDoc(t, root, rel), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := f
			if file != "" {
				path = filepath.Join(filepath.Dir(f), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links %s, which does not exist", rel, target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(anchors(string(b)), anchor) {
				t.Errorf("%s links %s: no such heading", rel, target)
			}
		}
	}
}

// Every flag of serve is documented in docs/serve.md with its
// environment variable.
func TestServeFlagsDocumented(t *testing.T) {
	root := testenv.RepoRoot(t)
	page := readDoc(t, root, filepath.Join("docs", "serve.md"))
	var usage bytes.Buffer
	_, _ = parseServe([]string{"-h"}, func(string) string { return "" }, &usage)
	// The usage shows flags as the docs write them, --name.
	flags := regexp.MustCompile(`(?m)^\s+--([a-z][a-z-]*)`).FindAllStringSubmatch(usage.String(), -1)
	if len(flags) < 10 {
		t.Fatalf("found %d flags in serve's usage, expected its whole list:\n%s", len(flags), usage.String())
	}
	envs := regexp.MustCompile(`\[(WMSMOCK_[A-Z_]+)`)
	for _, f := range flags {
		if !strings.Contains(page, "`--"+f[1]+"`") {
			t.Errorf("docs/serve.md does not document --%s", f[1])
		}
	}
	for _, e := range envs.FindAllStringSubmatch(usage.String(), -1) {
		if !strings.Contains(page, e[1]) {
			t.Errorf("docs/serve.md does not name %s", e[1])
		}
	}
}

func readDoc(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// anchors are the ids a markdown renderer gives a page's headings: lower
// case, punctuation dropped, spaces as hyphens. Headings inside code
// blocks are comments, not headings.
func anchors(page string) []string {
	var out []string
	fenced := false
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		out = append(out, strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(h), ""), " ", "-"))
	}
	return out
}
