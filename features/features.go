// Package features holds the conformance scenarios: Gherkin files that
// restate the service contract (CONTRACT.md) as examples a reader of the
// contract recognises. They are embedded so that the wmsmock binary can run
// them against any server without the source tree beside it.
package features

import "embed"

// FS holds every scenario file, at the root of the file system
// ("authentication.feature", ...).
//
//go:embed *.feature
var FS embed.FS
