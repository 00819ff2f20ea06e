package mock

import (
	"crypto/x509"
	"net/http"
	"time"

	"github.com/wmsmock/wmsmock/mock/https"
)

// WithTLS serves HTTPS (HTTP/2 and HTTP/1.1) instead of plain HTTP. With
// no options the certificate is issued at Start for the listening host,
// localhost, 127.0.0.1 and ::1 by a CA made for the server (mock/https).
// Client trusts that CA, like httptest.NewTLSServer's client; Certificate
// shows what is covered. TLSDir, TLSHosts and TLSKeyPair say otherwise.
func WithTLS(opts ...TLSOption) Option {
	return func(s *settings) error {
		s.tls.Enabled = true
		for _, o := range opts {
			if err := o(&s.tls); err != nil {
				return err
			}
		}
		return nil
	}
}

// TLSOption configures WithTLS.
type TLSOption = https.Option

// TLSDir keeps the CA in dir (tlsca.CertFile and tlsca.KeyFile): read when
// there, made and written there otherwise, so a client told once to trust
// dir/ca.pem keeps trusting the fake across restarts. CAFile names the
// file.
func TLSDir(dir string) TLSOption { return https.Dir(dir) }

// TLSKeyPair serves the caller's own certificate and key (PEM files)
// instead of a generated pair.
func TLSKeyPair(certFile, keyFile string) TLSOption { return https.KeyPair(certFile, keyFile) }

// TLSHosts adds names (DNS names or IP addresses) the generated
// certificate covers, such as the name a container is reached by.
func TLSHosts(names ...string) TLSOption { return https.Hosts(names...) }

// Certificate is the certificate the server presents over HTTPS, nil when
// it serves plain HTTP. Its DNSNames and IPAddresses are the names a
// client may reach it by.
func (s *Server) Certificate() *x509.Certificate {
	if s.listening.tls == nil {
		return nil
	}
	return s.listening.tls.Leaf
}

// CAFile is the PEM file of the CA that signed the server's certificate,
// when the CA is kept in a directory (TLSDir); "" otherwise.
func (s *Server) CAFile() string {
	if s.listening.tls == nil {
		return ""
	}
	return s.listening.tls.CAFile
}

// Client returns an HTTP client suited to the server (bounded in time):
// over HTTPS it trusts the server's CA (and nothing else) and speaks
// HTTP/2. It adds no token: calls carry the one the caller chooses.
func (s *Server) Client() *http.Client {
	c := &http.Client{Timeout: 30 * time.Second}
	if t := s.listening.tls; t != nil {
		c.Transport = t.Transport()
	}
	return c
}
