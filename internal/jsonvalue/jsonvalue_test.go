package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestCloneIsDeep(t *testing.T) {
	orig := map[string]any{"a": []any{map[string]any{"b": 1.0}}, "c": "d"}
	c := Clone(orig).(map[string]any)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone %v differs from %v", c, orig)
	}
	c["a"].([]any)[0].(map[string]any)["b"] = 2.0
	c["c"] = "e"
	if orig["a"].([]any)[0].(map[string]any)["b"] != 1.0 || orig["c"] != "d" {
		t.Errorf("changing the clone changed the original: %v", orig)
	}
}

func TestNumber(t *testing.T) {
	for _, v := range []any{3, int32(3), int64(3), uint64(3), float32(3), 3.0, json.Number("3")} {
		if f, ok := Number(v); !ok || f != 3 {
			t.Errorf("Number(%#v) = %v, %v", v, f, ok)
		}
	}
	for _, v := range []any{"3", nil, true, json.Number("x")} {
		if _, ok := Number(v); ok {
			t.Errorf("Number(%#v) reads a number", v)
		}
	}
}

func TestDecodeKeepsNumbersAsWritten(t *testing.T) {
	v, ok := Decode([]byte(` {"a":1.50,"b":[9007199254740993,true,null]} `))
	if !ok {
		t.Fatal("one object did not decode")
	}
	m := v.(map[string]any)
	if m["a"] != json.Number("1.50") || m["b"].([]any)[0] != json.Number("9007199254740993") {
		t.Errorf("numbers not kept as written: %#v", m)
	}
	for _, bad := range []string{``, `{`, `{} {}`, `{}x`, `[1,]`} {
		if _, ok := Decode([]byte(bad)); ok {
			t.Errorf("%q decoded as one JSON value", bad)
		}
	}
}

func TestFinite(t *testing.T) {
	for body, want := range map[string]bool{
		`{"a":[1,2.5,1e308,-1E-400]}`:        true,
		`{"a":[1,{"b":1e999}]}`:              false,
		`[-1E309]`:                           false,
		`{"s":"1e999"}`:                      true,
		`"` + strings.Repeat("9", 400) + `"`: true,
		strings.Repeat("9", 400):             false,
	} {
		v, ok := Decode([]byte(body))
		if !ok {
			t.Fatalf("%s did not decode", body)
		}
		if got := Finite(v); got != want {
			t.Errorf("Finite(%s) = %v, want %v", body, got, want)
		}
	}
}

func TestInt(t *testing.T) {
	for v, want := range map[any]int64{json.Number("42"): 42, json.Number("4.9"): 4, " 7 ": 7, 3.7: 3, int64(-2): -2} {
		if n, ok := Int(v); !ok || n != want {
			t.Errorf("Int(%#v) = %d, %v; want %d", v, n, ok, want)
		}
	}
	for _, v := range []any{"4.5", "x", nil, true, json.Number("x")} {
		if _, ok := Int(v); ok {
			t.Errorf("Int(%#v) reads a whole number", v)
		}
	}
}

func TestDropNulls(t *testing.T) {
	v := map[string]any{"a": nil, "b": []any{map[string]any{"c": nil, "d": 1.0}}, "e": "x"}
	got := DropNulls(v)
	want := map[string]any{"b": []any{map[string]any{"d": 1.0}}, "e": "x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DropNulls = %v, want %v", got, want)
	}
}

// A value that holds itself is walked to the bound, not forever.
func TestDropNullsStopsAtItsBound(t *testing.T) {
	m := map[string]any{"gone": nil}
	m["self"] = m
	DropNulls(m)
	if _, ok := m["gone"]; ok {
		t.Error("the top-level null was kept")
	}
}

// decodeAsEncodingJSON is what Decode must agree with: the standard
// library's decoder, numbers as written, and nothing after the one value.
func decodeAsEncodingJSON(body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return v, true
}

// decodeSeeds are bodies where a decoder written by hand could part from
// encoding/json: escapes, surrogates, invalid UTF-8, duplicate names,
// empty containers, numbers at their edges, whitespace, and what follows
// a value.
var decodeSeeds = []string{
	`{}`, `[]`, ` {"a":[]} `, `{"a":{},"b":[{}]}`, `null`, `true`, `false`, `0`, `-0`, `1.5e-7`, `-12E+3`,
	`"plain"`, `"tab\tquote\"slash\/back\\"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"caf` + "\xc3\xa9" + `"`,
	`"bad` + "\xff\xfe" + `"`, `{"k":1,"k":2}`, `{"` + "\xe2\x82" + `":1}`, "\t\r\n[1 ,\n 2]\n",
	`{"tasks":[{"taskId":1,"memory":4294967296,"pcpu":97.5,"tag":null}],"progress":{"running":1}}`,
	`9007199254740993`, `1e999`, `{"a":1}{"b":2}`, `{"a":1} x`, `[1,]`, `{"a"}`, `01`, `.5`, `"`, ``, ` `,
	"\ufeff{}", `[` + strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50) + `]`,
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecodeAgrees(t, []byte(s))
	}
}

func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeAgrees)
}

func checkDecodeAgrees(t *testing.T, body []byte) {
	got, ok := Decode(body)
	want, wantOK := decodeAsEncodingJSON(body)
	if ok != wantOK {
		t.Fatalf("Decode(%q): ok %v, encoding/json %v", body, ok, wantOK)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v, encoding/json %#v", body, got, want)
	}
}

// BenchmarkDecode decodes a progress report of 100 tasks as Nextflow
// writes it, with Decode and with encoding/json's decoder as Decode used
// to:
//
//	go test ./internal/jsonvalue -run XXX -bench Decode -benchmem
func BenchmarkDecode(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"tasks":[`)
	for id := 1; id <= 100; id++ {
		if id > 1 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"taskId":%d,"status":"RUNNING","hash":"ab/%06x","name":"ALIGN (%d)","process":"ALIGN","tag":"sample_%d",`+
			`"submit":"2026-03-01T12:00:00Z","workdir":"/work/ab/%06x","cpus":2,"memory":4294967296,"attempt":1,`+
			`"nativeId":"%d","executor":"local","realtime":1500,"pcpu":97.5,"peakRss":104857600,"rchar":2048,"wchar":1024}`,
			id, id, id, id, id, 40000+id)
	}
	body.WriteString(`],"progress":{"running":100},"containers":[]}`)
	data := []byte(body.String())
	for _, c := range []struct {
		name   string
		decode func([]byte) (any, bool)
	}{{"Decode", Decode}, {"encoding-json", decodeAsEncodingJSON}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, ok := c.decode(data); !ok {
					b.Fatal("did not decode")
				}
			}
		})
	}
}

// TestDecodeReservesNoMoreThanTheBodyHolds: a map is made room for as many
// members as its array's previous element had, so a body of one wide
// object then many empty ones must not have the decoder reserve the wide
// one's room for each: it allocates about what encoding/json does.
func TestDecodeReservesNoMoreThanTheBodyHolds(t *testing.T) {
	var wide strings.Builder
	wide.WriteString(`{`)
	for i := range 1000 {
		if i > 0 {
			wide.WriteByte(',')
		}
		fmt.Fprintf(&wide, `"m%d":%d`, i, i)
	}
	wide.WriteString(`}`)
	for _, c := range []struct{ name, body string }{
		{"empty siblings", `[` + wide.String() + strings.Repeat(`,{}`, 20000) + `]`},
		{"nested after it", `[` + wide.String() + `,` + strings.Repeat(`{"a":`, 5000) + `{}` + strings.Repeat(`}`, 5000) + `]`},
	} {
		body := []byte(c.body)
		allocated := func(decode func([]byte) (any, bool)) uint64 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, ok := decode(body); !ok {
				t.Fatalf("%s: did not decode", c.name)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		got, std := allocated(Decode), allocated(decodeAsEncodingJSON)
		t.Logf("%s, %d KB body: Decode allocated %d KB, encoding/json %d KB", c.name, len(body)>>10, got>>10, std>>10)
		if got > 2*std {
			t.Errorf("%s: Decode allocated %d KB for a %d KB body, encoding/json %d KB", c.name, got>>10, len(body)>>10, std>>10)
		}
	}
}
