package workflow

import (
	"encoding/json"
	"testing"
)

// Whatever the string, AppendJSONString writes JSON that decodes back to what
// encoding/json decodes its own encoding to.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "\n\r\t\x00\x1f\x7f", "é ü \u2028 \U0001F600", "bad \xff utf8", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendJSONString([]byte("x"), s)
		if got[0] != 'x' {
			t.Fatal("the prefix was overwritten")
		}
		var a, b string
		if err := json.Unmarshal(got[1:], &a); err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", s, got[1:], err)
		}
		want, _ := json.Marshal(s)
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("%q: decodes to %q, encoding/json's to %q", s, a, b)
		}
	})
}
