package main

import (
	"flag"
	"fmt"
	"github.com/wmsmock/wmsmock/internal/cliflag"
	"io"
	"os"
	"strings"

	"github.com/wmsmock/wmsmock/internal/tlsca"
	"github.com/wmsmock/wmsmock/mock"
)

// tlsConfig is what `wmsmock serve` is told about HTTPS. HTTPS is on with
// --tls (a generated certificate) or with --tls-cert and --tls-key (the
// user's own pair); --tls-dir and --tls-host shape the generated one and
// are not used with an own pair.
type tlsConfig struct {
	enabled           bool
	dir               string
	certFile, keyFile string
	hosts             []string
	// tempDir is where the CA goes when no --tls-dir is given; removed
	// when serve ends.
	tempDir string
}

func (c *tlsConfig) declare(fs *flag.FlagSet, getenv func(string) string, envErrs *[]string) *cliflag.ListFlag {
	hosts := cliflag.EnvList(getenv, "WMSMOCK_TLS_HOSTS")
	fs.BoolVar(&c.enabled, "tls", cliflag.EnvBool(getenv, "WMSMOCK_TLS", false, envErrs), "serve HTTPS (HTTP/2 and HTTP/1.1) with a certificate issued at start by a local CA whose file the banner names [WMSMOCK_TLS]")
	fs.StringVar(&c.dir, "tls-dir", cliflag.EnvString(getenv, "WMSMOCK_TLS_DIR", ""), "keep the generated CA in `DIR` (ca.pem, ca-key.pem) and reuse it at the next start (default: a fresh CA in a temporary directory) [WMSMOCK_TLS_DIR]")
	fs.StringVar(&c.certFile, "tls-cert", cliflag.EnvString(getenv, "WMSMOCK_TLS_CERT", ""), "serve HTTPS with your own certificate (PEM `FILE`, chain after the leaf); needs --tls-key [WMSMOCK_TLS_CERT]")
	fs.StringVar(&c.keyFile, "tls-key", cliflag.EnvString(getenv, "WMSMOCK_TLS_KEY", ""), "the key of --tls-cert (PEM `FILE`) [WMSMOCK_TLS_KEY]")
	fs.Var(hosts, "tls-host", "a further `NAME` or IP the generated certificate covers, e.g. the name a container is reached by; repeatable [WMSMOCK_TLS_HOSTS, comma-separated]")
	return hosts
}

func (c tlsConfig) on() bool { return c.enabled || c.certFile != "" }

func (c tlsConfig) problems() []string {
	var errs []string
	if (c.certFile == "") != (c.keyFile == "") {
		errs = append(errs, "--tls-cert and --tls-key go together")
	}
	for _, f := range []struct{ flag, path string }{{"--tls-cert", c.certFile}, {"--tls-key", c.keyFile}} {
		if f.path == "" {
			continue
		}
		if info, err := os.Stat(f.path); err != nil || info.IsDir() {
			errs = append(errs, fmt.Sprintf("%s %q: not a readable file", f.flag, f.path))
		}
	}
	for _, h := range c.hosts {
		if h == "" || strings.ContainsAny(h, " \t/") {
			errs = append(errs, fmt.Sprintf("--tls-host %q: want a host name or an IP address", h))
		}
	}
	return errs
}

// prepare makes the temporary CA directory when HTTPS is on with a
// generated certificate and no --tls-dir, so the CA is a file a client can
// be pointed at. The returned function removes it.
func (c *tlsConfig) prepare() (cleanup func(), err error) {
	if !c.on() || c.certFile != "" || c.dir != "" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "wmsmock-tls-")
	if err != nil {
		return nil, fmt.Errorf("a directory for the TLS CA: %w", err)
	}
	c.tempDir = dir
	return func() { _ = os.RemoveAll(dir) }, nil
}

func (c tlsConfig) options() []mock.Option {
	switch {
	case !c.on():
		return nil
	case c.certFile != "":
		return []mock.Option{mock.WithTLS(mock.TLSKeyPair(c.certFile, c.keyFile))}
	}
	dir := c.dir
	if dir == "" {
		dir = c.tempDir
	}
	return []mock.Option{mock.WithTLS(mock.TLSDir(dir), mock.TLSHosts(c.hosts...))}
}

// printTLS writes the banner's HTTPS lines: the names the certificate
// covers and the CA file to trust. It returns what a curl command needs to
// trust the server ("" over plain HTTP).
func printTLS(w io.Writer, srv *mock.Server) string {
	cert := srv.Certificate()
	if cert == nil {
		return ""
	}
	fmt.Fprintf(w, "wmsmock: HTTPS certificate for %s\n", strings.Join(tlsca.Names(cert), ", "))
	if ca := srv.CAFile(); ca != "" {
		fmt.Fprintf(w, "wmsmock: trust the CA in %s (curl --cacert, SSL_CERT_FILE, conform --ca-cert)\n", ca)
		return "--cacert " + ca + " "
	}
	return ""
}
