package resources

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// appendJSON encodes the run record as encoding/json would (same fields,
// same omitempty rules), without reflection: launches write one record
// each, and encoding it was a tenth of a launch's cost. json.Unmarshal
// reads it back; TestWorkflowJSON holds the two encodings to the same
// decoded value.
func (w *Workflow) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendField(b, "runName", true)
	b = appendString(b, w.RunName)
	b = appendField(b, "projectName", false)
	b = appendString(b, w.ProjectName)
	b = appendField(b, "pipeline", false)
	b = appendString(b, w.Pipeline)
	for _, f := range [...]struct{ name, v string }{
		{"revision", w.Revision}, {"commitId", w.CommitID}, {"workDir", w.WorkDir}, {"computeEnvId", w.ComputeEnvID},
	} {
		if f.v != "" {
			b = appendField(b, f.name, false)
			b = appendString(b, f.v)
		}
	}
	if len(w.ConfigProfiles) > 0 {
		b = appendField(b, "configProfiles", false)
		b = append(b, '[')
		for i, p := range w.ConfigProfiles {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, p)
		}
		b = append(b, ']')
	}
	for _, f := range [...]struct{ name, v string }{{"configText", w.ConfigText}, {"paramsText", w.ParamsText}} {
		if f.v != "" {
			b = appendField(b, f.name, false)
			b = appendString(b, f.v)
		}
	}
	if w.Resume {
		b = appendField(b, "resume", false)
		b = append(b, "true"...)
	}
	for _, f := range [...]struct{ name, v string }{{"sessionId", w.SessionID}, {"userName", w.UserName}} {
		if f.v != "" {
			b = appendField(b, f.name, false)
			b = appendString(b, f.v)
		}
	}
	if w.WorkspaceID != 0 {
		b = appendField(b, "workspaceId", false)
		b = strconv.AppendInt(b, w.WorkspaceID, 10)
	}
	b = appendField(b, "submit", false)
	b = appendTime(b, w.Submit)
	b = appendField(b, "submittedFor", false)
	b = strconv.AppendInt(b, int64(w.SubmittedFor), 10)
	b = appendField(b, "runningFor", false)
	b = strconv.AppendInt(b, int64(w.RunningFor), 10)
	b = appendField(b, "endStatus", false)
	b = appendString(b, w.EndStatus)
	if w.Pinned != "" {
		b = appendField(b, "pinned", false)
		b = appendString(b, w.Pinned)
	}
	if w.PinnedAt != nil {
		b = appendField(b, "pinnedAt", false)
		b = appendTime(b, *w.PinnedAt)
	}
	return append(b, '}')
}

func appendField(b []byte, name string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced, as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
