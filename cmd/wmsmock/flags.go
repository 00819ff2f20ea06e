package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// listFlag is a repeatable string flag whose default comes from an
// environment variable holding a comma-separated list. The first use on the
// command line replaces the environment's values rather than adding to them.
type listFlag struct {
	values []string
	set    bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

func (l *listFlag) Set(v string) error {
	if !l.set {
		l.values, l.set = nil, true
	}
	l.values = append(l.values, v)
	return nil
}

func envList(getenv func(string) string, key string) *listFlag {
	l := &listFlag{}
	for _, v := range strings.Split(getenv(key), ",") {
		if v = strings.TrimSpace(v); v != "" {
			l.values = append(l.values, v)
		}
	}
	return l
}

func envString(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envInt reads an integer default; a malformed value is reported by the
// validate step rather than silently ignored.
func envInt(getenv func(string) string, key string, def int64, errs *[]string) int64 {
	v := getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not an integer", key, v))
		return def
	}
	return n
}

func envBool(getenv func(string) string, key string, def bool, errs *[]string) bool {
	v := getenv(key)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not a boolean", key, v))
		return def
	}
	return b
}

// envDuration reads a duration default such as 30s; like envInt, a
// malformed value is reported rather than ignored.
func envDuration(getenv func(string) string, key string, def time.Duration, errs *[]string) time.Duration {
	v := getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("%s=%q is not a duration such as 30s or 10m", key, v))
		return def
	}
	return d
}

// newFlagSet returns a flag set that reports errors instead of exiting, and
// whose usage text names the environment variable behind each flag.
func newFlagSet(name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "%s\n\nUsage: wmsmock %s [flags]\n\nFlags (environment variable in brackets):\n", summary, name)
		fs.PrintDefaults()
	}
	return fs
}
