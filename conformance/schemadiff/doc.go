// Package schemadiff says what changed between two versions of an OpenAPI
// document, which of those changes break clients, and whose calls they
// break: the conformance scenarios of a run, or a user's own traffic.
//
// Finding and classifying changes is left to oasdiff (its diff tree and its
// breaking-change checker, hundreds of rules that know a change's direction:
// a new enum value is harmless in a request and risky in a response). What
// is ours is on top of it: the service's own compatibility policy as the
// default severity of each rule (Policy), and the mapping from a change's
// operation to the scenarios and calls that use that operation (Impact).
//
// Like the rest of the judge, the package imports nothing of the fake: the
// documents are read from their bytes, and a scenario's operations come
// from a conformance result.
package schemadiff
