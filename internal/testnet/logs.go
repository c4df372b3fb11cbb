package testnet

import (
	"context"
	"fmt"
	"io"
)

// A LogReader gives a node's whole log for keeping with the run (a pod's,
// through the cluster's API), as live.Net.Log gives a log file: at most
// most bytes, its first eighth and its end when it is longer (KeepLog),
// and the bytes the node wrote.
type LogReader interface {
	Log(ctx context.Context, n *Node, most int) (text []byte, size int64, err error)
}

// KeepLog reads r to its end and keeps at most most bytes of it: all of
// it, or its first eighth and its end joined by LogCut's line. Memory is
// most bytes whatever r holds; size is every byte r gave.
func KeepLog(r io.Reader, most int) (text []byte, size int64, err error) {
	head := make([]byte, 0, most/8)
	ring := make([]byte, max(most-most/8, 1))
	var filled, at int // the ring's bytes in use; where the next goes
	buf := make([]byte, 32<<10)
	for {
		n, rerr := r.Read(buf)
		chunk := buf[:n]
		size += int64(n)
		if room := cap(head) - len(head); room > 0 {
			k := min(room, len(chunk))
			head, chunk = append(head, chunk[:k]...), chunk[k:]
		}
		for len(chunk) > 0 {
			k := copy(ring[at:], chunk)
			chunk, at, filled = chunk[k:], (at+k)%len(ring), min(filled+k, len(ring))
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, size, rerr
		}
	}
	tail := ring[:filled]
	if filled == len(ring) { // wrapped: its oldest byte is at at
		tail = append(append([]byte(nil), ring[at:]...), ring[:at]...)
	}
	if size <= int64(most) {
		return append(head, tail...), size, nil
	}
	return append(append(head, LogCut(size, most)...), tail...), size, nil
}

// LogCut is the line put where a log's middle was cut to keep most of its
// size bytes.
func LogCut(size int64, most int) string {
	return fmt.Sprintf("\n[chainperf: %d bytes of this log cut here, to keep %d of %d]\n", size-int64(most), most, size)
}
