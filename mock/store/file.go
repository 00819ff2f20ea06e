package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileFormat and FileVersion mark a state file, so that a file of another
// kind given by mistake is refused instead of being read as an empty state.
const (
	FileFormat  = "wmsmock-state"
	FileVersion = 1
)

// File is the content of a state file: named parts, each the JSON of one
// piece of the fake's state (the records, the tokens, the clock...). The
// store does not know what the parts hold, so new kinds of state can be
// saved without changing the file's format.
type File struct {
	Format  string                     `json:"format"`
	Version int                        `json:"version"`
	SavedAt time.Time                  `json:"savedAt"`
	Parts   map[string]json.RawMessage `json:"parts"`
}

// ErrNoFile is returned by ReadFile when there is no file at the path: a
// first start, not a damaged state.
var ErrNoFile = errors.New("store: no state file")

// ReadFile loads a state file. A missing file gives ErrNoFile; anything
// else that keeps the file from being read whole (bad JSON, another format,
// a newer version, trailing data) is an error naming the file, so a damaged
// state is reported rather than silently replaced.
func ReadFile(path string) (File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, ErrNoFile
	}
	if err != nil {
		return File{}, fmt.Errorf("reading state file: %w", err)
	}
	f, err := DecodeFile(b)
	if err != nil {
		return File{}, fmt.Errorf("state file %s: %w", path, err)
	}
	return f, nil
}

// DecodeFile parses the bytes of a state file.
func DecodeFile(b []byte) (File, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return File{}, errors.New("the file is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return File{}, fmt.Errorf("not a valid state file: %w", err)
	}
	if dec.More() {
		return File{}, errors.New("not a valid state file: data after the end of the state")
	}
	if f.Format != FileFormat {
		return File{}, fmt.Errorf("not a wmsmock state file (format %q)", f.Format)
	}
	if f.Version < 1 || f.Version > FileVersion {
		return File{}, fmt.Errorf("state file version %d is not supported (this build reads up to %d)", f.Version, FileVersion)
	}
	return f, nil
}

// WriteFile saves f at path atomically: it writes a temporary file in the
// same directory, flushes it to disk and renames it over path, so a crash
// or a full disk leaves either the old state or the new one, never half of
// one.
func WriteFile(path string, f File) error {
	f.Format, f.Version = FileFormat, FileVersion
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return fmt.Errorf("encoding state: %w", err)
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(name)
		}
	}()
	if _, err := tmp.Write(b); err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	ok = true
	// Make the rename itself durable where the platform allows it.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// tempPattern names the temporary files WriteFile makes for path (the
// "*" is CreateTemp's random part).
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// RemoveTemporary deletes the temporary files that saves of path left
// behind when they were interrupted (the process killed between creating
// one and renaming it), and returns how many it removed. Call it at start,
// before any save of this process runs: a save in progress elsewhere on
// the same path would lose its file.
func RemoveTemporary(path string) (int, error) {
	// Names are compared as text, not as a glob, so a path holding glob
	// characters ("[", "*") matches only its own files.
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	prefix := strings.TrimSuffix(tempPattern(path), "*")
	n := 0
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Autosave calls save at every tick until ctx ends, and reports failures to
// onError. Taking the ticks as a channel lets tests drive it without
// waiting; the server passes a time.Ticker's channel.
func Autosave(ctx context.Context, ticks <-chan time.Time, save func() error, onError func(error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			if err := save(); err != nil && onError != nil {
				onError(err)
			}
		}
	}
}

func jsonValid(b []byte) bool { return json.Valid(b) }
