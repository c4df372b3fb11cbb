package chain

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/evm"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/scenario"
)

// evmExternal is what an EVM run on a network chainperf did not make
// reads from that chain and the funder.
type evmExternal struct {
	funder  evm.Wallet
	chainID uint64
	denom   string
	prefix  string
	jsonrpc string   // the JSON-RPC server the set-up and the check read
	nonce   uint64   // the deployer's next nonce once the wallets are funded
	start   []uint64 // the wallets' nonces at the start
	funded  []evm.Account
}

// setUpExternal reads the funder's key, the chain ID (JSON-RPC), the
// bech32 prefix and the gas token's denom (x/vm's evm_denom), derives the
// wallets and the deployer from the key and the seed and tops them up.
func (e *EVM) setUpExternal(ctx context.Context, rpc, jsonrpc string) error {
	spec := evm.Of(e.s.Testnet)
	began := time.Now()
	key, err := readSecret("testnet.evm.funder_key", spec.FunderKeyFile, spec.FunderKeyEnv, "hex private key")
	if err != nil {
		return err
	}
	funder, err := evm.FromHexKey(key)
	if err != nil {
		return fmt.Errorf("testnet.evm.funder_key: %w", err)
	}
	x := &evmExternal{funder: funder, jsonrpc: jsonrpc}
	if x.chainID, err = evm.ChainID(ctx, jsonrpc, 10*time.Second); err != nil {
		return fmt.Errorf("the network's EVM chain ID: %w", err)
	}
	hc := nodehttp.Client(nodehttp.Query)
	ch, err := cosmos.ReadChain(ctx, hc, rpc)
	if err != nil {
		return err
	}
	x.prefix = ch.Prefix
	if x.denom, err = evm.GasDenom(ctx, hc, rpc); err != nil {
		return err
	}
	base, err := evm.BaseFeeAt(ctx, hc, jsonrpc, 0)
	if err != nil {
		return err
	}
	if err := feeCapCovers(spec, base); err != nil {
		return err
	}
	seed := evm.FunderSeed(funder, spec.Seed)
	e.wallets = evm.Wallets(seed, spec.Wallets)
	e.deployer = evm.Derive(seed+"/deployer", 0)
	e.log.Info("external EVM chain", "evm_chain_id", x.chainID, "prefix", x.prefix, "denom", x.denom, "funder", funder.Address.String())
	d := evm.Deploy{RPC: rpc, JSONRPC: jsonrpc, ChainID: x.chainID, Denom: x.denom, Deployer: funder, Wait: 60 * time.Second}
	f, err := evm.Fund(ctx, d, e.withDeployer(e.wallets), wei(spec.WalletBalance))
	if err != nil {
		return err
	}
	// The wallets' nonces and balances as funding left them; the deployer
	// is last.
	x.funded = f.After[:len(e.wallets)]
	x.nonce = f.After[len(e.wallets)].Nonce
	x.start = make([]uint64, len(e.wallets))
	for i, a := range x.funded {
		x.start[i] = a.Nonce
	}
	e.ext = x
	e.record = EVMRecord{ChainID: x.chainID, Wallets: len(e.wallets), Funding: &EVMFunding{Funder: funder.Address.String(),
		Txs: f.Txs, ToppedUp: f.Wallets, Paid: f.Paid.String(), Fees: f.Fees.String(), Secs: time.Since(began).Seconds(), ReadSecs: f.ReadSecs, TxSecs: f.TxSecs}}
	return nil
}

// feeCapCovers refuses a dynamic-fee tx's cap (testnet.evm.max_fee) under
// the network's base fee plus the tip: no tx of the run could pay it.
func feeCapCovers(spec evm.Config, base *big.Int) error {
	need := new(big.Int).Add(base, new(big.Int).SetUint64(spec.Tip))
	if !spec.Legacy && need.Cmp(new(big.Int).SetUint64(spec.MaxFee)) > 0 {
		return fmt.Errorf("testnet.evm.max_fee = %d wei a gas is below the network's base fee and the tip (%s): raise it", spec.MaxFee, need)
	}
	return nil
}

// withDeployer is wallets and then the deployer, in a slice of its own:
// the accounts the funder pays and the check and the sweep read.
func (e *EVM) withDeployer(wallets []evm.Wallet) []evm.Wallet {
	return append(append(make([]evm.Wallet, 0, len(wallets)+1), wallets...), e.deployer)
}

// startBalance is what wallets and the deployer hold once set up
// (funded, the token and contracts deployed): the check's baseline. The
// wallets' is what funding left them (only the deployer sends in the
// set-up), the deployer's is read.
func (e *EVM) startBalance(ctx context.Context, wallets []evm.Wallet) (*big.Int, error) {
	sum, err := evm.BalanceAt(ctx, nodehttp.Client(nodehttp.Query), e.ext.jsonrpc, e.deployer.Address, 0)
	if err != nil {
		return nil, fmt.Errorf("the deployer's balance: %w", err)
	}
	for _, a := range e.ext.funded[:len(wallets)] {
		sum.Add(sum, a.Balance)
	}
	return sum, nil
}

// sweepExternal sends what the wallets and the deployer hold back to the
// funder when testnet.evm.sweep_back asks.
func (e *EVM) sweepExternal(ctx context.Context, rpc string) error {
	if e.ext == nil || !evm.Of(e.s.Testnet).SweepBack {
		return nil
	}
	d := evm.Deploy{RPC: rpc, JSONRPC: e.ext.jsonrpc, ChainID: e.ext.chainID, Denom: e.ext.denom, Deployer: e.ext.funder, Wait: 60 * time.Second}
	back, err := evm.Sweep(ctx, d, e.withDeployer(e.wallets))
	if back != nil {
		e.record.Funding.Swept = back.String()
	}
	if err != nil {
		return fmt.Errorf("sweep back to the funder: %w", err)
	}
	e.log.Info("swept back", "wei", back.String(), "to", e.ext.funder.Address.String())
	return nil
}

// externalJSONRPC is the json_rpc of the external node whose CometBFT RPC
// is rpc, "" if it has none.
func externalJSONRPC(s *scenario.Scenario, rpc string) string {
	for _, n := range s.Testnet.Nodes {
		if c, _, _ := nodehttp.Canonical(n.RPC); c == rpc && n.JSONRPC != "" {
			j, _, _ := nodehttp.Canonical(n.JSONRPC)
			return j
		}
	}
	return ""
}

// anyJSONRPC is the JSON-RPC server the set-up and the check read: the
// first load target's, else the first node's that has one (validation
// asks for one).
func anyJSONRPC(s *scenario.Scenario, rpcs []string) string {
	if j := externalJSONRPC(s, rpcs[0]); j != "" {
		return j
	}
	for _, n := range s.Testnet.Nodes {
		if n.JSONRPC != "" {
			j, _, _ := nodehttp.Canonical(n.JSONRPC)
			return j
		}
	}
	return ""
}

// WriteFunderKey writes the key of an EVM testnet's genesis wallet 0 to
// the new file path (`chainperf testnet funder-key`) and says whose it is
// and from which seed.
func WriteFunderKey(t scenario.Testnet, path string) (address, seed string, err error) {
	w, seed, err := evm.GenesisWallet(t)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprint(w.Address), seed, evm.WriteKeyFile(path, w)
}
