// Command wmsmock-contract holds the tools that judge a server against the
// service's contract: the conformance suite (conform), the profile probe
// (calibrate), the comparison of two servers (fidelity), the recording
// proxy (proxy) and the comparison of two schema versions (diff).
//
// They live in a binary of their own so that the fake, `wmsmock serve`,
// builds without what only they need (godog and Gherkin, oasdiff and
// kin-openapi, the in-process target) and starts without godog's
// initialisation. `wmsmock conform` and the others run this binary; it can
// also be run directly. Like cmd/wmsmock it only turns flags and
// environment variables into configuration.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/wmsmock/wmsmock/internal/version"
)

const usage = `wmsmock-contract: the tools of wmsmock that judge a server against the service's contract
(run them as wmsmock COMMAND, or as wmsmock-contract COMMAND).

Usage:
  wmsmock conform   [flags]     run the conformance scenarios against a server
  wmsmock calibrate [flags]     probe a server and write its behaviour profile
  wmsmock fidelity  [flags]     run the scenarios against two servers and compare them
  wmsmock proxy     [flags]     forward to the service, report drift, record the session
  wmsmock diff OLD NEW [flags]  what changed between two documents, and whom it breaks
  wmsmock help [COMMAND]        this text, or a command's flags
  wmsmock version               the version of this build
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// commands are this binary's commands, by name.
var commands = map[string]func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int{
	"conform":   conform,
	"calibrate": calibrateCmd,
	"fidelity":  fidelityCmd,
	"proxy":     proxyCmd,
	"diff":      diffCmd,
}

// run is main without the process: tests call it with their own arguments,
// environment and outputs.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], getenv, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if cmd, ok := commands[args[1]]; ok {
				return cmd(ctx, []string{"--help"}, getenv, stdout, stdout)
			}
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "wmsmock-contract", version.String())
		return 0
	}
	fmt.Fprintf(stderr, "wmsmock: unknown command %q\n\n%s", args[0], usage)
	return 2
}
