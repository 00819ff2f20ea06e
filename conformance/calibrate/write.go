package calibrate

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/profile"
)

// YAML writes the result as a profile file: only the keys the run observed
// (the fake lays them over its defaults), each under a comment saying what
// was seen, with the server, the time and the server's API version at the
// top and the points left open as comments at the end. The text is checked
// to load as a profile before it is returned, and no token value appears
// in it.
func (r *Result) YAML() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range r.Findings {
		if err := set(root, strings.Split(f.Key, "."), f.Value, "observed: "+f.Seen); err != nil {
			return nil, fmt.Errorf("calibrate: %s: %w", f.Key, err)
		}
	}
	version := r.APIVersion
	if version == "" {
		version = "(not given)"
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, HeadComment: strings.Join([]string{
		"Behaviour profile written by wmsmock calibrate.",
		"Server: " + r.Server,
		"At: " + r.At.Format("2006-01-02T15:04:05Z"),
		"serviceInfo.apiVersion: " + version,
		"Keys not listed keep the fake's defaults (see its embedded profile).",
	}, "\n")}
	if len(r.Notes) > 0 {
		doc.FootComment = "Also seen, and not settled by this run:\n- " + strings.Join(r.Notes, "\n- ")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	out := []byte(scrub(buf.String(), r.secrets))
	if _, err := profile.Parse(out); err != nil {
		return nil, fmt.Errorf("calibrate: the profile written does not load: %w", err)
	}
	return out, nil
}

// set puts value at path under m, creating the mappings on the way, with
// comment above the key.
func set(m *yaml.Node, path []string, value any, comment string) error {
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value != path[0] {
			continue
		}
		if len(path) == 1 {
			return fmt.Errorf("set twice")
		}
		return set(m.Content[i+1], path[1:], value, comment)
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Value: path[0]}
	var val *yaml.Node
	if len(path) == 1 {
		key.HeadComment = comment
		val = &yaml.Node{}
		if err := val.Encode(value); err != nil {
			return err
		}
		if val.Kind == yaml.MappingNode || val.Kind == yaml.SequenceNode {
			val.Style = yaml.FlowStyle
		}
	} else {
		val = &yaml.Node{Kind: yaml.MappingNode}
		if err := set(val, path[1:], value, comment); err != nil {
			return err
		}
	}
	m.Content = append(m.Content, key, val)
	return nil
}
