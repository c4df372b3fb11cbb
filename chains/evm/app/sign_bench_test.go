package app

import (
	"math/big"
	"testing"

	gethcommon "github.com/ethereum/go-ethereum/common"
	gethtypes "github.com/ethereum/go-ethereum/core/types"
	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"github.com/chainperf/chainperf/internal/evm"
)

// The two benchmarks below sign the same EIP-1559 transfer: chainperf's
// signer (pure Go secp256k1, github.com/decred/dcrd/dcrec/secp256k1), and
// go-ethereum's own (types.SignNewTx + MarshalBinary; with cgo its
// secp256k1 is libsecp256k1 in C) as the peer figure. Run both with
//   cd chains/evm && go test -run X -bench Sign ./app
// (one core each: the loops are sequential).

func BenchmarkSignChainperf(b *testing.B) {
	from, to := evm.Derive("bench", 0), evm.Derive("bench", 1)
	var out []byte
	for i := 0; b.Loop(); i++ {
		tx := evm.Tx{ChainID: 262144, Nonce: uint64(i), Tip: 1, GasPrice: 100_000_000_000, Gas: evm.TransferGas, To: to.Address, Value: 1000}
		raw, _ := tx.Sign(from.Key)
		out = evm.Envelope(out[:0], from.Address, raw, tx.Gas, tx.Fee(), "atest")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

func BenchmarkSignGoEthereum(b *testing.B) {
	from, to := evm.Derive("bench", 0), evm.Derive("bench", 1)
	key, err := gethcrypto.ToECDSA(from.Key.Serialize())
	if err != nil {
		b.Fatal(err)
	}
	signer := gethtypes.LatestSignerForChainID(big.NewInt(262144))
	gto := gethcommon.Address(to.Address)
	for i := 0; b.Loop(); i++ {
		tx, err := gethtypes.SignNewTx(key, signer, &gethtypes.DynamicFeeTx{ChainID: big.NewInt(262144), Nonce: uint64(i),
			GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100_000_000_000), Gas: evm.TransferGas, To: &gto, Value: big.NewInt(1000)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}
