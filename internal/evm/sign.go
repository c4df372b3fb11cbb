package evm

import (
	"math/big"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// sign makes a recoverable signature of hash: recovery id, r and s, with
// RFC 6979 nonces and a low s, as go-ethereum's signer makes them. It is
// decred's ecdsa.SignCompact (byte for byte: TestSignIsDecreds) but for
// one step: the nonce point's Z is inverted with math/big's binary GCD
// instead of Fermat's exponentiation, which was 28 % of a transfer's
// signing (about 12 us of 43). That inverse's time depends on the nonce
// point; chainperf's keys are load keys, not ones a side channel here
// could cost anyone (decred inverts the nonce itself the same way).
func sign(k *secp256k1.PrivateKey, hash []byte) (v byte, r, s []byte) {
	var d [32]byte
	k.Key.PutBytes(&d)
	var e secp256k1.ModNScalar
	e.SetByteSlice(hash)
	for iteration := uint32(0); ; iteration++ {
		nonce := secp256k1.NonceRFC6979(d[:], hash, nil, nil, iteration)
		var kG secp256k1.JacobianPoint
		secp256k1.ScalarBaseMultNonConst(nonce, &kG)
		toAffine(&kG)
		var x [32]byte
		kG.X.PutBytes(&x)
		var rs secp256k1.ModNScalar
		overflow := rs.SetBytes(&x)
		if rs.IsZero() {
			continue
		}
		code := byte(overflow<<1) | byte(kG.Y.IsOddBit())
		kinv := new(secp256k1.ModNScalar).InverseValNonConst(nonce)
		ss := new(secp256k1.ModNScalar).Mul2(&k.Key, &rs).Add(&e).Mul(kinv)
		if ss.IsZero() {
			continue
		}
		if ss.IsOverHalfOrder() {
			ss.Negate()
			code ^= 1 // -k's point has the other y
		}
		var out [64]byte
		rs.PutBytesUnchecked(out[:32])
		ss.PutBytesUnchecked(out[32:])
		return code, out[:32], out[32:]
	}
}

var fieldPrime = secp256k1.Params().P

// toAffine is JacobianPoint.ToAffine with Z inverted by math/big.
func toAffine(p *secp256k1.JacobianPoint) {
	p.Z.Normalize()
	var zb [32]byte
	p.Z.PutBytes(&zb)
	inv := new(big.Int).ModInverse(new(big.Int).SetBytes(zb[:]), fieldPrime)
	inv.FillBytes(zb[:])
	var zInv, z2 secp256k1.FieldVal
	zInv.SetBytes(&zb)
	z2.SquareVal(&zInv)
	p.X.Mul(&z2)
	p.Y.Mul(z2.Mul(&zInv))
	p.Z.SetInt(1)
	p.X.Normalize()
	p.Y.Normalize()
}
