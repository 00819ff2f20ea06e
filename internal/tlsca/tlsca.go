// Package tlsca is a small local certificate authority: it makes (or reads
// back) one CA and signs short server certificates with it, so the fake can
// serve HTTPS that a client trusts by adding one file, instead of by turning
// verification off.
//
// Keys are ECDSA P-256: generating and signing take well under a
// millisecond, so a certificate can be issued at every start without
// weighing on start-up time.
package tlsca

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// File names inside a CA directory.
const (
	CertFile = "ca.pem"
	KeyFile  = "ca-key.pem"
)

// caLifetime is how long a generated CA is valid: long enough that a CA
// kept in a state directory does not expire under a developer.
const caLifetime = 10 * 365 * 24 * time.Hour

// leafLifetime is how long a server certificate is valid. A new one is
// issued at every start, so it need not outlive a long test run by much;
// it stays within the 398 days clients accept for server certificates.
const leafLifetime = 397 * 24 * time.Hour

// CA is a certificate authority: its certificate and the key that signs.
type CA struct {
	Cert *x509.Certificate
	// PEM is Cert in PEM form: what a client is given to trust.
	PEM []byte
	key *ecdsa.PrivateKey
}

// New makes a fresh CA, held in memory only.
func New() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "wmsmock local CA", Organization: []string{"wmsmock"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: key}, nil
}

// LoadOrCreate reads the CA kept in dir (CertFile and KeyFile), or makes
// one and writes it there when dir holds neither, so a client told to trust
// the file once keeps trusting the fake across restarts. The key file is
// readable by its owner only. A directory holding one file without the
// other, or files that do not form a usable CA, is an error: silently
// replacing a CA someone trusts would break them in a confusing way.
func LoadOrCreate(dir string) (*CA, error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	certPEM, certErr := os.ReadFile(certPath)
	keyPEM, keyErr := os.ReadFile(keyPath)
	switch {
	case certErr == nil && keyErr == nil:
		ca, err := parse(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("TLS CA in %s: %w", dir, err)
		}
		return ca, nil
	case errors.Is(certErr, fs.ErrNotExist) && errors.Is(keyErr, fs.ErrNotExist):
	case certErr != nil && !errors.Is(certErr, fs.ErrNotExist):
		return nil, fmt.Errorf("TLS CA: %w", certErr)
	case keyErr != nil && !errors.Is(keyErr, fs.ErrNotExist):
		return nil, fmt.Errorf("TLS CA: %w", keyErr)
	default:
		return nil, fmt.Errorf("TLS CA in %s: %s and %s must both be present or both absent", dir, CertFile, KeyFile)
	}
	ca, err := New()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(ca.key)
	if err != nil {
		return nil, err
	}
	// The key first: a CA certificate without its key would stop the next
	// start, a lone key is just rewritten.
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	if err := os.WriteFile(certPath, ca.PEM, 0o644); err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	return ca, nil
}

func parse(certPEM, keyPEM []byte) (*CA, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("the CA key is not an ECDSA key")
	}
	if !cert.IsCA || cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, errors.New("the certificate is not a CA certificate")
	}
	if time.Now().After(cert.NotAfter) {
		return nil, fmt.Errorf("the CA certificate expired on %s; remove both files to make a new one", cert.NotAfter.Format(time.DateOnly))
	}
	block, _ := pem.Decode(certPEM)
	return &CA{Cert: cert, PEM: pem.EncodeToMemory(block), key: key}, nil
}

// Issue signs a server certificate for hosts: each is a DNS name or an IP
// address. The answer carries the chain (leaf, then CA) ready for a
// tls.Config.
func (ca *CA) Issue(hosts []string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, errors.New("a certificate needs at least one host name")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0], Organization: []string{"wmsmock"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.Cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// Pool is a certificate pool trusting the CA only.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Names lists what a certificate is valid for: its DNS names, then its IP
// addresses, each group sorted.
func Names(cert *x509.Certificate) []string {
	dns := append([]string(nil), cert.DNSNames...)
	sort.Strings(dns)
	ips := append([]net.IP(nil), cert.IPAddresses...)
	sort.Slice(ips, func(i, j int) bool { return bytes.Compare(ips[i].To16(), ips[j].To16()) < 0 })
	out := dns
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	return out
}

// ReadPool reads a PEM file of one or more CA certificates into a pool,
// for a client that must trust them (e.g. --ca-cert).
func ReadPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return p, nil
}

// serial is a random 128-bit serial number, so two certificates issued by
// CAs of the same name never share one.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// HostsFor lists the names a server listening on addr (host:port) is
// reached by: the host itself, or for a wildcard address (empty, 0.0.0.0,
// ::) the machine's host name and interface addresses; always localhost,
// 127.0.0.1 and ::1; then extra (e.g. the name a container is reached by).
// Duplicates are dropped, the order kept.
func HostsFor(addr string, extra []string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	var hosts []string
	seen := map[string]bool{}
	add := func(h string) {
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String()
		}
		if h != "" && !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	switch ip := net.ParseIP(host); {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		add("localhost")
		if name, err := os.Hostname(); err == nil {
			add(name)
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok && !n.IP.IsLinkLocalUnicast() {
					add(n.IP.String())
				}
			}
		}
	default:
		add(host)
		add("localhost")
	}
	add("127.0.0.1")
	add("::1")
	for _, h := range extra {
		add(h)
	}
	return hosts
}
