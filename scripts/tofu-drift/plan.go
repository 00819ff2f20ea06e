package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A change is one resource a plan wants to touch, read from `tofu show
// -json` of the saved plan. In a plan made right after an apply or an
// import, "before" is what the fake answered (the refreshed state) and
// "after" what the configuration holds, so each leaf that differs says what
// the fake got wrong.
type change struct {
	address string
	typ     string
	data    bool
	actions []string
	diffs   []diff
	unknown []string // attributes the plan leaves to apply
	replace []string // attributes that force a replacement
}

type diff struct {
	path    string
	fake    any // before
	written any // after
	// excuse says why a value the fake answered null for is not the fake's
	// fault (see judge.excuse); "" when it is drift.
	excuse string
}

// planChanges lists the resources the plan changes, data source reads
// included.
func planChanges(showJSON []byte, j *judge) ([]change, error) {
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Mode    string `json:"mode"`
			Type    string `json:"type"`
			Change  struct {
				Actions      []string `json:"actions"`
				Before       any      `json:"before"`
				After        any      `json:"after"`
				AfterUnknown any      `json:"after_unknown"`
				ReplacePaths [][]any  `json:"replace_paths"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	dec := json.NewDecoder(bytes.NewReader(showJSON))
	dec.UseNumber()
	if err := dec.Decode(&plan); err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	var out []change
	for _, rc := range plan.ResourceChanges {
		if slices.Equal(rc.Change.Actions, []string{"no-op"}) {
			continue
		}
		c := change{address: rc.Address, typ: rc.Type, data: rc.Mode == "data", actions: rc.Change.Actions}
		for _, p := range rc.Change.ReplacePaths {
			c.replace = append(c.replace, pathString(p))
		}
		if c.updates() {
			after, _ := rc.Change.After.(map[string]any)
			c.walk(nil, rc.Change.Before, rc.Change.After, rc.Change.AfterUnknown, func(path []string) string {
				return j.excuse(c.typ, path, after)
			})
		}
		out = append(out, c)
	}
	return out, nil
}

// updates tells a change whose attributes are worth comparing: an update
// or a replacement, not a creation, a deletion or a read.
func (c change) updates() bool {
	return slices.Contains(c.actions, "update") ||
		slices.Contains(c.actions, "create") && slices.Contains(c.actions, "delete")
}

func (c *change) walk(path []string, before, after, unknown any, excuse func([]string) string) {
	if u, ok := unknown.(bool); ok && u {
		c.unknown = append(c.unknown, strings.Join(path, "."))
		return
	}
	um, unknownMap := unknown.(map[string]any)
	if bm, ok := before.(map[string]any); ok || before == nil && unknownMap {
		if am, ok := after.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range bm {
				keys[k] = true
			}
			for k := range am {
				keys[k] = true
			}
			for _, k := range sortedKeys(keys) {
				c.walk(append(slices.Clip(path), k), bm[k], am[k], um[k], excuse)
			}
			return
		}
	}
	if bl, ok := before.([]any); ok {
		if al, ok := after.([]any); ok && len(al) == len(bl) {
			ul, _ := unknown.([]any)
			for i := range bl {
				var u any
				if i < len(ul) {
					u = ul[i]
				}
				c.walk(append(slices.Clip(path), strconv.Itoa(i)), bl[i], al[i], u, excuse)
			}
			return
		}
	}
	if reflect.DeepEqual(before, after) {
		return
	}
	d := diff{path: strings.Join(path, "."), fake: before, written: after}
	if before == nil && !c.data {
		d.excuse = excuse(path)
	}
	c.diffs = append(c.diffs, d)
}

// excused tells a change that only sets again values the fake answered null
// for and had to: secrets the service never returns, or attributes the
// provider does not read back.
func (c change) excused() bool {
	if !c.updates() || len(c.diffs) == 0 {
		return false
	}
	for _, d := range c.diffs {
		if d.excuse == "" {
			return false
		}
	}
	return true
}

// lines renders the change for a report, at most max lines.
func (c change) lines(max int) []string {
	out := []string{fmt.Sprintf("%s: %s", c.address, c.action())}
	if len(c.replace) > 0 {
		out[0] += " (forced by " + strings.Join(c.replace, ", ") + ")"
	}
	for _, d := range c.diffs {
		if d.excuse != "" {
			out = append(out, fmt.Sprintf("  %s: set again (%s)", d.path, d.excuse))
			continue
		}
		out = append(out, fmt.Sprintf("  %s: fake %s, written %s", d.path, short(d.fake), short(d.written)))
	}
	if len(c.unknown) > 0 {
		out = append(out, "  known after apply: "+strings.Join(c.unknown, ", "))
	}
	if len(out) > max {
		out = append(out[:max-1], fmt.Sprintf("  ... %d more lines", len(out)-max+1))
	}
	return out
}

func (c change) action() string {
	switch {
	case slices.Equal(c.actions, []string{"create"}):
		return "to be created"
	case slices.Equal(c.actions, []string{"delete"}):
		return "to be destroyed"
	case slices.Equal(c.actions, []string{"update"}):
		return "to be updated"
	case slices.Equal(c.actions, []string{"read"}):
		return "to be read during apply"
	case c.updates():
		return "to be replaced"
	}
	return strings.Join(c.actions, ", ")
}

// short renders a JSON value on one line, cut at 120 characters.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func pathString(p []any) string {
	parts := make([]string, len(p))
	for i, e := range p {
		parts[i] = fmt.Sprint(e)
	}
	return strings.Join(parts, ".")
}
