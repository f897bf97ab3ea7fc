package library

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockName is the file in a library folder that marks the process using it.
const LockName = "carrel.lock"

// One process at a time opens a library. A second one cannot share it: the lexical
// index (bleve over bbolt) locks its file for the whole run, exclusively for a writer,
// so a second opener, even a read-only one, would wait on that lock forever (seen: a
// `carrel search` beside `carrel serve` hung silently). The library lock is taken first,
// without waiting, and names its holder so the second process can say who it is.
//
// The lock is an OS file lock (flock, LockFileEx): it dies with its process, so the
// file left behind by a crash or a kill -9 does not block anyone; what it says is then
// stale and is overwritten by the next owner.

// Lock is a held library lock.
type Lock struct {
	f *os.File
}

// Owner is what the lock file says about its holder.
type Owner struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// InUseError is returned by LockDir when another process holds the library.
type InUseError struct {
	Dir   string
	Owner Owner // zero when the holder has not written its name yet
}

func (e *InUseError) Error() string {
	who := "another Carrel"
	if e.Owner.PID > 0 {
		who = fmt.Sprintf("%q (pid %d, since %s)", e.Owner.Command, e.Owner.PID, e.Owner.Since.Local().Format("15:04:05 Jan 2"))
	}
	return fmt.Sprintf("the library in %s is in use by %s: stop it first, or give another folder with --library", e.Dir, who)
}

// ErrInUse matches an *InUseError with errors.Is.
var ErrInUse = errors.New("library in use")

func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// LockDir takes the lock of the library in dir (creating the folder if needed), or
// returns an *InUseError at once if another process holds it.
func LockDir(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create library folder: %w", err)
	}
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the library: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the library (%s): %w", path, err)
	}
	if !held {
		f.Close()
		return nil, &InUseError{Dir: dir, Owner: readOwner(path)}
	}
	me := Owner{PID: os.Getpid(), Command: commandLine(), Since: time.Now().UTC()}
	b, _ := json.Marshal(me)
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		// The lock holds without the name; a second process says "another Carrel".
		fmt.Fprintf(os.Stderr, "carrel: could not write %s: %v\n", path, err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. The file stays: removing it could let two processes hold
// locks on two different files of the same name.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the only descriptor releases the OS lock
	l.f = nil
	return err
}

// readOwner reads the holder's name; the holder writes it just after locking, so an
// empty file is read again for a moment.
func readOwner(path string) Owner {
	var o Owner
	for range 10 {
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &o) == nil && o.PID > 0 {
			return o
		}
		time.Sleep(20 * time.Millisecond)
	}
	return Owner{}
}

// commandLine is this process's command, short: "carrel serve --addr 127.0.0.1:0".
func commandLine() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	s := strings.Join(args, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
