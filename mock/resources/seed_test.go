package resources

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A seed that cannot be served as written is refused at start, naming the
// file and what is wrong with it.
func TestLoadSeedRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"not YAML", map[string]string{"a.yaml": "workflows: ["}, "seed file a.yaml"},
		{"unknown field", map[string]string{"a.yaml": "pipelines: []\n"}, "seed file a.yaml"},
		{"two users", map[string]string{"a.yaml": "user: {id: 1}\n", "b.yml": "user: {id: 2}\n"}, "the user is already given in a.yaml"},
		{"relative collection", map[string]string{"c.json": `{"collections": {"pipelines": []}}`}, `collection "pipelines" must be a path`},
		{"unknown status", map[string]string{"w.yaml": "workflows: [{pipeline: p, status: DONE}]\n"}, "workflow 1: invalid workflow status"},
		{"end status not final", map[string]string{"w.yaml": "workflows: [{pipeline: p, endStatus: RUNNING}]\n"}, "cannot end in"},
		{"no pipeline", map[string]string{"w.yaml": "workflows: [{runName: x}]\n"}, "workflow 1 has no pipeline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, text := range tc.files {
				fsys[name] = &fstest.MapFile{Data: []byte(text)}
			}
			_, err := LoadSeed(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadSeed: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// Files that are not seed files are left alone, an empty file is an empty
// seed, and values come out as JSON decoding would give them.
func TestLoadSeedReads(t *testing.T) {
	s, err := LoadSeed(fstest.MapFS{
		"README.md":   {Data: []byte("# not a seed")},
		"empty.yaml":  {Data: nil},
		"dir/x.yaml":  {Data: []byte("workflows: [{}]")},
		"pipes.yaml":  {Data: []byte("collections:\n  /pipelines:\n    - {pipelineId: 7, name: p, at: 2026-01-02T03:04:05Z, tags: [1, 2]}\n")},
		"user.yaml":   {Data: []byte("user: {id: 1, userName: someone}\n")},
		"runs.yaml":   {Data: []byte("workflows:\n  - {pipeline: p, status: FAILED}\n")},
		"other.json":  {Data: []byte(`{"workflows": [{"pipeline": "q"}]}`)},
		"ignored.txt": {Data: []byte("user: nobody")},
	})
	if err != nil {
		t.Fatal(err)
	}
	item := s.Collections["/pipelines"][0]
	if id, ok := item["pipelineId"].(int64); !ok || id != 7 {
		t.Errorf("pipelineId = %#v, want int64 7", item["pipelineId"])
	}
	if at, ok := item["at"].(string); !ok || at != "2026-01-02T03:04:05Z" {
		t.Errorf("a YAML time = %#v, want its RFC 3339 text", item["at"])
	}
	if tags, ok := item["tags"].([]any); !ok || tags[0] != int64(1) {
		t.Errorf("tags = %#v", item["tags"])
	}
	if s.User["userName"] != "someone" || len(s.Workflows) != 2 {
		t.Errorf("user %v, %d workflows; want someone and 2", s.User, len(s.Workflows))
	}
}
