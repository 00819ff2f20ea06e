package auth

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
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

// nextflowSendsBearer is the rule Nextflow's Tower client applies to a
// token (plugin nf-tower, TowerClient): a JWT (two dots), or a token that
// decodes from base64 to a JSON object followed by a dot, goes as Bearer;
// anything else as Basic "@token:".
func nextflowSendsBearer(token string) bool {
	if strings.Count(token, ".") == 2 {
		return true
	}
	plain, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return false
	}
	head, _, found := strings.Cut(string(plain), ".")
	var obj map[string]any
	return found && json.Unmarshal([]byte(head), &obj) == nil && len(obj) > 0
}

// TestCreatedTokensLookLikeTheService: a created token is in the
// service's format (base64 of {"tid":<id>}, a dot and a hex signature), so
// Nextflow sends it as Bearer, and its tid is its id; the development
// tokens are not, so Nextflow sends them as Basic (TestBasicToken). The
// store keeps the value's hash only.
func TestCreatedTokensLookLikeTheService(t *testing.T) {
	eachStore(t, func(t *testing.T, mk maker) {
		m := seededWith(t, mk)
		for _, name := range []string{"one", "two"} {
			tok, value, err := m.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			if !nextflowSendsBearer(value) || !ValidValue(value) {
				t.Errorf("%q is not read as the service's own token", value)
			}
			plain, _ := base64.StdEncoding.DecodeString(value)
			var head struct {
				TID int64 `json:"tid"`
			}
			h, sig, _ := strings.Cut(string(plain), ".")
			if json.Unmarshal([]byte(h), &head) != nil || head.TID != tok.ID {
				t.Errorf("%s: tid in %q, want the token's id %d", name, h, tok.ID)
			}
			if _, err := hex.DecodeString(sig); err != nil || len(sig) != 64 {
				t.Errorf("%s: signature %q is not 32 bytes of hex", name, sig)
			}
			snap, err := json.Marshal(list(t, m))
			if err != nil || strings.Contains(string(snap), value) || strings.Contains(string(snap), sig) {
				t.Errorf("the store shows the value or its signature: %s", snap)
			}
		}
		for _, dev := range []string{DevToken, SecondToken} {
			if nextflowSendsBearer(dev) {
				t.Errorf("%s would be sent as Bearer: TestBasicToken covers the wrong case", dev)
			}
		}
	})
}
