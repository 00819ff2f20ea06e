package spec

// Guard runs fn while holding the document's model lock.
//
// libopenapi builds parts of its model lazily and writes to schemas (and to
// the YAML nodes behind them) while rendering them for validation, so two
// goroutines that render or walk overlapping schemas of one document at the
// same time race. Every such first use (compiling a schema for validation,
// preparing it for synthesis, compiling the model of Document.Schema) runs
// under this lock; the results are cached by their owners, so the hot path
// only reads and never takes it. The lock is the document's: servers on
// different documents never wait for each other, and servers sharing one
// document share its lock.
func (d *Document) Guard(fn func()) {
	d.modelMu.Lock()
	defer d.modelMu.Unlock()
	fn()
}
