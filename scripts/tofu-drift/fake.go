package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// fake is one `wmsmock serve` process.
type fake struct {
	cmd  *exec.Cmd
	url  string // the API's base URL
	done chan error
}

// startFake starts wmsmock serve on a port the kernel picks (--addr
// 127.0.0.1:0, so two sweeps cannot race for one) and waits for the banner
// line that says where it listens, which serve prints once it answers.
// Everything it prints goes to logFile.
func startFake(ctx context.Context, bin, spec, logFile string) (*fake, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--spec", spec, "--log-level", "debug")
	cmd.Stderr = log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		log.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	f := &fake{cmd: cmd, done: make(chan error, 1)}
	found := make(chan string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(log, line)
			if u, ok := readyURL(line); ok {
				select {
				case found <- u:
				default:
				}
			}
		}
		_, _ = io.Copy(log, stdout)
	}()
	go func() {
		<-read // Wait closes the pipe: read it to its end first
		err := cmd.Wait()
		log.Close()
		f.done <- err
	}()
	select {
	case f.url = <-found:
		return f, nil
	case err := <-f.done:
		return nil, fmt.Errorf("wmsmock serve ended before it was ready (%v); see %s", err, logFile)
	case <-time.After(2 * time.Minute):
		f.stop()
		return nil, fmt.Errorf("wmsmock serve was not ready after 2 minutes; see %s", logFile)
	case <-ctx.Done():
		f.stop()
		return nil, ctx.Err()
	}
}

// readyURL reads serve's "wmsmock: ready in 150ms at http://127.0.0.1:PORT/api".
func readyURL(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "wmsmock: ready in ")
	if !ok {
		return "", false
	}
	_, u, ok := strings.Cut(rest, " at ")
	if !ok || !strings.HasPrefix(u, "http") {
		return "", false
	}
	return strings.TrimSpace(u), true
}

// stop interrupts the fake as Ctrl-C would, and kills it if it has not
// ended after ten seconds.
func (f *fake) stop() error {
	if err := f.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case err := <-f.done:
		return err
	case <-time.After(10 * time.Second):
		_ = f.cmd.Process.Kill()
		return fmt.Errorf("wmsmock serve did not stop within 10s of an interrupt: %v", <-f.done)
	}
}
