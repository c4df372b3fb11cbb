package chain

import (
	"math/big"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/evm"
)

// A dynamic-fee cap under the network's base fee plus the tip is refused
// before anything is sent; at it, or for legacy txs (which pay their
// price), it is not.
func TestFeeCapCovers(t *testing.T) {
	for _, c := range []struct {
		maxFee, tip uint64
		base        int64
		legacy      bool
		refused     bool
	}{
		{100, 1, 99, false, false},
		{100, 1, 100, false, true},
		{100, 0, 100, false, false},
		{10, 1, 1_000_000_000, false, true},
		{10, 1, 1_000_000_000, true, false},
	} {
		err := feeCapCovers(evm.Config{MaxFee: c.maxFee, Tip: c.tip, Legacy: c.legacy}, big.NewInt(c.base))
		if (err != nil) != c.refused || err != nil && !strings.Contains(err.Error(), "testnet.evm.max_fee") {
			t.Errorf("cap %d, tip %d, base %d, legacy %v: %v; want refused %v", c.maxFee, c.tip, c.base, c.legacy, err, c.refused)
		}
	}
}
