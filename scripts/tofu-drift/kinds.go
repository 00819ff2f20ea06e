package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A kind is one resource type or data source of the provider, with the
// configuration that exercises it.
type kind struct {
	name string // the type, "data." before a data source's
	typ  string // the type alone
	data bool
	file string // kinds/<name>.tf; "" when there is none
	// skip is why the kind cannot be checked against any fake (from a
	// "# skip: reason" line at the top of its file).
	skip string
	// unknown marks a file in kinds/ for a type the provider does not have.
	unknown bool
}

// listKinds joins the provider's kinds with the configurations in dir, in
// name order, resources first: a kind without a file and a file without a
// kind are both listed, to fail.
func listKinds(s *providerSchema, dir string) ([]kind, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return nil, err
	}
	have := map[string]string{}
	for _, f := range files {
		have[strings.TrimSuffix(filepath.Base(f), ".tf")] = f
	}
	var kinds []kind
	add := func(typ string, data bool) error {
		k := kind{name: typ, typ: typ, data: data}
		if data {
			k.name = "data." + typ
		}
		if f, ok := have[k.name]; ok {
			k.file = f
			delete(have, k.name)
			reason, err := skipReason(f)
			if err != nil {
				return err
			}
			k.skip = reason
		}
		kinds = append(kinds, k)
		return nil
	}
	for _, t := range sortedKeys(s.resources) {
		if err := add(t, false); err != nil {
			return nil, err
		}
	}
	for _, t := range sortedKeys(s.dataSources) {
		if err := add(t, true); err != nil {
			return nil, err
		}
	}
	for _, name := range sortedKeys(have) {
		typ, data := strings.CutPrefix(name, "data.")
		kinds = append(kinds, kind{name: name, typ: typ, data: data, file: have[name], unknown: true})
	}
	return kinds, nil
}

// skipReason reads the "# skip: reason" line among the comments that open
// a configuration.
func skipReason(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "#") {
			break
		}
		if reason, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(line, "#")), "skip:"); ok {
			return strings.TrimSpace(reason), nil
		}
	}
	return "", sc.Err()
}

// selectKinds keeps the kinds whose name matches one of the shell patterns
// (all of them without a pattern).
func selectKinds(kinds []kind, patterns []string) []kind {
	if len(patterns) == 0 {
		return kinds
	}
	return slices.DeleteFunc(slices.Clone(kinds), func(k kind) bool {
		for _, p := range patterns {
			if ok, _ := filepath.Match(p, k.name); ok {
				return false
			}
		}
		return true
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
