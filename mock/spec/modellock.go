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
	if d.guard != nil {
		d.guard(fn)
		return
	}
	d.modelMu.Lock()
	defer d.modelMu.Unlock()
	fn()
}

// Detached returns a document with no model of its own, for a reader that
// is handed libopenapi's schemas one at a time without their document
// (the synthesizer, when its caller does not name the document):
// Document.Schema compiles them as a loaded document does, with two
// differences. Components are found by the index of the schema that
// refers to them, each reference spelling its own key, so schemas of
// different documents never share a compiled component; and Component
// finds nothing. guard is the lock of the schemas' own document, held
// while compiling (nil: the detached document's own lock).
func Detached(guard func(func())) *Document {
	return &Document{guard: guard}
}
