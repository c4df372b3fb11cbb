// Package entry is what a node's pod runs (`chainperf pod`): it copies the
// node's files from their read-only mounts (a ConfigMap and a Secret) into
// the writable home and then runs the node under the fault agent.
package entry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/chainperf/chainperf/internal/kube/agent"
)

// Run copies each tree in from into home, unless home has a config
// already (a container restarted in the same pod keeps its data and its
// signing state), then runs argv under the agent, which listens on
// agentPort.
func Run(from []string, home string, agentPort uint16, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no node command after --")
	}
	if _, err := os.Stat(filepath.Join(home, "config", "config.toml")); errors.Is(err, fs.ErrNotExist) {
		for _, src := range from {
			if err := copyTree(src, home); err != nil {
				return fmt.Errorf("copy the node's files from %s: %w", src, err)
			}
		}
	} else if err != nil {
		return err
	}
	return agent.Run(agentPort, argv)
}

// copyTree copies the files under src to dst. A mounted ConfigMap holds
// each file as a link into a hidden ..data dir: links are followed, the
// hidden entries skipped.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if strings.HasPrefix(d.Name(), "..") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		st, err := os.Stat(path) // through the link
		if err != nil {
			return err
		}
		if st.IsDir() { // a linked dir: the trailing slash makes the walk follow it
			return copyTree(path+string(filepath.Separator), filepath.Join(dst, rel))
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, st.Mode().Perm()|0o600)
	})
}
