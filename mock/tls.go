package mock

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/wmsmock/wmsmock/internal/tlsca"
)

// tlsSettings are the options about HTTPS. The service is reached over
// HTTPS only (CONTRACT T1), so a client that refuses plain HTTP, or pins
// the scheme in its configuration, can point at the fake unchanged.
type tlsSettings struct {
	enabled           bool
	dir               string   // where the CA is kept; "" keeps it in memory
	certFile, keyFile string   // the caller's own pair, instead of a generated one
	hosts             []string // names the certificate covers besides the listening ones
}

// WithTLS serves HTTPS (HTTP/2 and HTTP/1.1) instead of plain HTTP. With
// no options the certificate is issued at Start for the listening host,
// localhost, 127.0.0.1 and ::1 by a CA made for the server. Client trusts
// that CA, like httptest.NewTLSServer's client; Certificate shows what is
// covered. TLSDir, TLSHosts and TLSKeyPair say otherwise.
func WithTLS(opts ...TLSOption) Option {
	return func(s *settings) error {
		s.tls.enabled = true
		for _, o := range opts {
			if err := o(&s.tls); err != nil {
				return err
			}
		}
		return nil
	}
}

// TLSOption configures WithTLS.
type TLSOption func(*tlsSettings) error

// TLSDir keeps the CA in dir (tlsca.CertFile and tlsca.KeyFile): read when
// there, made and written there otherwise, so a client told once to trust
// dir/ca.pem keeps trusting the fake across restarts. CAFile names the
// file.
func TLSDir(dir string) TLSOption {
	return func(t *tlsSettings) error {
		if strings.TrimSpace(dir) == "" {
			return errors.New("TLSDir: empty directory")
		}
		t.dir = dir
		return nil
	}
}

// TLSKeyPair serves the caller's own certificate and key (PEM files)
// instead of a generated pair.
func TLSKeyPair(certFile, keyFile string) TLSOption {
	return func(t *tlsSettings) error {
		if certFile == "" || keyFile == "" {
			return errors.New("TLSKeyPair: both a certificate and a key file are needed")
		}
		t.certFile, t.keyFile = certFile, keyFile
		return nil
	}
}

// TLSHosts adds names (DNS names or IP addresses) the generated
// certificate covers, such as the name a container is reached by.
func TLSHosts(names ...string) TLSOption {
	return func(t *tlsSettings) error {
		t.hosts = append(t.hosts, names...)
		return nil
	}
}

// serverTLS is what a server serving HTTPS holds.
type serverTLS struct {
	config *tls.Config
	leaf   *x509.Certificate
	// roots is what Client trusts: the CA, or the caller's own chain.
	roots  *x509.CertPool
	caFile string
}

// setupTLS issues (or reads) the server's certificate. It runs in New, so a
// bad key pair or CA directory stops the server before it listens; issuing
// on P-256 takes well under a millisecond.
func (s *Server) setupTLS(cfg settings) error {
	c := cfg.tls
	if !c.enabled {
		return nil
	}
	var (
		cert tls.Certificate
		st   serverTLS
		err  error
	)
	if c.certFile != "" {
		if cert, err = tls.LoadX509KeyPair(c.certFile, c.keyFile); err != nil {
			return err
		}
		st.roots = x509.NewCertPool()
		for _, der := range cert.Certificate {
			c, err := x509.ParseCertificate(der)
			if err != nil {
				return err
			}
			st.roots.AddCert(c)
		}
	} else {
		var ca *tlsca.CA
		if c.dir != "" {
			ca, err = tlsca.LoadOrCreate(c.dir)
			st.caFile = filepath.Join(c.dir, tlsca.CertFile)
		} else {
			ca, err = tlsca.New()
		}
		if err != nil {
			return err
		}
		if cert, err = ca.Issue(tlsca.HostsFor(s.listening.addr, c.hosts)); err != nil {
			return err
		}
		st.roots = ca.Pool()
	}
	if st.leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
		return err
	}
	st.config = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.listening.tls = &st
	return nil
}

// Certificate is the certificate the server presents over HTTPS, nil when
// it serves plain HTTP. Its DNSNames and IPAddresses are the names a
// client may reach it by.
func (s *Server) Certificate() *x509.Certificate {
	if s.listening.tls == nil {
		return nil
	}
	return s.listening.tls.leaf
}

// CAFile is the PEM file of the CA that signed the server's certificate,
// when the CA is kept in a directory (TLSDir); "" otherwise.
func (s *Server) CAFile() string {
	if s.listening.tls == nil {
		return ""
	}
	return s.listening.tls.caFile
}

// Client returns an HTTP client suited to the server (bounded in time):
// over HTTPS it trusts the server's CA (and nothing else) and speaks
// HTTP/2. It adds no token: calls carry the one the caller chooses.
func (s *Server) Client() *http.Client {
	c := &http.Client{Timeout: 30 * time.Second}
	if t := s.listening.tls; t != nil {
		c.Transport = &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: t.roots, MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2: true,
		}
	}
	return c
}
