package mock_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/tlsca"
	"github.com/wmsmock/wmsmock/mock"
)

// startServer starts a server on the embedded document with the options,
// closed when the test ends.
func startServer(t *testing.T, opts ...mock.Option) *mock.Server {
	t.Helper()
	srv, _ := newServer(t, embedded(t), opts...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

var anyErrorID = regexp.MustCompile(`Error ID: [0-9A-Za-z]{22}`)

// TestTLSAnswersAsHTTP: the same calls get the same answers over HTTPS
// (with the server's CA trusted, over HTTP/2) as over plain HTTP.
func TestTLSAnswersAsHTTP(t *testing.T) {
	plain := startServer(t)
	secure := startServer(t, mock.WithTLS())
	if !strings.HasPrefix(secure.URL(), "https://") || !strings.HasPrefix(plain.URL(), "http://") {
		t.Fatalf("URLs: plain %s, secure %s", plain.URL(), secure.URL())
	}
	calls := []struct{ method, path, token string }{
		{"GET", "/api/workflow", mock.DevToken},
		{"GET", "/api/workflow?max=2&offset=1", mock.DevToken},
		{"GET", "/api/user-info", mock.DevToken},
		{"GET", "/api/service-info", mock.DevToken},
		{"GET", "/api/workflow", ""},                           // no token: 403
		{"GET", "/api/workflow?max=notanumber", mock.DevToken}, // 400 with an Error ID
		{"GET", "/_mock/health", ""},
	}
	for _, c := range calls {
		get := func(srv *mock.Server) (int, string, string, string) {
			req, err := http.NewRequest(c.method, srv.URL()+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatalf("%s %s on %s: %v", c.method, c.path, srv.URL(), err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			// Error IDs are random per answer: compared by shape only.
			return resp.StatusCode, resp.Header.Get("Content-Type"), anyErrorID.ReplaceAllString(string(b), "Error ID: <id>"), resp.Proto
		}
		ps, pct, pb, _ := get(plain)
		ss, sct, sb, proto := get(secure)
		if ps != ss || pct != sct || pb != sb {
			t.Errorf("%s %s: HTTP %d %s %.200q, HTTPS %d %s %.200q", c.method, c.path, ps, pct, pb, ss, sct, sb)
		}
		if proto != "HTTP/2.0" {
			t.Errorf("%s %s over HTTPS: protocol %s, want HTTP/2.0", c.method, c.path, proto)
		}
	}
}

// TestTLSHTTP1: a client that offers HTTP/1.1 only is served too.
func TestTLSHTTP1(t *testing.T) {
	srv := startServer(t, mock.WithTLS())
	c := srv.Client()
	tr := c.Transport.(*http.Transport).Clone()
	tr.ForceAttemptHTTP2 = false
	tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
	c.Transport = tr
	req, _ := http.NewRequest("GET", srv.BaseURL()+"/workflow", nil)
	req.Header.Set("Authorization", "Bearer "+mock.DevToken)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Proto != "HTTP/1.1" {
		t.Fatalf("got %d over %s, want 200 over HTTP/1.1", resp.StatusCode, resp.Proto)
	}
}

// TestTLSUntrustedClientRefused: a client that does not trust the fake's
// CA fails in the handshake, before any HTTP is exchanged.
func TestTLSUntrustedClientRefused(t *testing.T) {
	srv := startServer(t, mock.WithTLS())
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool()}}}
	_, err := c.Get(srv.BaseURL() + "/workflow")
	var verr *tls.CertificateVerificationError
	if !errors.As(err, &verr) {
		t.Fatalf("an untrusting client got %v, want a certificate verification error", err)
	}
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Fatalf("got %v, want an unknown-authority error", err)
	}
	// And plain HTTP on the HTTPS port gets no API answer.
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(strings.Replace(srv.BaseURL(), "https://", "http://", 1) + "/workflow")
	if err == nil {
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP on the HTTPS port: %d, want the TLS server's 400", resp.StatusCode)
		}
	}
}

// TestTLSCertificateNames: the certificate covers the listening host,
// localhost and both loopback addresses, and the extra names asked for;
// each verifies against the CA as a client would check it.
func TestTLSCertificateNames(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, mock.WithTLS(mock.TLSDir(dir), mock.TLSHosts("wmsmock.test")))
	cert := srv.Certificate()
	if cert == nil {
		t.Fatal("no certificate")
	}
	if srv.CAFile() != filepath.Join(dir, tlsca.CertFile) {
		t.Fatalf("CAFile %q", srv.CAFile())
	}
	pool, err := tlsca.ReadPool(srv.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	names := tlsca.Names(cert)
	for _, want := range []string{"localhost", "127.0.0.1", "::1", "wmsmock.test"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("certificate names %v lack %s", names, want)
		}
	}
	for _, n := range names {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: n, Roots: pool}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{DNSName: "elsewhere.test", Roots: pool}); err == nil {
		t.Error("the certificate verifies for a name it was not issued for")
	}
	// A client trusting the CA file reaches the server by localhost too.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL(), "https://"))
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get("https://localhost:" + port + "/_mock/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestTLSDirReused: a second server on the same directory keeps the CA, so
// a client trusting the file keeps working; the first run wrote the key
// for its owner only.
func TestTLSDirReused(t *testing.T) {
	dir := t.TempDir()
	first := startServer(t, mock.WithTLS(mock.TLSDir(dir)))
	ca1, err := os.ReadFile(first.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, tlsca.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("CA key mode %v, want 0600", info.Mode().Perm())
	}
	second := startServer(t, mock.WithTLS(mock.TLSDir(dir)))
	ca2, err := os.ReadFile(second.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	if string(ca1) != string(ca2) {
		t.Fatal("the CA changed between two starts on the same directory")
	}
	if first.Certificate().SerialNumber.Cmp(second.Certificate().SerialNumber) == 0 {
		t.Fatal("the two starts share a server certificate serial")
	}
	// A lone key (the certificate removed) is refused, not replaced.
	if err := os.Remove(filepath.Join(dir, tlsca.CertFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := mock.New(mock.WithTLS(mock.TLSDir(dir))); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("a directory with a key and no certificate: %v", err)
	}
}

// TestTLSKeyPair: the caller's own certificate and key are served, and
// Client trusts them.
func TestTLSKeyPair(t *testing.T) {
	ca, err := tlsca.New()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	writePair(t, cert, certFile, keyFile)
	srv := startServer(t, mock.WithTLS(mock.TLSKeyPair(certFile, keyFile)))
	if srv.Certificate().SerialNumber.Cmp(cert.Leaf.SerialNumber) != 0 {
		t.Fatal("the server does not present the given certificate")
	}
	resp, err := srv.Client().Get(srv.URL() + "/_mock/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := mock.New(mock.WithTLS(mock.TLSKeyPair(certFile, filepath.Join(dir, "missing.pem")))); err == nil {
		t.Fatal("a missing key file was accepted")
	}
}
