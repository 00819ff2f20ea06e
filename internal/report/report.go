// Package report holds what the contract tools' report writers share
// (fidelity, diff, proxy): the Markdown table cell and the indented JSON
// form. Each tool lays out its own report; these are the two pieces where
// they must not drift apart, so that a cell written by one tool reads the
// same in another tool's table and every JSON report diffs alike.
package report

import (
	"encoding/json"
	"io"
	"strings"
)

// cellText escapes what would end a Markdown table cell early: a pipe
// would split the cell and a line break would end the row. A break is
// kept as <br>, which GitHub and GitLab render inside a table.
var cellText = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

// Cell returns s fit to stand in one cell of a Markdown table.
func Cell(s string) string { return cellText.Replace(s) }

// JSON writes v as indented JSON, one value ending in a newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
