package testnet

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// KeepLog keeps a log whole up to most bytes, and past that its first
// eighth and its end around one line saying what was cut, whatever sizes
// the reader's reads come in; an error from the reader is returned.
func TestKeepLog(t *testing.T) {
	const most = 800
	var log bytes.Buffer
	for i := 0; log.Len() < 10*most; i++ {
		fmt.Fprintf(&log, "line %d\n", i)
	}
	all := log.Bytes()
	for _, n := range []int{0, 5, most, most + 1, 3*most + 17, len(all)} {
		data := all[:n]
		want := data
		if n > most {
			want = append(append(append([]byte(nil), data[:most/8]...), LogCut(int64(n), most)...), data[n-(most-most/8):]...)
		}
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(data),
			"one byte": iotest.OneByteReader(bytes.NewReader(data)),
			"halves":   iotest.HalfReader(bytes.NewReader(data)),
		} {
			got, size, err := KeepLog(r, most)
			if err != nil || size != int64(n) || !bytes.Equal(got, want) {
				t.Errorf("%d bytes, read %s: size %d, err %v, kept\n%q\nwant\n%q", n, name, size, err, got, want)
			}
		}
	}
	if _, _, err := KeepLog(iotest.TimeoutReader(bytes.NewReader(all)), most); err == nil {
		t.Error("a reader's error: none returned")
	}
}
