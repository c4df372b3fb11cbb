package evm

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// TestSignIsDecreds: chainperf's signer gives decred's SignCompact's bytes
// (recovery id, r, s) for many keys and hashes, and each recovers to its
// key.
func TestSignIsDecreds(t *testing.T) {
	for i := range 3000 {
		key := sha256.Sum256(fmt.Appendf(nil, "key %d", i))
		k := secp256k1.PrivKeyFromBytes(key[:])
		hash := sha256.Sum256(fmt.Appendf(nil, "hash %d", i))
		v, r, s := sign(k, hash[:])
		want := ecdsa.SignCompact(k, hash[:], false)
		got := append(append([]byte{27 + v}, r...), s...)
		if !bytes.Equal(got, want) {
			t.Fatalf("key %d: signed %x, decred %x", i, got, want)
		}
		pub, _, err := ecdsa.RecoverCompact(got, hash[:])
		if err != nil || !pub.IsEqual(k.PubKey()) {
			t.Fatalf("key %d: recovers to another key (%v)", i, err)
		}
	}
}

// BenchmarkSign is one signature: cd internal/evm && go test -run X -bench Sign
func BenchmarkSign(b *testing.B) {
	k := Derive("bench", 0)
	hash := sha256.Sum256([]byte("bench"))
	for b.Loop() {
		sign(k.Key, hash[:])
	}
}

func BenchmarkSignDecred(b *testing.B) {
	k := Derive("bench", 0)
	hash := sha256.Sum256([]byte("bench"))
	for b.Loop() {
		ecdsa.SignCompact(k.Key, hash[:], false)
	}
}
