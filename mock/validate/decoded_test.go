package validate

import (
	"slices"
	"strings"
	"testing"

	"github.com/wmsmock/wmsmock/internal/jsonvalue"
)

// TestDecodedBodyIsJudgedAlike holds the shortcut of RequestDecoded to
// the verdict of the library's own path: every request case, and bodies
// the shortcut must hand back to the library (a number no float64 holds,
// a media type named by its parameters), get the same lines whether the
// body arrives decoded or as bytes. Each side has a validator of its own,
// so that no verdict is taken from the other's cache; the large body is
// past the verdict cache's size anyway.
func TestDecodedBodyIsJudgedAlike(t *testing.T) {
	asBytes, decoded := newFixture(t, "/api"), newFixture(t, "/api")
	big := `{"name":"rye","qty":2,"note":"` + strings.Repeat("x", 5000) + `"}`
	cases := append(slices.Clone(requestCases),
		reqCase{"number past float64", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye","qty":1e999}`, false, ""},
		reqCase{"fraction for an integer", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye","qty":2.5}`, false, "qty"},
		reqCase{"big body", "placeOrder", "POST", "/api/orders", "application/json", big, true, ""},
		reqCase{"big invalid body", "placeOrder", "POST", "/api/orders", "application/json", strings.Replace(big, `"qty":2`, `"qty":0`, 1), false, "qty"},
		reqCase{"two values", "placeOrder", "POST", "/api/orders", "application/json", `{"name":"rye","qty":2} {}`, false, ""},
		reqCase{"json suffix", "placeOrder", "POST", "/api/orders", "application/vnd.bakery+json", `{"name":"rye","qty":2}`, false, ""},
		reqCase{"body for a path parameter of the wrong type", "renameOrder", "PATCH", "/api/orders/seven", "application/json", `{"name":"spelt"}`, false, "orderId"},
	)
	shortcuts := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, body := tc.request()
			want := asBytes.v.Request(r, asBytes.op(t, tc.op), body)
			r, body = tc.request()
			value, _ := jsonvalue.Decode(body)
			op := decoded.op(t, tc.op)
			if _, _, ok := decoded.v.decodedBody(decoded.v.docRequest(r, body), op, value); ok {
				shortcuts++
			}
			got := decoded.v.RequestDecoded(r, op, body, jsonvalue.NewLazy(body))
			if !slices.Equal(got, want) {
				t.Errorf("decoded body judged\n  %q\nthe library's own path\n  %q", got, want)
			}
			if (want == nil) != tc.valid {
				t.Errorf("valid = %v, want %v (%q)", want == nil, tc.valid, want)
			}
		})
	}
	if shortcuts < 6 {
		t.Errorf("only %d cases took the shortcut: the test no longer compares it with the library", shortcuts)
	}
}
