package main

import (
	"bytes"
	"testing"
)

func TestCounterAcrossReads(t *testing.T) {
	one := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
	all := bytes.Repeat(one, 50)
	for _, step := range []int{1, 3, 7, 8, 9, 13, 64, len(all)} {
		var c counter
		for i := 0; i < len(all); i += step {
			c.add(all[i:min(i+step, len(all))])
		}
		if c.n != 50 {
			t.Errorf("step %d: %d answers, want 50", step, c.n)
		}
	}
}
