// Command floor is bench/startup's yardstick: a bare Go program that reads
// an OpenAPI document and decodes its YAML into a map, which is the least
// any server must do before it can serve the document, and exits.
package main

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v4"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor FILE")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
