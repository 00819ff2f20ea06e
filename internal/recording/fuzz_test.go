package recording

import (
	"encoding/json"
	"testing"
)

// FuzzRedactJSON: whatever JSON comes in, what comes out is JSON, holds no
// string value under a secret name but "[REDACTED]", and is unchanged when
// nothing was replaced.
func FuzzRedactJSON(f *testing.F) {
	for _, seed := range []string{
		`{"accessKey":"k","token":{"id":1,"name":"n"}}`,
		`[{"password":"p"},{"x":["password","secret"]},{"apiKey":null,"secret":3}]`,
		`{"a":{"b":{"privateKey":"-----BEGIN-----\n"}}, "s\u0065cret": "x"}`,
		`"token"`, `{}`, `{"token":"a","token":"b"}`, `{"k": "v"} {"secret": "w"}`,
	} {
		f.Add([]byte(seed))
	}
	r := NewRedactor("batchKey")
	f.Fuzz(func(t *testing.T, in []byte) {
		var v any
		if json.Unmarshal(in, &v) != nil {
			return
		}
		out, n, ok := r.JSON(in)
		if !ok {
			t.Fatalf("valid JSON refused: %s", in)
		}
		if n == 0 && string(out) != string(in) {
			t.Fatalf("nothing replaced, yet changed: %s -> %s", in, out)
		}
		var w any
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("not JSON after redaction: %v\n%s\n->\n%s", err, in, out)
		}
		var walk func(any)
		walk = func(x any) {
			switch x := x.(type) {
			case map[string]any:
				for k, val := range x {
					if s, isString := val.(string); isString && r.Secret(k) && s != Redacted {
						t.Fatalf("%q kept its value %q: %s", k, s, out)
					}
					walk(val)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(w)
	})
}
