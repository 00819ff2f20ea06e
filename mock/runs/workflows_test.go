package runs

import (
	"reflect"
	"testing"
)

func TestProjectName(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/nf-core/rnaseq":     "nf-core/rnaseq",
		"https://github.com/nf-core/rnaseq.git": "nf-core/rnaseq",
		"nf-core/sarek":                         "nf-core/sarek",
		"https://gitlab.example/a/b/":           "a/b",
	} {
		if got := projectName(in); got != want {
			t.Errorf("projectName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A launch body is read the same whether it fits the typed fast path or
// needs the map path (a field of an unexpected type, which a document
// other than the service's may allow): the fields of the expected types
// are kept either way.
func TestReadLaunch(t *testing.T) {
	typed, err := readLaunch([]byte(`{"launch":{"pipeline":"p","runName":"r","resume":true,"configProfiles":["a","b"],"workDir":"w"}}`))
	if err != nil {
		t.Fatal(err)
	}
	loose, err := readLaunch([]byte(`{"launch":{"pipeline":"p","runName":"r","resume":true,"configProfiles":["a",3,"b"],"workDir":"w","revision":7}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(typed, loose) {
		t.Errorf("typed %+v\nloose %+v", typed.Launch, loose.Launch)
	}
	if typed.Launch.Pipeline != "p" || !typed.Launch.Resume || len(typed.Launch.ConfigProfiles) != 2 {
		t.Errorf("typed read lost fields: %+v", typed.Launch)
	}
	if _, err := readLaunch([]byte(`{"launch":`)); err == nil {
		t.Error("a body that is not JSON was read")
	}
}
