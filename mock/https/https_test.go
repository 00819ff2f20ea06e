package https

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// settings applies opts as the server's options would.
func settings(t *testing.T, opts ...Option) Settings {
	t.Helper()
	st := Settings{Enabled: true}
	for _, o := range opts {
		if err := o(&st); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func TestPlainHTTPSetsUpNothing(t *testing.T) {
	if s, err := Setup(Settings{}, "127.0.0.1:0"); s != nil || err != nil {
		t.Fatalf("Setup of plain HTTP = %v, %v; want nil, nil", s, err)
	}
}

func TestOptionsRefuseWhatCannotServe(t *testing.T) {
	var st Settings
	if Dir("  ")(&st) == nil {
		t.Error("Dir took a blank directory")
	}
	if KeyPair("cert.pem", "")(&st) == nil || KeyPair("", "key.pem")(&st) == nil {
		t.Error("KeyPair took a pair with a file missing")
	}
	if _, err := Setup(settings(t, KeyPair("/nonexistent/cert.pem", "/nonexistent/key.pem")), "127.0.0.1:0"); err == nil {
		t.Error("Setup served a key pair that cannot be read")
	}
}

// TestGeneratedCertificateIsTrustedByItsTransportOnly: the certificate
// names the listening address and the extra hosts, a client on Transport
// completes a request, and a client with the system's roots does not.
func TestGeneratedCertificateIsTrustedByItsTransportOnly(t *testing.T) {
	s, err := Setup(settings(t, Hosts("fake.example", "10.1.2.3")), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"127.0.0.1", "fake.example", "10.1.2.3"} {
		if err := s.Leaf.VerifyHostname(h); err != nil {
			t.Errorf("the certificate does not cover %s: %v", h, err)
		}
	}
	if s.Leaf.VerifyHostname("other.example") == nil {
		t.Error("the certificate covers a name nobody asked for")
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.Proto))
	}))
	srv.TLS = s.Config
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	resp, err := (&http.Client{Transport: s.Transport()}).Get(srv.URL)
	if err != nil {
		t.Fatalf("a client trusting the fake's CA: %v", err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("the transport spoke %s, want HTTP/2", resp.Proto)
	}
	if _, err := (&http.Client{Transport: &http.Transport{}}).Get(srv.URL); err == nil {
		t.Error("a client with the system's roots trusted the fake's certificate")
	}
}

// TestDirKeepsOneCA: a CA kept in a directory is written there once and
// read back by the next start, so a client that trusted it keeps trusting
// the fake.
func TestDirKeepsOneCA(t *testing.T) {
	dir := t.TempDir()
	first, err := Setup(settings(t, Dir(dir)), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(first.CAFile) != dir {
		t.Errorf("CAFile %q is not in %s", first.CAFile, dir)
	}
	pem, err := os.ReadFile(first.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", first.CAFile)
	}
	second, err := Setup(settings(t, Dir(dir)), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []*Served{first, second} {
		if _, err := s.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
			t.Errorf("start %d: its certificate is not issued by the CA in %s: %v", i+1, dir, err)
		}
	}
}
