package store

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ImportDir imports every run of the results database dir/runs.db into
// s (none when there is no database: the run stored nothing), each run's
// reports and profiles copied from dir/reports/ID to reportDir/ID and the
// paths it recorded under recordedReports (where the run wrote them, a
// harness pod's /out/reports) renamed to reportDir. It returns the runs'
// IDs.
func (s *Store) ImportDir(ctx context.Context, dir, recordedReports, reportDir string) ([]string, error) {
	db := filepath.Join(dir, "runs.db")
	if _, err := os.Stat(db); err != nil {
		return nil, nil // the run ended before it stored anything
	}
	from, err := Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer from.Close()
	list, err := from.List(ctx, Filter{})
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(reportDir)
	if err != nil {
		return nil, err
	}
	rename := func(p string) string {
		if rest, ok := strings.CutPrefix(p, recordedReports); ok {
			return abs + rest
		}
		return p
	}
	var ids []string
	for _, l := range list {
		if err := copyTree(filepath.Join(dir, "reports", l.ID), filepath.Join(abs, l.ID)); err != nil {
			return ids, err
		}
		if err := s.Import(ctx, from, l.ID, rename); err != nil {
			return ids, err
		}
		ids = append(ids, l.ID)
	}
	return ids, nil
}

// copyTree copies the regular files under src (made by Unpack: no links)
// to dst; a src that does not exist copies nothing.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) && path == src {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, in); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}
