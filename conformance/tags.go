package conformance

import (
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/wmsmock/wmsmock/features"
)

// TagInfo is one tag of the scenarios: how many scenarios carry it (a
// feature's tag counts for each of its scenarios), in which features, and
// what it means to a run.
type TagInfo struct {
	Tag       string
	Scenarios int
	Features  []string
	Meaning   string
}

// tagMeanings are the tags a run treats specially, and the two every
// scenario carries one of; any other tag names a feature.
var tagMeanings = map[string]string{
	"@contract":    "checks a rule the service documents: any server must keep it",
	"@profile":     "checks a point the document leaves open against the behaviour profile: a different answer is reported as a difference",
	tagDestructive: "creates data and deletes it: runs only with --allow-destructive (or on the in-process fake)",
	tagFakeOnly:    "needs what only the fake has (its expired token, a movable clock, faults on demand): runs only against wmsmock",
	tagSecondToken: "needs a second token: runs only with --token2",
	tagSchema:      "validates answers against a schema: the fake's own, or --spec FILE",
	tagRateLimit:   "bursts past the rate limit on purpose",
}

// Tags lists the tags of the scenarios in fsys (nil: the embedded ones),
// sorted: first those a run treats specially, then the features'.
func Tags(fsys fs.FS) ([]TagInfo, error) {
	if fsys == nil {
		fsys = features.FS
	}
	sel, err := selectScenarios(fsys, []string{"."}, "")
	if err != nil {
		return nil, err
	}
	byTag := map[string]*TagInfo{}
	for _, p := range sel.scenarios {
		for _, t := range p.result.Tags {
			ti := byTag[t]
			if ti == nil {
				ti = &TagInfo{Tag: t, Meaning: tagMeanings[t]}
				byTag[t] = ti
			}
			ti.Scenarios++
			if n := len(ti.Features); n == 0 || ti.Features[n-1] != p.result.Feature {
				ti.Features = append(ti.Features, p.result.Feature)
			}
		}
	}
	out := make([]TagInfo, 0, len(byTag))
	for _, ti := range byTag {
		if ti.Meaning == "" && len(ti.Features) == 1 {
			ti.Meaning = "the scenarios of " + ti.Features[0]
		}
		out = append(out, *ti)
	}
	sort.Slice(out, func(i, j int) bool {
		si, sj := tagMeanings[out[i].Tag] != "", tagMeanings[out[j].Tag] != ""
		if si != sj {
			return si
		}
		return out[i].Tag < out[j].Tag
	})
	return out, nil
}

// WriteTags writes the tag list as `wmsmock conform --list-tags` prints it:
// a line per tag, with its count of scenarios and what it means.
func WriteTags(w io.Writer, tags []TagInfo) {
	width := 0
	for _, t := range tags {
		width = max(width, len(t.Tag))
	}
	for _, t := range tags {
		fmt.Fprintf(w, "%-*s %3d  %s\n", width, t.Tag, t.Scenarios, strings.TrimSpace(t.Meaning))
	}
}
