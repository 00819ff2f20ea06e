package resources

import (
	"strings"
	"time"
)

// Stamp writes a time the way the service does (CONTRACT T2).
func Stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z") }

// LowerContains is a case-insensitive substring test for search filters.
func LowerContains(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
