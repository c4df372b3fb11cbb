package cosmos

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

const cacheMagic = "chainperf pregenerated txs v1\n"

// cachePath names the cache file of a phase's txs by a hash of all that
// makes them: chain, denom, the mix, gas, fee, the wallets, validators,
// the memo numbers and, tx by tx, sender, sequence and each message's
// kind, receivers and validators. "" when caching is off, and for
// unordered txs (their timeouts run from the signing time).
func (w *Workload) cachePath(refs []txRef, memo int64) string {
	if w.cfg.CacheDir == "" || w.cfg.Unordered {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%s|%v|%d|%d|%d|%s|%d|%q|", w.cfg.Kind, w.cfg.ChainID, w.cfg.Denom, w.cfg.Mix,
		w.cfg.GasLimit, w.cfg.Fee, memo, w.wallets[0].Address, len(w.wallets), w.cfg.Validators)
	var b [binary.MaxVarintLen64]byte
	put := func(x uint64) { h.Write(b[:binary.PutUvarint(b[:], x)]) }
	for _, r := range refs {
		put(uint64(r.from))
		put(r.nonce)
		for _, m := range r.eff.msgs {
			put(uint64(m.kind))
			put(uint64(m.val))
			put(uint64(m.dst))
			for _, to := range m.to {
				put(uint64(to))
			}
		}
	}
	return filepath.Join(w.cfg.CacheDir, "txs-"+hex.EncodeToString(h.Sum(nil))[:24]+".bin")
}

// readCache reads n txs from path; nil, nil when there is no such file.
func readCache(path string, n int) ([][]byte, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != cacheMagic {
		return nil, fmt.Errorf("%s is not a chainperf tx cache", path)
	}
	count, err := binary.ReadUvarint(r)
	if err != nil || count != uint64(n) {
		return nil, fmt.Errorf("%s holds %d txs, want %d", path, count, n)
	}
	txs := make([][]byte, n)
	for i := range txs {
		size, err := binary.ReadUvarint(r)
		if err != nil || size > 1<<20 {
			return nil, fmt.Errorf("%s: tx %d: bad length", path, i)
		}
		txs[i] = make([]byte, size)
		if _, err := io.ReadFull(r, txs[i]); err != nil {
			return nil, fmt.Errorf("%s: tx %d: %w", path, i, err)
		}
	}
	return txs, nil
}

// writeCache writes txs to path (through a temp file, so that a reader
// never sees half a cache).
func writeCache(path string, txs [][]byte) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".txs-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 1<<20)
	bw.WriteString(cacheMagic)
	var b [binary.MaxVarintLen64]byte
	bw.Write(b[:binary.PutUvarint(b[:], uint64(len(txs)))])
	for _, tx := range txs {
		bw.Write(b[:binary.PutUvarint(b[:], uint64(len(tx)))])
		bw.Write(tx)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
