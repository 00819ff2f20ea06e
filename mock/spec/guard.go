package spec

import "sync"

// modelMu serializes every first use of a schema in libopenapi's model.
//
// libopenapi builds parts of its model lazily and writes to schemas (and to
// the YAML nodes behind them) while rendering them for validation, so two
// goroutines that render or walk overlapping schemas at the same time race.
// Every such first use (compiling a schema for validation, preparing it for
// synthesis) runs under this one lock; the results are cached by their
// owners, so the hot path only reads and never takes it.
var modelMu sync.Mutex

// Guard runs fn while holding the model lock.
func Guard(fn func()) {
	modelMu.Lock()
	defer modelMu.Unlock()
	fn()
}
