package online

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"time"
)

// Host is one host Carrel has connected to.
type Host struct {
	// Host is the address asked for, "host:port", before any Options.Resolve mapping.
	Host string `json:"host"`
	// Count is how many connections were opened to it (a connection carries many
	// requests), First and Last when the first and the latest were opened.
	Count int       `json:"count"`
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// HostLog counts the connections opened to each host and keeps the count in a JSON
// file, so that the settings can list every host Carrel has contacted. It is safe for
// concurrent use.
type HostLog struct {
	path string // "" keeps the log in memory only (a read-only library)
	mu   sync.Mutex
	m    map[string]*Host
}

// OpenHostLog reads the log kept at path, if any; path "" keeps it in memory. A
// damaged file starts an empty log (it is a record, not something to fail over).
func OpenHostLog(path string) *HostLog {
	l := &HostLog{path: path, m: map[string]*Host{}}
	if path == "" {
		return l
	}
	if b, err := os.ReadFile(path); err == nil {
		var hosts []Host
		if err := json.Unmarshal(b, &hosts); err != nil {
			slog.Warn("online: the log of hosts connected to is unreadable; starting it afresh", "file", path, "err", err)
		}
		for _, h := range hosts {
			l.m[h.Host] = &h
		}
	}
	return l
}

// Record counts one connection to addr ("host:port") now, and saves the log.
func (l *HostLog) Record(addr string) {
	if l == nil {
		return
	}
	now := time.Now().UTC()
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.m[addr]
	if h == nil {
		h = &Host{Host: addr, First: now}
		l.m[addr] = h
	}
	h.Count++
	h.Last = now
	// The connection is made either way; a failed save is retried at the next one.
	_ = l.save()
}

// Dial wraps a dial function (nil: a net.Dialer) so that it records each address it
// connects to. A dial that fails is not recorded: the list is of hosts Carrel reached, and
// an unreachable Ollama (asked again at every status check) was listed as contacted.
func (l *HostLog) Dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if next == nil {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		next = d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err == nil {
			l.Record(addr)
		}
		return conn, err
	}
}

// Close stops saving: connections still being made are counted in memory only (a
// library being moved or closed is left alone).
func (l *HostLog) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.path = ""
	l.mu.Unlock()
}

// List returns the hosts, the most recently contacted first.
func (l *HostLog) List() []Host {
	if l == nil {
		return []Host{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Host, 0, len(l.m))
	for _, h := range l.m {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b Host) int {
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return compareStrings(a.Host, b.Host)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// save writes the log beside the old file and renames it over. Callers hold mu.
func (l *HostLog) save() error {
	if l.path == "" {
		return nil
	}
	hosts := make([]Host, 0, len(l.m))
	for _, h := range l.m {
		hosts = append(hosts, *h)
	}
	slices.SortFunc(hosts, func(a, b Host) int { return compareStrings(a.Host, b.Host) })
	b, err := json.MarshalIndent(hosts, "", "  ")
	if err != nil {
		return err
	}
	// The folder is not made: a library moved or removed meanwhile must not come back.
	tmp := l.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("save hosts: %w", err)
	}
	if err := os.Rename(tmp, l.path); err != nil {
		return errors.Join(fmt.Errorf("save hosts: %w", err), os.Remove(tmp))
	}
	return nil
}
