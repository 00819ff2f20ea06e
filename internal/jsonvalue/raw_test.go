package jsonvalue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestMergeObjectIsTheMapMerge holds MergeObject to what decoding both
// sides, putting set's members over old's and encoding gives: the same
// value, whatever the old record holds (escapes, nesting, numbers as
// written, white space).
func TestMergeObjectIsTheMapMerge(t *testing.T) {
	olds := []string{
		``,
		`{}`,
		` { "a" : 1 , "b":"x" } `,
		`{"name":"ALIGN (1)","status":"RUNNING","cpus":2,"pcpu":97.50,"tags":{"k":["v",{"w":null}]},"ok":true,"none":null}`,
		`{"q\"uote":"a\\b\u00e9<&>","\u0041":"A","e":1e-7,"big":9007199254740993}`,
	}
	sets := []map[string]any{
		{},
		{"status": "COMPLETED", "exit": json.Number("0")},
		{"name": "<b> & \"q\" é\n", "new": map[string]any{"x": []any{json.Number("1.0"), nil}}, "n": int64(-3), "f": 1.5, "t": false},
		{"q\"uote": "replaced", "A": nil},
	}
	for _, old := range olds {
		for _, set := range sets {
			got, err := MergeObject([]byte(old), set)
			if err != nil {
				t.Fatalf("MergeObject(%s, %v): %v", old, set, err)
			}
			want := map[string]any{}
			if old != "" {
				want = decodeMap(t, []byte(old))
			}
			for k, v := range set {
				b, _ := json.Marshal(v) // as a record holds it
				want[k], _ = Decode(b)
			}
			if g := decodeMap(t, got); !reflect.DeepEqual(g, want) {
				t.Errorf("MergeObject(%s, %v)\n = %s\n decodes to %v\n want %v", old, set, got, g, want)
			}
		}
	}
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	v, ok := Decode(b)
	m, isMap := v.(map[string]any)
	if !ok || !isMap {
		t.Fatalf("%s is not one JSON object", b)
	}
	return m
}

// TestMembersRefusesWhatIsNotOneObject: a record that is not one object
// is an error, never a panic or a partial read taken for the whole.
func TestMembersRefusesWhatIsNotOneObject(t *testing.T) {
	for _, bad := range []string{``, ` `, `[]`, `"a"`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{"a":1 "b":2}`,
		`{"a":"x}`, `{"a":[1,2}`, `{"a":{"b":1]}`, `{a:1}`, `{"a":1}{}`} {
		if err := Members([]byte(bad), func(_, _ []byte) bool { return true }); err == nil {
			t.Errorf("Members(%q) read it as an object", bad)
		}
	}
	var names []string
	if err := Members([]byte(`{"a":{"x":[1,"]"]},"b":"}","c":-1.5e3}`), func(n, raw []byte) bool {
		names = append(names, string(n)+"="+string(raw))
		return true
	}); err != nil || !reflect.DeepEqual(names, []string{`a={"x":[1,"]"]}`, `b="}"`, `c=-1.5e3`}) {
		t.Errorf("Members read %q, %v", names, err)
	}
}

// TestScalarDecodesAsDecode: each encoded value reads as Decode reads it.
func TestScalarDecodesAsDecode(t *testing.T) {
	for _, raw := range []string{`"plain"`, `"esc\"aped\u00e9"`, `12`, `-0.50`, `1e999`, `true`, `false`, `null`, `{"a":[1]}`, `[1,"x"]`} {
		got, ok := Scalar([]byte(raw))
		want, wantOK := Decode([]byte(raw))
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("Scalar(%s) = %#v, %v; Decode gives %#v, %v", raw, got, ok, want, wantOK)
		}
	}
	for _, bad := range []string{``, `tru`, `-`, `1.`, `01`, `1e`, `1e+`, `-.5`, `"open`} {
		if _, ok := Scalar([]byte(bad)); ok {
			t.Errorf("Scalar(%q) read a value", bad)
		}
	}
}

// FuzzMembers: whatever the bytes, Members does not panic, and every
// object encoding/json reads it reads whole.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":[{"b":"c"}],"d":null}`, `{"a":"\"}"}`, ` {"a" : -1.5E+3 } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		err := Members(data, func(_, _ []byte) bool { n++; return true })
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil && m != nil && (err != nil || n < len(m)) {
			t.Errorf("Members read %d members of %q (%v); encoding/json reads %d", n, data, err, len(m))
		}
	})
}

// FuzzIsNumber holds IsNumber to encoding/json's grammar of a number.
func FuzzIsNumber(f *testing.F) {
	for _, s := range []string{`0`, `-0.5`, `12e+3`, `1E-7`, `01`, `1.`, `-`, `.5`, `1e`, `"1"`, `true`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		want := json.Valid(b) && len(bytes.TrimSpace(b)) == len(b) && (b[0] == '-' || b[0] >= '0' && b[0] <= '9')
		if got := IsNumber(b); got != want {
			t.Errorf("IsNumber(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestCompactMembersRebuildsExactly: CompactMembers says yes exactly when
// writing the members back gives the object byte for byte, and no to
// spaces between an object's own tokens and to what is not one object.
func TestCompactMembersRebuildsExactly(t *testing.T) {
	for data, want := range map[string]bool{
		`{}`:                           true,
		`{"a":1}`:                      true,
		`{"a":{"b" : [1, 2]},"c":"x"}`: true, // spaces inside a value are the value's
		`{"e\"s\\c":"\u00e9","":null}`: true,
		`{"a":1,"a":2}`:                true,
		`{ "a":1}`:                     false,
		`{"a" :1}`:                     false,
		`{"a": 1}`:                     false,
		`{"a":1 }`:                     false,
		`{"a":1, "b":2}`:               false,
		`{"a":1}{"b":2}`:               false,
		`{"a":1} `:                     false,
		`[1]`:                          false,
		`{"a":}`:                       false,
		`{"a"}`:                        false,
		`{"a":1,}`:                     false,
		`{`:                            false,
		``:                             false,
	} {
		var b strings.Builder
		b.WriteByte('{')
		n := 0
		got := CompactMembers([]byte(data), func(name, value []byte) {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.Write(name)
			b.WriteByte(':')
			b.Write(value)
		})
		b.WriteByte('}')
		if got != want {
			t.Errorf("CompactMembers(%q) = %v, want %v", data, got, want)
		}
		if got && b.String() != data {
			t.Errorf("CompactMembers(%q): the members write back %q", data, b.String())
		}
	}
}
