package files

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CopyTree copies the directory src to dst (which must not exist yet):
// directories and regular files only, never following a link; anything
// else under src (a symlink, a socket, a device) is an error naming it,
// since a copy that silently skipped a store's file would be a corrupt
// store. It returns the bytes copied.
func CopyTree(src, dst string) (int64, error) {
	fi, err := os.Lstat(src)
	if err != nil {
		return 0, err
	}
	if !fi.IsDir() {
		return 0, fmt.Errorf("%s is %s, not a directory", src, Kind(fi.Mode()))
	}
	if _, err := os.Lstat(dst); err == nil {
		return 0, fmt.Errorf("%s exists already: not copied over", dst)
	}
	var n int64
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type().IsRegular():
			c, err := CopyFile(path, to)
			n += c
			return err
		default:
			return fmt.Errorf("%s is %s: only directories and regular files are copied", path, Kind(d.Type()))
		}
	})
	return n, err
}

// CopyFile copies the regular file from to to, which must not exist
// yet, and returns the bytes copied.
func CopyFile(from, to string) (int64, error) {
	in, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() { // swapped since the walk saw it
		return 0, fmt.Errorf("%s is %s now", from, Kind(fi.Mode()))
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
