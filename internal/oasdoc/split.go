package oasdoc

import (
	"bytes"
	"runtime"

	"github.com/pb33f/libopenapi/datamodel"
	"github.com/pb33f/libopenapi/utils"
	"go.yaml.in/yaml/v4"
)

// Parsing a large document is most of start-up, and YAML is parsed on one
// core. A block-style document is a mapping whose keys start at column 0,
// so it can be cut before one of them into two documents that parse on
// their own: parseInfo parses the two halves at once and joins their
// top-level mappings. On two cores the published schema (570 KB) parses in
// 28-31 ms this way against 36-48 ms in one piece (BenchmarkParse, the
// collector off as it is during start-up).
//
// The cut is taken only where it cannot change the result, and any doubt
// falls back to libopenapi's own single parse, which then also gives the
// exact error a malformed document deserves:
//   - the first line with content is a plain key at column 0 (after a
//     byte-order mark or a "---" start marker), and every later line at
//     column 0 is blank, a comment, or a plain key: no flow style, quoted
//     keys, anchors, aliases, tags, directives or further documents at the
//     top;
//   - lines end in '\n' or "\r\n" only (YAML also breaks them at a lone
//     '\r' and at three Unicode separators) and hold no NUL (which could
//     be another encoding);
//   - both halves parse, and each holds a mapping at its root;
//   - the halves share no top-level key (the single parse reports that);
//   - nothing in the tail names an anchor of the head (its parse fails).
//
// The tail is preceded by blank lines so its nodes keep the lines and
// columns they have in the whole document; its first blank line carries an
// openapi key, so libopenapi parses it (and checks its keys for duplicates)
// as it does any document, and that key is dropped on joining.

// splitMinBytes is the size below which a cut is not worth its bookkeeping:
// the embedded document (115 KB) parses in about 10 ms in one piece.
const splitMinBytes = 128 << 10

// parseInfo parses b as libopenapi's ExtractSpecInfoWithConfig does, in two
// halves at once where b allows it.
func parseInfo(b []byte, cfg *datamodel.DocumentConfiguration) (*datamodel.SpecInfo, error) {
	if runtime.GOMAXPROCS(0) > 1 && len(b) >= splitMinBytes {
		// A cut leaving less than a quarter on one side saves too little.
		if at, line := cutPoint(b); at >= len(b)/4 && at <= len(b)-len(b)/4 {
			if info := parseHalves(b, at, line, cfg); info != nil {
				return info, nil
			}
		}
	}
	return datamodel.ExtractSpecInfoWithConfig(b, cfg)
}

// parseHalves parses b cut at offset at, the start of line, and returns nil
// wherever the result is not certain to be what one parse gives; the
// caller then parses the whole document.
func parseHalves(b []byte, at, line int, cfg *datamodel.DocumentConfiguration) *datamodel.SpecInfo {
	tail := make([]byte, 0, len("openapi: 3.0.0")+line-1+len(b)-at)
	tail = append(tail, "openapi: 3.0.0"...)
	for range line - 1 {
		tail = append(tail, '\n')
	}
	tail = append(tail, b[at:]...)

	type result struct {
		info *datamodel.SpecInfo
		err  error
	}
	done := make(chan result, 1)
	go func() {
		info, err := datamodel.ExtractSpecInfoWithConfig(tail, cfg)
		done <- result{info, err}
	}()
	head, herr := datamodel.ExtractSpecInfoWithConfig(b[:at], cfg)
	rest := <-done
	if herr != nil || rest.err != nil {
		return nil
	}
	hd, td := head.RootNode, rest.info.RootNode
	hm, tm := rootMapping(hd), rootMapping(td)
	if hm == nil || tm == nil || len(tm.Content) < 4 ||
		tm.Content[0].Value != "openapi" || tm.Content[0].Line != 1 {
		return nil
	}
	// Comments at the end of the document are the tail's; any other
	// comment on the nodes that are dropped or joined would be a surprise.
	if hd.FootComment != "" || hm.FootComment != "" || td.HeadComment != "" || tm.HeadComment != "" ||
		tm.LineComment != "" || commented(tm.Content[0]) || commented(tm.Content[1]) {
		return nil
	}
	hd.FootComment, hm.FootComment = td.FootComment, tm.FootComment
	moved := tm.Content[2:]
	for i := 0; i < len(moved); i += 2 {
		if mapValue(hm, moved[i].Value) != nil {
			return nil // one parse reports the key twice
		}
	}
	hm.Content = append(hm.Content, moved...)
	head.SpecBytes = &b
	head.NumLines = bytes.Count(b, []byte{'\n'}) + 1
	head.OriginalIndentation = utils.DetermineWhitespaceLengthBytes(b)
	return head
}

// commented reports whether n carries a comment of any kind.
func commented(n *yaml.Node) bool {
	return n.HeadComment != "" || n.LineComment != "" || n.FootComment != ""
}

// rootMapping is the mapping at the root of a parsed document, or nil.
func rootMapping(doc *yaml.Node) *yaml.Node {
	if doc == nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil
	}
	if m := doc.Content[0]; m.Kind == yaml.MappingNode && m.Style&yaml.FlowStyle == 0 {
		return m
	}
	return nil
}

// cutPoint chooses where to cut b: the offset and 1-based line of the
// top-level key nearest the middle of b whose value starts on the next
// line and which follows an indented line that is not a comment. Cutting
// right after the previous entry's content leaves every comment and blank
// line where one parse puts it (a comment above a key belongs to that key;
// blank lines may belong to a block scalar above). It returns 0 when b is
// not a plain block mapping at column 0 throughout (see the rules above).
func cutPoint(b []byte) (at, line int) {
	if b[0] == '{' || b[0] == '[' || bytes.IndexByte(b, 0) >= 0 {
		return 0, 0
	}
	// YAML breaks lines at these too; the cut counts lines by '\n'.
	for _, br := range []string{"\u0085", "\u2028", "\u2029"} {
		if bytes.Contains(b, []byte(br)) {
			return 0, 0
		}
	}
	indented := false // whether the previous line is indented content
	n, keys := 0, 0
	// A byte-order mark stays with the head, where the parser expects it.
	start := len(b) - len(bytes.TrimPrefix(b, []byte("\ufeff")))
	for off := start; off < len(b); {
		n++
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += off
		}
		if cr := bytes.IndexByte(b[off:end], '\r'); cr >= 0 && (off+cr != end-1 || end == len(b)) {
			return 0, 0 // a carriage return on its own breaks a line too
		}
		l := bytes.TrimRight(b[off:end], " \t\r")
		after := indented
		indented = false
		switch {
		case len(l) == 0 || l[0] == '#':
		case l[0] == ' ':
			indented = bytes.TrimLeft(l, " \t")[0] != '#'
			if indented && keys == 0 {
				return 0, 0 // the root is not a mapping at column 0
			}
		case n == 1 && string(l) == "---":
		default:
			key, opens := plainKey(l)
			if !key {
				return 0, 0
			}
			keys++
			if opens && after && (at == 0 || distance(off, len(b)) < distance(at, len(b))) {
				at, line = off, n
			}
		}
		off = end + 1
	}
	return at, line
}

// plainKey reports whether l is a top-level entry with a plain key, and
// whether its value opens on the following lines (nothing after the colon
// but a comment).
func plainKey(l []byte) (key, opens bool) {
	i := 0
	for i < len(l) && (l[i] == '_' || l[i] == '-' || l[i] == '.' ||
		'a' <= l[i] && l[i] <= 'z' || 'A' <= l[i] && l[i] <= 'Z' || '0' <= l[i] && l[i] <= '9') {
		i++
	}
	if i == 0 || l[0] == '-' || l[0] == '.' || i == len(l) || l[i] != ':' {
		return false, false
	}
	rest := bytes.TrimLeft(l[i+1:], " \t")
	if i+1 < len(l) && l[i+1] != ' ' && l[i+1] != '\t' {
		return false, false // "a:b" is a scalar, not a key
	}
	return true, len(rest) == 0 || rest[0] == '#'
}

// distance is how far offset at is from the middle of a document of size n.
func distance(at, n int) int {
	if d := at - n/2; d >= 0 {
		return d
	}
	return n/2 - at
}
