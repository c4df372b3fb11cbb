package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/testnet"
)

// ErrNoLog is a node whose output this harness cannot read: a node of an
// external network, whose log is its operators'.
var ErrNoLog = errors.New("no log here")

// Log returns node nd's output for keeping with the run, at most most
// bytes of it: when longer, its first eighth and its end, with a line
// where the middle was cut. size is what the node wrote (for a pod's log
// read through the API, what was read). A log that is a symlink or not a
// regular file is refused: the testnet dir is input too.
func (n *Net) Log(ctx context.Context, nd *testnet.Node, most int) (text []byte, size int64, err error) {
	if lr, ok := n.Provider.(testnet.LogReader); ok {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return lr.Log(ctx, nd, most)
	}
	if lt, ok := n.Provider.(testnet.LogTailer); ok {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		raw, err := lt.LogTail(ctx, nd, most)
		return raw, int64(len(raw)), err
	}
	path := filepath.Join(n.Testnet.LogDir(), nd.Name+".log")
	text, size, err = HeadAndTail(path, most)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, ErrNoLog
	}
	return text, size, err
}

// HeadAndTail reads the file at path whole when it has at most most
// bytes, else its first eighth and the rest from its end, joined by a
// line saying how much was cut (a node's log, the relayer's). A symlink
// or a file that is not regular is refused.
func HeadAndTail(path string, most int) ([]byte, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, 0, fmt.Errorf("%s is a symlink: not read", path)
		}
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file: not read", path)
	}
	size := st.Size()
	if size <= int64(most) {
		buf, err := io.ReadAll(io.LimitReader(f, int64(most)))
		return buf, size, err
	}
	head := make([]byte, most/8)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, 0, err
	}
	tail := make([]byte, most-len(head))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return nil, 0, err
	}
	return append(append(head, testnet.LogCut(size, most)...), tail...), size, nil
}
