// Command wmsmock runs the fake Workflow Management Service (serve), and
// hands the tools that judge a server against the service's contract
// (conform, calibrate, fidelity, proxy, diff) to their own binary,
// wmsmock-contract (contract.go): the fake builds and starts without what
// only they need. It only turns flags and environment variables into
// configuration and hands over to package mock.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/wmsmock/wmsmock/internal/version"
)

const usage = `wmsmock: a fake of the Workflow Management Service API, and its conformance suite.

Usage:
  wmsmock serve     [flags]     start the fake (see: wmsmock help serve)
  wmsmock ping      [flags] [URL]  check that the fake at URL is ready; --wait for it
  wmsmock conform   [flags]     run the conformance scenarios against a server
  wmsmock calibrate [flags]     probe a server and write its behaviour profile
  wmsmock fidelity  [flags]     run the scenarios against two servers and compare them
  wmsmock proxy     [flags]     forward to the service, report drift, record the session
  wmsmock diff OLD NEW [flags]  what changed between two documents, and whom it breaks
  wmsmock help [COMMAND]        this text, or a command's flags
  wmsmock version               the version of this build

conform, calibrate, fidelity, proxy and diff are run by a second binary,
wmsmock-contract, found beside this one or on the PATH (or built with go run
inside a checkout): the fake builds faster without them.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it with their own arguments,
// environment and outputs.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch cmd := args[0]; {
	case cmd == "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case cmd == "ping":
		return pingCmd(ctx, args[1:], getenv, stderr)
	case cmd == "conform" && slices.Contains(args[1:], "--ping"):
		// The health check of the container images written before ping
		// was a command of its own (conform --ping --base-url URL).
		return pingCmd(ctx, pingArgs(args[1:]), getenv, stderr)
	case slices.Contains(contractCommands, cmd):
		return runContract(ctx, args, getenv, stdout, stderr)
	case cmd == "help" || cmd == "-h" || cmd == "--help":
		if len(args) > 1 {
			switch {
			case args[1] == "serve":
				_, _ = parseServe([]string{"--help"}, getenv, stdout)
				return 0
			case args[1] == "ping":
				return pingCmd(ctx, []string{"--help"}, getenv, stdout)
			case slices.Contains(contractCommands, args[1]):
				return runContract(ctx, args, getenv, stdout, stderr)
			}
		}
		fmt.Fprint(stdout, usage)
		return 0
	case cmd == "version" || cmd == "--version" || cmd == "-version":
		fmt.Fprintln(stdout, "wmsmock", version.String())
		return 0
	default:
		fmt.Fprintf(stderr, "wmsmock: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
}
