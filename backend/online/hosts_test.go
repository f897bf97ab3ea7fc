package online

import (
	"context"
	"net"
	"path/filepath"
	"testing"
)

// closedAddr is a loopback address nothing listens on (a port just freed).
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// verifies that the log of hosts contacted names only hosts reached: a dial refused
// (Ollama configured at an address where nothing listens, the settings showed
// 127.0.0.1:9) or a fetch from a host that does not answer is not recorded, while a
// connection made is, once per connection and by the name asked for.
func TestHostLogOnlyHostsReached(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "hosts.json")
	log := OpenHostLog(p)
	dial := log.Dial(nil)

	down := closedAddr(t)
	if conn, err := dial(ctx, "tcp", down); err == nil {
		conn.Close()
		t.Fatalf("dial %s: connected to a port nothing listens on", down)
	}
	c := New(Options{Hosts: log, Resolve: map[string]string{"carrel.invalid:80": down}})
	if _, err := c.Get(ctx, "http://carrel.invalid/page"); err == nil {
		t.Fatal("a fetch from a host that does not answer succeeded")
	}
	if hosts := log.List(); len(hosts) != 0 {
		t.Fatalf("hosts not reached are listed as contacted: %+v", hosts)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for range 2 {
		conn, err := dial(ctx, "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
	hosts := OpenHostLog(p).List() // as read back from the file
	if len(hosts) != 1 || hosts[0].Host != ln.Addr().String() || hosts[0].Count != 2 {
		t.Fatalf("after two connections to %s: %+v", ln.Addr(), hosts)
	}
}
