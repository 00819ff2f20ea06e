package ratewindow

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	good := []struct {
		in   string
		want []Window
	}{
		{"off", nil},
		{" OFF ", nil},
		{"20/s,72000/h", []Window{{20, time.Second}, {72000, time.Hour}}},
		{"100/s", []Window{{100, time.Second}}},
		{"5/1m", []Window{{5, time.Minute}}},
		{" 3 / s , 10/m ", []Window{{3, time.Second}, {10, time.Minute}}},
		{"7/250ms,1/ms", []Window{{7, 250 * time.Millisecond}, {1, time.Millisecond}}},
		{"30/1h30m", []Window{{30, 90 * time.Minute}}},
		{"1073741824/744h", []Window{{MaxLimit, MaxPeriod}}},
	}
	for _, tc := range good {
		got, err := Parse(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "empty spec"},
		{"  ", "empty spec"},
		{"20", `want "<limit>/<period>"`},
		{"20/", "period"},
		{"/s", "limit"},
		{"0/s", "limit"},
		{"-1/s", "limit"},
		{"1.5/s", "limit"},
		{"1073741825/s", "limit"},
		{"20/sec", "period"},
		{"20/d", "period"},
		{"20/0s", "outside"},
		{"20/-1s", "outside"},
		{"20/999us", "outside"},
		{"20/745h", "outside"},
		{"20/s,", "empty window"},
		{"20/s,,1/h", "empty window"},
		{"20/s,30/1s", "two windows with period s"},
		{"on", `want "<limit>/<period>"`},
	}
	for _, tc := range bad {
		got, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "rate limit: ") {
			t.Errorf("Parse(%q): error %q does not mention %q", tc.in, err, tc.msg)
		}
	}
}

func TestWindowStringRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		w    Window
		want string
	}{
		{Window{20, time.Second}, "20/s"},
		{Window{72000, time.Hour}, "72000/h"},
		{Window{5, 10 * time.Minute}, "5/10m"},
		{Window{5, 90 * time.Minute}, "5/90m"},
		{Window{7, 1500 * time.Millisecond}, "7/1500ms"},
		{Window{1, time.Millisecond}, "1/ms"},
	} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.w, got, tc.want)
		}
		back, err := Parse(tc.w.String())
		if err != nil || len(back) != 1 || back[0] != tc.w {
			t.Errorf("%q reads back as %v, %v", tc.w.String(), back, err)
		}
	}
}
