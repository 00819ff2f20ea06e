// Package oasdoc reads an OpenAPI 3 document into libopenapi's model, the
// one way both halves of the project read one: the fake (mock/spec) and the
// conformance judge, which builds its own model from the same bytes and
// judges answers with the validator library itself.
//
// Reading is more than parsing in two respects, both documented where they
// happen: references never reach the network or the file system, and a
// discriminated oneOf is rewritten into the plain JSON Schema that means
// the same (discriminator.go), since the validator knows nothing of
// discriminators.
package oasdoc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/datamodel/low"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	v3low "github.com/pb33f/libopenapi/datamodel/low/v3"

	"github.com/wmsmock/wmsmock/internal/stopwatch"
)

// Read parses an OpenAPI 3.0 or 3.1 document, in YAML or JSON, and builds
// its model. It returns the model and the document's openapi version.
func Read(b []byte) (*v3.Document, string, error) { return ReadTimed(b, nil) }

// ReadTimed is Read, timing its steps on w: "parse" (the YAML or JSON into
// a node tree) and "model" (the index of references and libopenapi's model).
func ReadTimed(b []byte, w *stopwatch.Watch) (*v3.Document, string, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, "", errors.New("the OpenAPI document is empty")
	}
	defer ReleaseCaches()
	cfg := documentConfig()
	info, err := parseInfo(b, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("not an OpenAPI document: %w", err)
	}
	if info.SpecType != "openapi" || !strings.HasPrefix(info.Version, "3.") {
		return nil, "", fmt.Errorf("only OpenAPI 3.x documents are supported (found version %q)", info.Version)
	}
	normalizeDiscriminators(info.RootNode)
	w.Lap("parse")
	model, err := buildModel(info, cfg)
	w.Lap("model")
	if err != nil {
		return nil, "", fmt.Errorf("building the document model: %w", err)
	}
	return model, info.Version, nil
}

// buildModel builds the model of a parsed document as libopenapi's
// Document.BuildV3Model does, which takes the document only as bytes that
// it parses itself (parseInfo parses them faster). Circular-reference
// notices are not errors here (see onlyCircular).
func buildModel(info *datamodel.SpecInfo, cfg *datamodel.DocumentConfiguration) (*v3.Document, error) {
	lowDoc, err := v3low.CreateDocumentFromConfig(info, cfg)
	if lowDoc == nil || err != nil && !onlyCircular(err) {
		if err == nil {
			err = errors.New("the document has no openapi version")
		}
		return nil, err
	}
	model := v3.NewDocument(lowDoc)
	model.Rolodex = lowDoc.Index.GetRolodex()
	// libopenapi's memo of schema hashes, which its BuildV3Model empties
	// once the model is built.
	lowbase.SchemaQuickHashMap.Clear()
	return model, nil
}

// documentConfig is how every document is read.
func documentConfig() *datamodel.DocumentConfiguration {
	cfg := datamodel.NewDocumentConfiguration()
	// A document is read as it is: a reference never reaches out to the
	// network or the file system.
	cfg.AllowFileReferences = false
	cfg.AllowRemoteReferences = false
	// Two passes over the whole document that nothing here reads: the
	// index's metadata (every description, summary and enum, for linters)
	// and its search for circular references (generation and validation
	// bound recursion themselves, see synth and cyclic_test.go). Skipping
	// them takes a third off building the published schema's model.
	cfg.SkipMetadataCollection = true
	cfg.SkipCircularReferenceCheck = true
	return cfg
}

// ReleaseCaches empties libopenapi's process-wide memo of node hashes and
// of each index's reference tables. Its entries are keyed by the parsed
// nodes and the index themselves, so without this every document a
// process ever read stays reachable: each fake started and closed in a
// test binary would keep its whole parse tree (3 MB for the embedded
// document, tens for the published one). The memo only saves recomputing
// pure functions of a node, so emptying it while other documents are in
// use costs them a recomputation, never a wrong answer. Read calls it
// once its model is built; a server calls it again when it closes.
func ReleaseCaches() { low.ClearHashCache() }

// onlyCircular reports whether err holds nothing but circular-reference
// notices, which libopenapi raises for recursive schemas that are perfectly
// usable (generation and validation bound their depth).
func onlyCircular(err error) bool {
	var joined interface{ Unwrap() []error }
	errs := []error{err}
	if errors.As(err, &joined) {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		if !strings.Contains(strings.ToLower(e.Error()), "circular reference") {
			return false
		}
	}
	return true
}
