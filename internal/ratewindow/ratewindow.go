// Package ratewindow holds the text form of a rate-limit window ("20/s",
// "72000/h"), shared by the behaviour profile, the command line and the
// limiter. It sits outside the fake so that the profile, which the
// conformance suite also reads, does not pull the limiter in with it.
package ratewindow

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bounds Parse enforces. They keep every window within what Memory
// stores without overflow (bucket counters are uint32) and reject periods
// too short or too long to be a plausible API limit, which are more likely
// typos than intent.
const (
	MaxLimit  = 1 << 30
	MinPeriod = time.Millisecond
	MaxPeriod = 31 * 24 * time.Hour
)

// Parse reads a rate-limit setting as given on the command line or in a
// behaviour profile.
//
// The value is "off" (any case; returns nil windows and no error, meaning
// "no limit"), or a comma-separated list of windows, each
// "<limit>/<period>":
//
//   - limit is a positive decimal integer, at most MaxLimit;
//   - period is one of the units "ms", "s", "m", "h" (meaning one of that
//     unit) or a Go duration such as "10s", "5m" or "1h30m", between
//     MinPeriod and MaxPeriod.
//
// Spaces around items are ignored. Two windows with the same period are an
// error, as one of them would be dead weight and is likely a typo.
// Examples: "20/s,72000/h", "100/s", "5/1m".
func Parse(s string) ([]Window, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "off") {
		return nil, nil
	}
	if t == "" {
		return nil, errors.New(`rate limit: empty spec (want e.g. "20/s,72000/h", or "off")`)
	}
	var ws []Window
	for item := range strings.SplitSeq(t, ",") {
		item = strings.TrimSpace(item)
		w, err := parseWindow(item)
		if err != nil {
			return nil, fmt.Errorf("rate limit: spec %q: %w", s, err)
		}
		for _, prev := range ws {
			if prev.Period == w.Period {
				return nil, fmt.Errorf("rate limit: spec %q: two windows with period %s", s, formatPeriod(w.Period))
			}
		}
		ws = append(ws, w)
	}
	return ws, nil
}

func parseWindow(item string) (Window, error) {
	if item == "" {
		return Window{}, errors.New(`empty window (want "<limit>/<period>")`)
	}
	ls, ps, ok := strings.Cut(item, "/")
	if !ok {
		return Window{}, fmt.Errorf(`window %q: want "<limit>/<period>", e.g. "20/s"`, item)
	}
	ls, ps = strings.TrimSpace(ls), strings.TrimSpace(ps)
	n, err := strconv.Atoi(ls)
	if err != nil || n < 1 || n > MaxLimit {
		return Window{}, fmt.Errorf("window %q: limit %q is not an integer from 1 to %d", item, ls, MaxLimit)
	}
	var p time.Duration
	switch ps {
	case "ms":
		p = time.Millisecond
	case "s":
		p = time.Second
	case "m":
		p = time.Minute
	case "h":
		p = time.Hour
	default:
		p, err = time.ParseDuration(ps)
		if err != nil {
			return Window{}, fmt.Errorf(`window %q: period %q is neither ms, s, m, h nor a duration like "10s"`, item, ps)
		}
	}
	if p < MinPeriod || p > MaxPeriod {
		return Window{}, fmt.Errorf("window %q: period %s is outside %s..%s", item, p, MinPeriod, MaxPeriod)
	}
	return Window{Limit: n, Period: p}, nil
}

// formatPeriod writes a period the way Parse reads it back, preferring
// the bare unit ("s") and whole units ("10m") over time.Duration's
// "10m0s".
func formatPeriod(p time.Duration) string {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}}
	for _, u := range units {
		if p > 0 && p%u.d == 0 {
			if p == u.d {
				return u.name
			}
			return strconv.FormatInt(int64(p/u.d), 10) + u.name
		}
	}
	return p.String()
}

// Window is one limit: at most Limit calls in any Period.
type Window struct {
	Limit  int
	Period time.Duration
}

// String gives the window in the form Parse reads, e.g. "20/s" or "5/10m",
// so a configuration can be logged and read back unchanged.
func (w Window) String() string {
	return strconv.Itoa(w.Limit) + "/" + formatPeriod(w.Period)
}
