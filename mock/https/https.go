// Package https sets up the fake's HTTPS: the certificate it presents,
// issued at start by a CA of its own (kept in memory or in a directory) or
// the caller's own pair, and what a client needs to trust it. The service
// is reached over HTTPS only (CONTRACT T1), so a client that refuses plain
// HTTP, or pins the scheme in its configuration, can point at the fake
// unchanged.
package https

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/wmsmock/wmsmock/internal/tlsca"
)

// Settings say how a server serves HTTPS; the zero value serves plain
// HTTP.
type Settings struct {
	Enabled           bool
	dir               string   // where the CA is kept; "" keeps it in memory
	certFile, keyFile string   // the caller's own pair, instead of a generated one
	hosts             []string // names the certificate covers besides the listening ones
}

// Option configures Settings.
type Option func(*Settings) error

// Dir keeps the CA in dir (tlsca.CertFile and tlsca.KeyFile): read when
// there, made and written there otherwise.
func Dir(dir string) Option {
	return func(t *Settings) error {
		if strings.TrimSpace(dir) == "" {
			return errors.New("TLSDir: empty directory")
		}
		t.dir = dir
		return nil
	}
}

// KeyPair serves the caller's own certificate and key (PEM files) instead
// of a generated pair.
func KeyPair(certFile, keyFile string) Option {
	return func(t *Settings) error {
		if certFile == "" || keyFile == "" {
			return errors.New("TLSKeyPair: both a certificate and a key file are needed")
		}
		t.certFile, t.keyFile = certFile, keyFile
		return nil
	}
}

// Hosts adds names (DNS names or IP addresses) the generated certificate
// covers.
func Hosts(names ...string) Option {
	return func(t *Settings) error {
		t.hosts = append(t.hosts, names...)
		return nil
	}
}

// Served is what a server serving HTTPS holds.
type Served struct {
	// Config is the server's TLS configuration.
	Config *tls.Config
	// Leaf is the certificate the server presents.
	Leaf *x509.Certificate
	// CAFile is the CA's PEM file when the CA is kept in a directory.
	CAFile string
	// roots is what a client trusts: the CA, or the caller's own chain.
	roots *x509.CertPool
}

// Setup issues (or reads) the certificate for a server listening on addr,
// as st says; nil when st serves plain HTTP. It runs before the server
// listens, so a bad key pair or CA directory stops it first; issuing on
// P-256 takes well under a millisecond.
func Setup(st Settings, addr string) (*Served, error) {
	if !st.Enabled {
		return nil, nil
	}
	var (
		cert tls.Certificate
		out  Served
		err  error
	)
	if st.certFile != "" {
		if cert, err = tls.LoadX509KeyPair(st.certFile, st.keyFile); err != nil {
			return nil, err
		}
		out.roots = x509.NewCertPool()
		for _, der := range cert.Certificate {
			c, err := x509.ParseCertificate(der)
			if err != nil {
				return nil, err
			}
			out.roots.AddCert(c)
		}
	} else {
		var ca *tlsca.CA
		if st.dir != "" {
			ca, err = tlsca.LoadOrCreate(st.dir)
			out.CAFile = filepath.Join(st.dir, tlsca.CertFile)
		} else {
			ca, err = tlsca.New()
		}
		if err != nil {
			return nil, err
		}
		if cert, err = ca.Issue(tlsca.HostsFor(addr, st.hosts)); err != nil {
			return nil, err
		}
		out.roots = ca.Pool()
	}
	if out.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
		return nil, err
	}
	out.Config = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return &out, nil
}

// Transport is a client transport that trusts the server's CA (and
// nothing else) and speaks HTTP/2.
func (s *Served) Transport() *http.Transport {
	return &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: s.roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}
}
