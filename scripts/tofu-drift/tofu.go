package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tofu runs OpenTofu in one configuration directory, each call's output
// kept in <dir>/<label>.log and the provider's debug log (every request it
// sends and every answer, bodies included) in <dir>/<label>.provider.log.
type tofu struct {
	bin, dir string
	env      []string // added to this process's environment
	timeout  time.Duration
}

type runResult struct {
	code        int    // the exit code; -1 when it did not run to an end
	stdout      []byte // stdout alone (for -json)
	output      []byte // stdout and stderr as they came
	providerLog []byte // what the provider logged during this call
	err         error  // set when the code is not 0 (or 2 where allowed)
}

// run calls tofu with args; codes lists the exit codes that count as
// success besides 0 (plan -detailed-exitcode answers 2 for changes).
func (t tofu) run(ctx context.Context, label string, args ...string) runResult {
	return t.runAllowing(ctx, label, nil, args...)
}

func (t tofu) runAllowing(ctx context.Context, label string, codes []int, args ...string) runResult {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.bin, args...)
	cmd.Dir = t.dir
	providerLog := filepath.Join(t.dir, label+".provider.log")
	logged := fileSize(providerLog)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.Env = append(cmd.Env, "TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH="+providerLog)
	// tofu stops its provider on an interrupt; a kill would leave it running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 30 * time.Second
	var stdout bytes.Buffer
	var output lockedBuffer // stdout and stderr are copied by two goroutines
	cmd.Stdout = io.MultiWriter(&stdout, &output)
	cmd.Stderr = &output
	err := cmd.Run()
	res := runResult{code: -1, stdout: stdout.Bytes(), output: output.buf.Bytes()}
	var exit *exec.ExitError
	switch {
	case err == nil:
		res.code = 0
	case errors.As(err, &exit) && exit.Exited():
		res.code = exit.ExitCode()
		res.err = fmt.Errorf("exit status %d", res.code)
		for _, c := range codes {
			if c == res.code {
				res.err = nil
			}
		}
	default:
		res.err = err
	}
	if ctx.Err() == context.DeadlineExceeded {
		res.err = fmt.Errorf("took longer than %s", t.timeout)
	}
	if f, err := os.Open(providerLog); err == nil {
		if _, err := f.Seek(logged, io.SeekStart); err == nil {
			res.providerLog, _ = io.ReadAll(f)
		}
		f.Close()
	}
	log := fmt.Sprintf("$ tofu %s\n%s", strings.Join(args, " "), res.output)
	if res.err != nil {
		log += fmt.Sprintf("\n[%v]\n", res.err)
	}
	if werr := appendFile(filepath.Join(t.dir, label+".log"), log); werr != nil && res.err == nil {
		res.err = werr
	}
	return res
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// tail is the last n lines of the output.
func (r runResult) tail(n int) string {
	lines := strings.Split(strings.TrimRight(string(r.output), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// errorLines are the diagnostics tofu printed, each "Error: summary" with
// the lines of its detail, without the frame, the source excerpt and blank
// lines; the tail of the output when there is no diagnostic.
func (r runResult) errorLines() []string {
	var out []string
	in := false
	for _, raw := range strings.Split(string(r.output), "\n") {
		line := strings.TrimSpace(strings.TrimLeft(raw, "│╷╵ "))
		switch {
		case strings.HasPrefix(line, "Error: "):
			in = true
		case strings.HasPrefix(raw, "╵"):
			in = false
			continue
		}
		if !in || line == "" || isSourceLine(line) || isLogLine(line) {
			continue
		}
		out = append(out, line)
	}
	out = append(out, r.panicLines()...)
	if len(out) == 0 && r.err != nil {
		out = append(strings.Split(r.tail(5), "\n"), r.err.Error())
	}
	return out
}

// panicLines name a provider's crash: tofu only says "Plugin did not
// respond", and the provider's panic is in its log. They are the panic's
// message and the innermost frame in the provider's own code, with its
// file and line.
func (r runResult) panicLines() []string {
	var out []string
	lines := strings.Split(string(r.providerLog), "\n")
	for i, line := range lines {
		if _, msg, ok := strings.Cut(line, "panic: "); ok && len(out) == 0 {
			out = append(out, "provider panic: "+strings.TrimSpace(msg))
			continue
		}
		if len(out) == 1 && strings.Contains(line, "terraform-provider-seqera/internal/") && i+1 < len(lines) {
			_, frame, _ := strings.Cut(line, "terraform-provider-seqera/internal/")
			if j := strings.LastIndex(frame, "("); j > 0 {
				frame = frame[:j]
			}
			file := lines[i+1]
			if j := strings.LastIndex(file, "/internal/"); j >= 0 {
				file = file[j+1:] // the path inside the provider's repository
			}
			file, _, _ = strings.Cut(strings.TrimSpace(file), " ") // drop the "+0x1f2"
			return append(out, "  in "+frame+" ("+file+")")
		}
	}
	return out
}

// isSourceLine tells the lines of a diagnostic that point into the
// configuration ("with x.y,", "on file.tf line 3...", "  3: resource ...",
// the rule above the values of a failed condition).
func isSourceLine(line string) bool {
	switch {
	case strings.HasPrefix(line, "with ") && strings.HasSuffix(line, ","),
		strings.HasPrefix(line, "on ") && strings.Contains(line, " line "),
		strings.HasPrefix(line, "├"):
		return true
	}
	num, _, ok := strings.Cut(line, ":")
	if !ok || num == "" {
		return false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isLogLine tells a line of tofu's or the provider's log ("2026-11-27T01:05:28.650Z
// [ERROR] provider: ..."), which can land among a diagnostic's lines.
func isLogLine(line string) bool {
	stamp, rest, ok := strings.Cut(line, " [")
	return ok && len(stamp) >= 20 && stamp[4] == '-' && stamp[10] == 'T' && strings.Contains(rest, "] ")
}

func fileSize(name string) int64 {
	st, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return st.Size()
}

func appendFile(name, s string) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
