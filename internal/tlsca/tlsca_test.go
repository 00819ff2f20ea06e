package tlsca

import (
	"crypto/ecdsa"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHostsFor(t *testing.T) {
	name, _ := os.Hostname()
	cases := []struct {
		addr  string
		extra []string
		want  []string // in this order, at the start
		has   []string
	}{
		{"127.0.0.1:8080", nil, []string{"127.0.0.1", "localhost", "::1"}, nil},
		{"[::1]:0", []string{"wmsmock", "localhost"}, []string{"::1", "localhost", "127.0.0.1", "wmsmock"}, nil},
		{"mock.internal:443", nil, []string{"mock.internal", "localhost", "127.0.0.1", "::1"}, nil},
		{"0.0.0.0:8080", nil, []string{"localhost"}, []string{name, "127.0.0.1", "::1"}},
		{":8080", nil, []string{"localhost"}, []string{name, "127.0.0.1", "::1"}},
	}
	for _, c := range cases {
		got := HostsFor(c.addr, c.extra)
		if len(got) < len(c.want) || !slices.Equal(got[:len(c.want)], c.want) {
			t.Errorf("%s %v: %v, want it to start with %v", c.addr, c.extra, got, c.want)
		}
		for _, h := range c.has {
			if h != "" && !slices.Contains(got, h) {
				t.Errorf("%s: %v lacks %s", c.addr, got, h)
			}
		}
		seen := map[string]bool{}
		for _, h := range got {
			if seen[h] {
				t.Errorf("%s: %s twice in %v", c.addr, h, got)
			}
			seen[h] = true
		}
	}
}

// TestLoadOrCreate: the CA made in a directory is the one read back; a
// file that is not a CA is refused rather than replaced.
func TestLoadOrCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "tls")
	first, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Cert.Equal(again.Cert) || string(first.PEM) != string(again.PEM) {
		t.Fatal("the CA read back differs from the one written")
	}
	leaf, err := again.Issue([]string{"localhost", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	// Signed by the reloaded key, trusted through the first CA.
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: first.Pool()}); err != nil {
		t.Fatal(err)
	}
	if got := Names(leaf.Leaf); !slices.Equal(got, []string{"localhost", "127.0.0.1"}) {
		t.Errorf("names %v", got)
	}
	// Files that do not form a CA (a leaf with its own key, a matching
	// pair that is not a CA): refused as such.
	other := t.TempDir()
	ca, _ := New()
	pair, _ := ca.Issue([]string{"x"})
	writeLeafAsCA(t, other, pair.Leaf.Raw, pair.PrivateKey.(*ecdsa.PrivateKey))
	if _, err := LoadOrCreate(other); err == nil || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "not a CA certificate") {
		t.Fatalf("a non-CA certificate: %v", err)
	}
	if _, err := ca.Issue(nil); err == nil {
		t.Fatal("a certificate for no host was issued")
	}
}
