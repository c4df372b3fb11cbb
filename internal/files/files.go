// Package files reads the files a user names (scenarios, latency tables)
// without trusting what they are: only a regular file is read, and no more
// of it than a limit, so /dev/zero, a FIFO or a huge file is a clear error
// instead of a hang or an exhausted memory. It writes reports whole or not
// at all.
package files

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ReadRegular reads the regular file at path, refusing anything else and
// anything larger than limit bytes.
func ReadRegular(path string, limit int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading must not wait for a writer;
	// the kind is checked on the open file, so it cannot change between.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: name a regular file", path, Kind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes: at most %d", path, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is more than %d bytes", path, limit)
	}
	return data, nil
}

// Kind names what a file that is not a regular one is, for messages.
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// WriteAtomic writes data to path through a temporary file in the same
// folder, synced and renamed over path: a reader sees the old file or the
// whole new one, never half (a full disk or a kill leaves the old one),
// and a symlink at path is replaced, not followed.
func WriteAtomic(path string, data []byte, perm os.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// Tail returns the last most bytes of the file at path (nil when it
// cannot be read).
func Tail(path string, most int) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	buf := make([]byte, min(st.Size(), int64(most)))
	if _, err := f.ReadAt(buf, st.Size()-int64(len(buf))); err != nil {
		return nil
	}
	return buf
}
