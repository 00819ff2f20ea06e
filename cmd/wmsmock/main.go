// Command wmsmock runs the fake Workflow Management Service (serve), the
// conformance suite (conform), the profile probe (calibrate) and the
// comparison of two servers (fidelity). It only turns flags and environment variables
// into configuration and hands over to the mock and conformance packages.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `wmsmock: a fake of the Workflow Management Service API, and its conformance suite.

Usage:
  wmsmock serve   [flags]   start the fake (see: wmsmock serve --help)
  wmsmock conform [flags]   run the conformance scenarios against a server
  wmsmock calibrate [flags] probe a server and write its behaviour profile
  wmsmock fidelity [flags]  run the scenarios against two servers and compare them
  wmsmock proxy   [flags]   forward to the service, report drift, record the session
  wmsmock diff OLD NEW [flags]  what changed between two documents, and whom it breaks
  wmsmock help              show this text
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
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "conform":
		return conform(ctx, args[1:], getenv, stdout, stderr)
	case "calibrate":
		return calibrateCmd(ctx, args[1:], getenv, stdout, stderr)
	case "fidelity":
		return fidelityCmd(ctx, args[1:], getenv, stdout, stderr)
	case "proxy":
		return proxyCmd(ctx, args[1:], getenv, stdout, stderr)
	case "diff":
		return diffCmd(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "wmsmock: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
