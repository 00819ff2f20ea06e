package validate

import (
	"go.yaml.in/yaml/v4"

	"github.com/wmsmock/wmsmock/mock/spec"
)

// anyObjects rewrites an inlined response schema to take, wherever a
// schema says only "type: object" (the document's rendering of a Java
// Object, such as the values of a run's params), any JSON value, as the
// service's JSON layer writes whatever such a property holds
// (WithAnyObjects). A schema that says more than "an object" (properties,
// additionalProperties, a composition, a reference...) is left as it is.
func anyObjects(root *yaml.Node) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			if spec.BareObject(n) {
				dropKey(n, "type")
			}
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i], depth+1)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	walk(root, 0)
}

// dropKey deletes key from a mapping node the caller owns (an inlined copy).
func dropKey(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i:i], n.Content[i+2:]...)
			return
		}
	}
}
