// Package clitest runs the wmsmock commands inside a test, as both binaries'
// tests do: a command is a Run function (main without the process) given
// its arguments, environment and outputs.
package clitest

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Run is a binary's main without the process.
type Run func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int

// Env is an environment holding only m.
func Env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// Buffer lets a test read what a command prints while it runs.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Start runs a command with args and the environment vars until the
// returned stop is called (which cancels it and returns its exit code),
// and returns the first submatch of ready in its standard output once that
// appears, and both outputs as they grow.
func Start(t *testing.T, run Run, args []string, vars map[string]string, ready *regexp.Regexp) (string, *Buffer, *Buffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &Buffer{}, &Buffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, Env(vars), out, errOut) }()
	stop := func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not stop", args[0])
			return -1
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		if m := ready.FindStringSubmatch(out.String()); m != nil {
			return m[1], out, errOut, stop
		}
		select {
		case code := <-done:
			t.Fatalf("%s exited early with %d: %s", args[0], code, errOut.String())
		case <-deadline:
			cancel()
			t.Fatalf("%s did not start; stdout: %s", args[0], out.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Case is a command line (and environment) that must stop the command
// with the given exit code and a message mentioning Want.
type Case struct {
	Name string
	Args []string
	Env  map[string]string
	Code int
	Want string
}

// CheckRejects runs each case as the given command, listening on a free
// loopback port.
func CheckRejects(t *testing.T, run Run, command string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{command, "--addr", "127.0.0.1:0"}, c.Args...)
			if code := run(context.Background(), args, Env(c.Env), &out, &errOut); code != c.Code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.Code, errOut.String())
			}
			if !strings.Contains(errOut.String(), c.Want) {
				t.Errorf("stderr does not mention %q:\n%s", c.Want, errOut.String())
			}
		})
	}
}
