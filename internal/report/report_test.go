package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestCellStaysInItsCell(t *testing.T) {
	for in, want := range map[string]string{
		"plain":         "plain",
		"a|b":           `a\|b`,
		"two\nlines":    "two<br>lines",
		"crlf\r\nbreak": "crlf<br>break",
		"old\rmac":      "old<br>mac",
		"|\n|":          `\|<br>\|`,
	} {
		got := Cell(in)
		if got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
		// Whatever the text, the row it stands in stays one line with
		// no unescaped pipe of its own.
		if strings.ContainsAny(got, "\r\n") || strings.Count(got, "|") != strings.Count(got, `\|`) {
			t.Errorf("Cell(%q) = %q breaks the table", in, got)
		}
	}
}

func TestJSONIsIndentedAndEndsTheLine(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, map[string]any{"a": []int{1}}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": [\n    1\n  ]\n}\n"; b.String() != want {
		t.Errorf("JSON = %q, want %q", b.String(), want)
	}
}
