package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// reserveBytes is the room a SQLite run keeps beside the database while
// it runs: when the disk fills, the reserve is given up so that the run's
// end (status, reason, record) can still be written, and a later
// `runs list` does not call a run that ended "interrupted".
const reserveBytes = 4 << 20

// reservePath names runID's room by a hash of the ID: an ID read back
// from a database is input, and must not make a path.
func (s *Store) reservePath(runID string) string {
	sum := sha256.Sum256([]byte(runID))
	return s.where + "-reserve-" + hex.EncodeToString(sum[:8])
}

// reserve takes the room for runID's end; a disk too full for it is an
// error before the run begins.
func (s *Store) reserve(runID string) error {
	if s.postgres {
		return nil // the server's disk is not this machine's to keep room on
	}
	f, err := os.OpenFile(s.reservePath(runID), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("results database %s: keep room for the run's end: %w", s.where, err)
	}
	_, err = f.Write(make([]byte, reserveBytes))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(s.reservePath(runID))
		if Full(err) {
			return fmt.Errorf("results database %s: the disk is full (not %d MiB free): free space and run again", s.where, reserveBytes>>20)
		}
		return fmt.Errorf("results database %s: keep room for the run's end: %w", s.where, err)
	}
	return nil
}

// release gives the room back.
func (s *Store) release(runID string) {
	if !s.postgres {
		os.Remove(s.reservePath(runID))
	}
}

// Full says whether err is a full disk (the file system's or SQLite's
// word for it, or PostgreSQL's disk_full).
func Full(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "disk is full") || strings.Contains(m, "no space left") || strings.Contains(m, "sqlstate 53100")
}
