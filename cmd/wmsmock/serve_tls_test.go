package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wmsmock/wmsmock/internal/testenv"
	"github.com/wmsmock/wmsmock/internal/tlsca"
)

var (
	bannerHTTPS = regexp.MustCompile(`ready in \S+ at (https://127\.0\.0\.1:\d+)/api`)
	bannerNames = regexp.MustCompile(`HTTPS certificate for (.+)\n`)
	bannerCA    = regexp.MustCompile(`trust the CA in (\S+) `)
)

// TestServeTLS runs `serve --tls` as a user would: the banner names the CA
// file and the names the certificate covers; the certificate the server
// presents verifies against that file for every printed name; a client
// trusting the file gets the API over HTTP/2; the CA stays in --tls-dir.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	// Ready once the banner is whole: its last line is the curl to try.
	whole := regexp.MustCompile(`(?s)` + bannerHTTPS.String() + `.*try `)
	base, out, errOut, stop := startCommand(t, []string{"serve", "--addr", "127.0.0.1:0", "--tls", "--tls-host", "wmsmock.test"},
		map[string]string{"WMSMOCK_TLS_DIR": dir}, whole)
	defer func() {
		if code := stop(); code != 0 {
			t.Errorf("exit %d; stderr: %s", code, errOut.String())
		}
	}()
	banner := out.String()
	ca := bannerCA.FindStringSubmatch(banner)
	names := bannerNames.FindStringSubmatch(banner)
	if ca == nil || names == nil {
		t.Fatalf("the banner names no CA file or no certificate names:\n%s", banner)
	}
	if ca[1] != filepath.Join(dir, tlsca.CertFile) {
		t.Errorf("CA file %s, want it in --tls-dir %s", ca[1], dir)
	}
	if !strings.Contains(banner, "curl --cacert "+ca[1]+" ") {
		t.Errorf("the curl line does not trust the CA:\n%s", banner)
	}
	pool, err := tlsca.ReadPool(ca[1])
	if err != nil {
		t.Fatal(err)
	}
	printed := strings.Split(names[1], ", ")
	for _, want := range []string{"localhost", "127.0.0.1", "::1", "wmsmock.test"} {
		if !slices.Contains(printed, want) {
			t.Errorf("the banner's names %v lack %s", printed, want)
		}
	}
	// What the server presents, checked for each name the banner prints.
	conn, err := tls.Dial("tcp", strings.TrimPrefix(base, "https://"), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	leaf := conn.ConnectionState().PeerCertificates[0]
	conn.Close()
	for _, n := range printed {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: n, Roots: pool}); err != nil {
			t.Errorf("the banner prints %s, but the certificate does not cover it: %v", n, err)
		}
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	req, _ := http.NewRequest("GET", base+"/api/workflow", nil)
	req.Header.Set("Authorization", "Bearer wmsmock-dev-token")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Proto != "HTTP/2.0" {
		t.Errorf("GET /api/workflow: %d over %s, want 200 over HTTP/2.0", resp.StatusCode, resp.Proto)
	}
}

// TestServeTLSRejectsBadConfiguration: TLS mistakes stop serve before it
// listens, naming the flag.
func TestServeTLSRejectsBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	checkRejected(t, []configCase{
		{"certificate without key", []string{"--tls-cert", filepath.Join(dir, "c.pem")}, nil, 2, "--tls-cert and --tls-key go together"},
		{"missing certificate file", []string{"--tls-cert", filepath.Join(dir, "c.pem"), "--tls-key", filepath.Join(dir, "k.pem")}, nil, 2, "--tls-cert"},
		{"bad host", []string{"--tls", "--tls-host", "a b"}, nil, 2, "--tls-host"},
		{"bad boolean in environment", nil, map[string]string{"WMSMOCK_TLS": "maybe"}, 2, "WMSMOCK_TLS"},
	})
}

// TestDockerfileTLS: the image keeps the CA of `WMSMOCK_TLS=true` in a
// directory the runtime user owns, named by WMSMOCK_TLS_DIR, so a volume
// there hands the CA to the host.
func TestDockerfileTLS(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	d := string(b)
	for _, want := range []string{"ENV WMSMOCK_TLS_DIR=/tls", "--chown=65532:65532 /out/tls /tls", "mkdir -p /out/reports /out/tls", "WMSMOCK_TLS=true"} {
		if !strings.Contains(d, want) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
	// The variable alone, without WMSMOCK_TLS, leaves the fake on HTTP.
	c, err := parseServe([]string{"--addr", "127.0.0.1:0"}, env(map[string]string{"WMSMOCK_TLS_DIR": "/tls"}), io.Discard)
	if err != nil || c.tls.on() {
		t.Errorf("WMSMOCK_TLS_DIR alone: err %v, TLS on %v", err, c.tls.on())
	}
}
