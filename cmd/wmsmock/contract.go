package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// contractCommands are the commands of the second binary.
var contractCommands = []string{"conform", "calibrate", "fidelity", "proxy", "diff"}

const (
	contractBinary  = "wmsmock-contract"
	contractPackage = "github.com/wmsmock/wmsmock/cmd/wmsmock-contract"
	module          = "github.com/wmsmock/wmsmock"
)

// runContract runs a command of the second binary with the same arguments
// and standard streams, and exits as it does. It looks for the binary
// where an install puts it: WMSMOCK_CONTRACT_BIN, beside this executable
// (go install, the container image), then on the PATH; inside a checkout
// of this module, where `go run ./cmd/wmsmock` was typed, it builds and
// runs it the same way.
func runContract(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	name, argv, err := findContract(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "wmsmock %s: %v\n", args[0], err)
		return 2
	}
	if name == "go" {
		fmt.Fprintf(stderr, "wmsmock: %s is in %s; building it with go run (a minute or more the first time)\n", args[0], contractBinary)
	}
	cmd := exec.CommandContext(ctx, name, append(argv, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// Ctrl-C reaches the command as an interrupt, so it can clean up (a
	// conformance run deletes what it made) before it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	case cmd.ProcessState != nil && cmd.ProcessState.Exited():
		// Stopped by a signal to this process: the command was told, and
		// ended on its own terms (a proxy writes its report).
		return cmd.ProcessState.ExitCode()
	}
	fmt.Fprintf(stderr, "wmsmock %s: running %s: %v\n", args[0], name, err)
	return 1
}

// findContract is the program to run for the second binary, and the
// arguments before the command's.
func findContract(getenv func(string) string) (string, []string, error) {
	exe := contractBinary
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if p := getenv("WMSMOCK_CONTRACT_BIN"); p != "" {
		return p, nil, nil
	}
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), exe); isFile(p) {
			return p, nil, nil
		}
	}
	if p, err := exec.LookPath(exe); err == nil {
		return p, nil, nil
	}
	if _, err := exec.LookPath("go"); err == nil && inModule() {
		return "go", []string{"run", contractPackage}, nil
	}
	return "", nil, fmt.Errorf("%s is not beside wmsmock or on the PATH; install it with go install %s@latest, or run it from a checkout with go run ./cmd/%s",
		contractBinary, contractPackage, contractBinary)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// inModule reports whether the working directory is inside a checkout of
// this module (its go.mod names it), where go run finds the second binary.
func inModule() bool {
	dir, err := os.Getwd()
	if err != nil {
		return false
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			defer f.Close()
			for sc.Scan() {
				if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
					return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == module
				}
			}
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
