package main

// The simulator's built-in certificate is RSA-1024, which Debian's OpenSSL 3
// refuses ("EE certificate key too weak"). The lab makes its own at start-up:
// ECDSA P-256, self-signed, SANs 127.0.0.1/::1/localhost, and CA:TRUE so the
// same PEM works as a CA file (curl --cacert, CURLOPT_CAINFO). Tests pin it
// either by that file or by the SHA-256 thumbprint in the ready line. The
// ESXi hosts' endpoint (hostendpoint.go) gets another one of the same kind.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type labCertificate struct {
	cert       tls.Certificate
	file       string // PEM of the certificate, DIR/lab-cert.pem
	thumbprint string // "SHA256:AB:CD:..." of the DER
}

func newLabCertificate(dir string) (*labCertificate, error) {
	cert, der, err := selfSigned("nfsagent simulated lab")
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "lab-cert.pem")
	pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(file, pemData, 0o644); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return &labCertificate{
		cert:       cert,
		file:       file,
		thumbprint: "SHA256:" + hexPairs(sum[:]),
	}, nil
}

// selfSigned makes an ECDSA P-256 self-signed certificate (see above; org
// tells the lab's certificates apart; ips are further IP SANs, the ESXi
// hosts' management IPs) and returns it with its DER.
func selfSigned(org string, ips ...string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{org}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		DNSNames:              []string{"localhost"},
	}
	for _, ip := range ips {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der, nil
}

// hexPairs formats a digest as vSphere writes thumbprints: uppercase hex
// pairs joined by ':' ("AB:CD:...").
func hexPairs(sum []byte) string {
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(pairs, ":")
}

// config is the server TLS configuration (simulator.Service.TLS).
func (c *labCertificate) config() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{c.cert}}
}
