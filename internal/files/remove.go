package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RemoveBeneath removes path, which must lie inside dir, never following
// a symlink out of dir in any component: it works through an os.Root
// opened on dir, so a crafted link (a node home that points at /etc, a
// dir inside that points at $HOME) is removed as a link or refused,
// never followed. path == dir removes dir's contents, then dir itself.
// dir must be a real directory, not a symlink to one.
func RemoveBeneath(dir, path string) error {
	dir, path = filepath.Clean(dir), filepath.Clean(path)
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is not inside %s: not removed", path, dir)
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%s is a symlink or not a directory: not removed (remove it yourself if it is yours)", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	// The dir opened is the one looked at (not swapped for a link since).
	if rfi, err := root.Stat("."); err != nil || !os.SameFile(fi, rfi) {
		return fmt.Errorf("%s changed while it was being removed: not removed", dir)
	}
	if rel != "." {
		if err := root.RemoveAll(rel); err != nil {
			return fmt.Errorf("remove %s: %w (a symlink on the way leads out of %s: not followed)", path, err, dir)
		}
		return nil
	}
	f, err := root.Open(".")
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if err := root.RemoveAll(n); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", filepath.Join(dir, n), err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return os.Remove(dir)
}
