package main

import (
	"regexp"
	"testing"

	"github.com/wmsmock/wmsmock/internal/clitest"
)

// Shorthands for clitest with this binary's run.
func env(m map[string]string) func(string) string { return clitest.Env(m) }

// configCase is a command line (and environment) that must stop the
// command with the given exit code and a message mentioning want.
type configCase struct {
	name string
	args []string
	env  map[string]string
	code int
	want string
}

func startCommand(t *testing.T, args []string, vars map[string]string, ready *regexp.Regexp) (string, *clitest.Buffer, *clitest.Buffer, func() int) {
	t.Helper()
	return clitest.Start(t, run, args, vars, ready)
}

func checkCommandRejects(t *testing.T, command string, cases []configCase) {
	t.Helper()
	cs := make([]clitest.Case, len(cases))
	for i, c := range cases {
		cs[i] = clitest.Case{Name: c.name, Args: c.args, Env: c.env, Code: c.code, Want: c.want}
	}
	clitest.CheckRejects(t, run, command, cs)
}
