package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v4"
)

// A judge tells, for an attribute a plan after an import sets again over
// a null from the fake, whether that is the fake's fault. It is not when:
//   - the provider's schema marks the attribute sensitive or write-only, or
//     the served document marks the property it comes from writeOnly (the
//     service never returns it: a secret);
//   - the provider does not read the attribute from the service's answers
//     at all (notReadBack), so no service could fill it in on an import.
type judge struct {
	schema    *providerSchema
	writeOnly map[string]bool // camelCase property names marked writeOnly in the document
}

const (
	excuseSecret  = "write-only"
	excuseNotRead = "not read back by the provider"
)

// A notRead is an attribute the provider fills from its prior state, or
// leaves as the import set it, whatever the service answers; when, if set,
// limits it to resources whose planned values it accepts.
type notRead struct {
	path string // dotted, without list indexes
	when func(after map[string]any) bool
}

// notReadBack lists, per resource type, the attributes the provider never
// reads from the service's answers, each seen in its source
// (seqeralabs/terraform-provider-seqera, internal/provider/*_resource_sdk.go
// RefreshFrom* methods, internal/seqera/*/resource.go Read). An import
// cannot reproduce them against any service.
var notReadBack = map[string][]notRead{
	// action_resource_sdk.go: launch.compute_env_id and label_ids are copied
	// from the prior state; workspace_id is never set from an answer, and
	// the import id is the action id alone.
	"seqera_action": {{path: "launch.compute_env_id"}, {path: "launch.label_ids"}, {path: "workspace_id"}},
	// pipeline_resource_sdk.go: as for actions, from the pipeline's launch.
	"seqera_pipeline": {{path: "launch.compute_env_id"}, {path: "launch.label_ids"}},
	// credential_resource_sdk.go: workspace_id is never set from an answer;
	// the import id is the credentials id alone.
	"seqera_credential": {{path: "workspace_id"}},
	// datalink_resource_sdk.go: credentials_id and workspace_id are never
	// set from an answer (the answer's credentials list goes to credentials).
	"seqera_data_link": {{path: "credentials_id"}, {path: "workspace_id"}},
	// toweragentcredential_resource_sdk.go: connection_id is only sent.
	"seqera_tower_agent_credential": {{path: "connection_id"}},
	// workspace_participant/resource.go Read: for a team participant it
	// refreshes nothing from the participant found, its role included.
	"seqera_workspace_participant": {
		{path: "role", when: func(after map[string]any) bool { return after["team_id"] != nil }},
		{path: "participant_id", when: func(after map[string]any) bool { return after["team_id"] != nil }},
	},
}

// loadJudge reads the writeOnly properties of the document each fake serves.
func loadJudge(schema *providerSchema, spec string) (*judge, error) {
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", spec, err)
	}
	j := &judge{schema: schema, writeOnly: map[string]bool{}}
	collectWriteOnly(doc, j.writeOnly)
	return j, nil
}

// collectWriteOnly gathers the names of the properties marked writeOnly
// anywhere in a decoded document.
func collectWriteOnly(node any, into map[string]bool) {
	switch n := node.(type) {
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok {
			for name, p := range props {
				if pm, ok := p.(map[string]any); ok && pm["writeOnly"] == true {
					into[name] = true
				}
			}
		}
		for _, v := range n {
			collectWriteOnly(v, into)
		}
	case []any:
		for _, v := range n {
			collectWriteOnly(v, into)
		}
	}
}

// excuse is why the fake may answer null for the attribute at path of a
// resource of type typ planned with the values after; "" when it may not.
func (j *judge) excuse(typ string, path []string, after map[string]any) string {
	if j == nil {
		return ""
	}
	if j.schema != nil && j.schema.secret(typ, path) {
		return excuseSecret
	}
	if leaf := lastName(path); leaf != "" && j.writeOnly[camel(leaf)] {
		return excuseSecret
	}
	dotted := strings.Join(slices.DeleteFunc(slices.Clone(path), isIndex), ".")
	for _, n := range notReadBack[typ] {
		if n.path == dotted && (n.when == nil || n.when(after)) {
			return excuseNotRead
		}
	}
	return ""
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// lastName is the last step of path that is not a list index.
func lastName(path []string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if !isIndex(path[i]) {
			return path[i]
		}
	}
	return ""
}

// camel turns the provider's snake_case attribute name into the document's
// camelCase property name: batch_key -> batchKey.
func camel(snake string) string {
	var b strings.Builder
	up := false
	for _, r := range snake {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
