// Package version says which build of wmsmock is running, for
// `wmsmock version` (and --version): the module version `go install
// ...@version` recorded, else the commit `go build` in a checkout recorded,
// else what the build set with -ldflags "-X ...version.set=..." (the
// container image's VERSION argument).
package version

import (
	"runtime/debug"
	"strings"
)

// set is given at link time by builds that have neither a module version
// nor a checkout (the Dockerfile's VERSION build argument).
var set string

// String is this build's version, its commit when known, and the Go
// release it was built with, e.g. "v0.4.0 (go1.26.8)" or
// "(devel) commit 1a2b3c4d5e6f, modified (go1.26.8)".
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return orUnknown(set)
	}
	v := info.Main.Version
	if set != "" && (v == "" || v == "(devel)") {
		v = set
	}
	var commit, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	parts := []string{orUnknown(v)}
	if commit != "" {
		c := "commit " + commit[:min(12, len(commit))]
		if modified == "true" {
			c += ", modified"
		}
		parts = append(parts, c)
	}
	return strings.Join(parts, " ") + " (" + info.GoVersion + ")"
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}
