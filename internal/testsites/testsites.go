// Package testsites runs local web servers that speak the formats of the sites Carrel
// reads online sources from, for tests that must not touch the internet: article pages
// with navigation noise, error pages (404, 429, 5xx, a login wall, oversized and slow
// answers, wrong content types, redirects), Hacker News' item API
// (github.com/HackerNews/API: /v0/item/ID.json), a Reddit thread's JSON listing
// (/r/SUB/comments/ID/SLUG.json: two listings, the post then the comment tree with
// "replies" nested and "more" stubs) and YouTube watch pages whose
// ytInitialPlayerResponse lists caption tracks, with the timedtext XML they point to.
//
// The real host names (news.ycombinator.com, hacker-news.firebaseio.com,
// www.reddit.com, www.youtube.com) are served over TLS with a certificate made here;
// Sites.Resolve and Sites.TLS point an online.Client at it. Plain pages are also
// served over HTTP at Sites.URL.
package testsites

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Hosts are the site names served over TLS.
var Hosts = []string{"news.ycombinator.com", "hacker-news.firebaseio.com", "www.reddit.com", "reddit.com",
	"old.reddit.com", "www.youtube.com", "youtube.com", "youtu.be", "m.youtube.com"}

// Sites is a running set of fake sites.
type Sites struct {
	// URL is the plain HTTP server's base ("http://127.0.0.1:PORT").
	URL string
	// TLSAddr is the TLS server's address; Resolve maps each of Hosts' port 443 to it,
	// and TLS trusts its certificate.
	TLSAddr string
	Resolve map[string]string
	TLS     *tls.Config
	// CertPEM is the certificate in PEM.
	CertPEM []byte

	// changed: /article serves its changed version.
	changed atomic.Bool
	// HNInFlight is the most Hacker News item requests served at once; HNRequests
	// how many were served.
	hnNow, HNInFlight, HNRequests atomic.Int64
	// UserAgents are the User-Agent headers seen by the Reddit listing.
	mu         sync.Mutex
	UserAgents []string
	files      map[string]servedFile
	close      func()
}

// Start starts the sites; they stop when tb ends.
func Start(tb testing.TB) *Sites {
	tb.Helper()
	s, err := Run()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Run starts the sites; Close stops them.
func Run() (*Sites, error) {
	s := &Sites{}
	cert, pemBytes, pool, err := makeCert(append([]string{"127.0.0.1", "localhost"}, Hosts...))
	if err != nil {
		return nil, err
	}
	s.CertPEM = pemBytes
	h := http.HandlerFunc(s.serve)
	plain := httptest.NewServer(h)
	secure := httptest.NewUnstartedServer(h)
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	secure.StartTLS()
	s.close = func() {
		plain.Close()
		secure.Close()
	}
	s.URL = plain.URL
	s.TLSAddr = secure.Listener.Addr().String()
	s.Resolve = map[string]string{}
	for _, h := range Hosts {
		s.Resolve[h+":443"] = s.TLSAddr
	}
	s.TLS = &tls.Config{RootCAs: pool}
	return s, nil
}

// Close stops the servers.
func (s *Sites) Close() { s.close() }

// ResolveString is Resolve as CARREL_RESOLVE takes it.
func (s *Sites) ResolveString() string {
	var parts []string
	for _, h := range Hosts {
		parts = append(parts, h+":443:"+s.TLSAddr)
	}
	return strings.Join(parts, ",")
}

// SetChanged makes /article serve its changed version (a paragraph added).
func (s *Sites) SetChanged(on bool) { s.changed.Store(on) }

func (s *Sites) serve(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	switch host {
	case "hacker-news.firebaseio.com":
		s.hnItem(w, r)
	case "www.reddit.com", "reddit.com", "old.reddit.com":
		s.reddit(w, r)
	case "www.youtube.com", "youtube.com", "m.youtube.com", "youtu.be":
		s.youtube(w, r)
	default:
		s.pages(w, r)
	}
}

// makeCert makes a self-signed certificate for names, and a pool trusting it.
func makeCert(names []string) (tls.Certificate, []byte, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "carrel test sites"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pemBytes, pool, nil
}
