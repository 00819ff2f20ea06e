package auth

import (
	"encoding/base64"
	"testing"
)

// TestBasicToken: with BasicToken, "Basic base64(@token:<token>)" (what
// Nextflow sends for a token not in the service's format) is checked as
// the token it carries, padded or not, with the token's own states; any
// other Basic credential stays BadScheme. Without the option, every Basic
// credential is BadScheme.
func TestBasicToken(t *testing.T) {
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		tests := []struct {
			name, header string
			with         Result // with BasicToken
		}{
			{"the dev token", basic("@token:" + DevToken), OK},
			{"unpadded", "Basic " + base64.RawStdEncoding.EncodeToString([]byte("@token:"+DevToken)), OK},
			{"lower-case scheme", "basic " + base64.StdEncoding.EncodeToString([]byte("@token:"+DevToken)), OK},
			{"an expired token", basic("@token:" + ExpiredToken), Expired},
			{"an unknown token", basic("@token:nobody-issued-this"), Unknown},
			{"an empty token", basic("@token:"), Malformed},
			{"a token with a space", basic("@token:a b"), Malformed},
			{"another user", basic("user:" + DevToken), BadScheme},
			{"no user", basic(DevToken), BadScheme},
			{"the user without its colon", basic("@token" + DevToken), BadScheme},
			{"not base64", "Basic @token:" + DevToken, BadScheme},
			{"no credential", "Basic", BadScheme},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tok, got, err := Check(m, tc.header, t0, BasicToken())
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.with {
					t.Errorf("with BasicToken: %v, want %v", got, tc.with)
				}
				if got == OK && tok.Name != "dev" {
					t.Errorf("authenticated as %q, want the dev token", tok.Name)
				}
				if _, without := check(t, m, tc.header, t0); without != BadScheme {
					t.Errorf("without BasicToken: %v, want bad_scheme", without)
				}
			})
		}
	})
}
