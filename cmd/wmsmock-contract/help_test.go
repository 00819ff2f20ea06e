package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestHelpCommand: `help COMMAND` (and COMMAND --help) prints that
// command's own usage, not the command list, with its flags written as the
// docs write them (--name) and what it takes besides flags (diff's OLD
// NEW); both exit 0.
func TestHelpCommand(t *testing.T) {
	singleDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for name := range commands {
		for _, args := range [][]string{{"help", name}, {name, "--help"}} {
			var out, errOut bytes.Buffer
			code := run(context.Background(), args, env(nil), &out, &errOut)
			text := out.String() + errOut.String()
			synopsis := "Usage: wmsmock " + name + " [flags]"
			if name == "diff" {
				synopsis = "Usage: wmsmock diff OLD NEW [flags]"
			}
			if code != 0 || !strings.Contains(text, synopsis) || !strings.Contains(text, "\n  --") ||
				singleDash.MatchString(text) || strings.Contains(text, "wmsmock help [COMMAND]") {
				t.Errorf("%q: exit %d, want 0 with %q and only --flags:\n%s", args, code, synopsis, text)
			}
		}
	}
	if len(commands) != 5 {
		t.Errorf("%d commands, want conform, calibrate, fidelity, proxy and diff", len(commands))
	}
}
