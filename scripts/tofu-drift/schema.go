package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// providerSchema is what the sweep needs of `tofu providers schema -json`:
// the provider's kinds, and which attributes hold secrets.
type providerSchema struct {
	resources   map[string]attrs
	dataSources map[string]attrs
}

type attrs map[string]*attr

type attr struct {
	Sensitive bool `json:"sensitive"`
	WriteOnly bool `json:"write_only"`
	Nested    *struct {
		Attributes attrs `json:"attributes"`
	} `json:"nested_type"`
}

// providerAddress is where `tofu init` installs the provider from the
// mirror scripts/tofu-drift.sh writes.
const providerAddress = "registry.opentofu.org/seqeralabs/seqera"

// loadSchema initialises a configuration holding only the provider and
// reads its schema.
func loadSchema(ctx context.Context, cfg config) (*providerSchema, error) {
	dir := filepath.Join(cfg.logs, "_schema")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(filepath.Dir(cfg.kindsDir), "provider.tf"), filepath.Join(dir, "provider.tf")); err != nil {
		return nil, err
	}
	t := tofu{bin: cfg.tofu, dir: dir, timeout: cfg.stepTimeout}
	if res := t.run(ctx, "init", "init", "-input=false", "-no-color"); res.err != nil {
		return nil, fmt.Errorf("tofu init: %v\n%s", res.err, res.tail(20))
	}
	res := t.run(ctx, "schema", "providers", "schema", "-json")
	if res.err != nil {
		return nil, fmt.Errorf("tofu providers schema: %v\n%s", res.err, res.tail(20))
	}
	return parseSchema(res.stdout)
}

func parseSchema(data []byte) (*providerSchema, error) {
	type block struct {
		Block struct {
			Attributes attrs `json:"attributes"`
		} `json:"block"`
	}
	var doc struct {
		Providers map[string]struct {
			Resources   map[string]block `json:"resource_schemas"`
			DataSources map[string]block `json:"data_source_schemas"`
		} `json:"provider_schemas"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading the provider schema: %w", err)
	}
	p, ok := doc.Providers[providerAddress]
	if !ok {
		return nil, fmt.Errorf("the provider schema has no %s", providerAddress)
	}
	s := &providerSchema{resources: map[string]attrs{}, dataSources: map[string]attrs{}}
	for t, b := range p.Resources {
		s.resources[t] = b.Block.Attributes
	}
	for t, b := range p.DataSources {
		s.dataSources[t] = b.Block.Attributes
	}
	return s, nil
}

// secret reports whether the attribute at path (as in a plan: list indexes
// and map keys included) of a resource type is sensitive or write-only, or
// lies inside one that is.
func (s *providerSchema) secret(typ string, path []string) bool {
	level := s.resources[typ]
	for _, step := range path {
		if _, err := strconv.Atoi(step); err == nil {
			continue // a list element: same attribute
		}
		a, ok := level[step]
		if !ok {
			return false // a map key, or not in the schema
		}
		if a.Sensitive || a.WriteOnly {
			return true
		}
		if a.Nested == nil {
			return false
		}
		level = a.Nested.Attributes
	}
	return false
}
