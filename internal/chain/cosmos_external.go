package chain

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/secret"
)

// external is what a Cosmos run on a network chainperf did not make reads
// from that chain and the funder.
type external struct {
	chain   cosmos.Chain
	cfg     cosmos.FundConfig
	wallets []cosmos.Wallet
	start   []uint64
	seqs    []uint64 // each wallet's next sequence
	record  *Funding
}

// fundExternal derives the wallets from the funder's key and the seed,
// reads the chain ID, prefix and denom from the chain and tops the wallets
// up from the funder.
func (c *Cosmos) fundExternal(ctx context.Context, rpc string) (*external, error) {
	cs := cosmos.Of(c.s.Testnet)
	began := time.Now()
	hc := nodehttp.Client(nodehttp.Query)
	ch, err := cosmos.ReadChain(ctx, hc, rpc)
	if err != nil {
		return nil, err
	}
	if w := c.s.Workload.ChainID; w != "" && w != ch.ID {
		return nil, fmt.Errorf("workload.chain_id is %q but the network at %s is %q: leave chain_id out (it is read from the chain)", w, scenario.Redact(rpc), ch.ID)
	}
	words, err := readMnemonic(cs)
	if err != nil {
		return nil, err
	}
	funder, err := cosmos.FromSecret(words, cs.FunderHDPath, ch.Prefix)
	if err != nil {
		return nil, fmt.Errorf("funder: %w", err)
	}
	held, err := cosmos.QueryAllBalances(ctx, hc, rpc, funder.Address)
	if err != nil {
		return nil, fmt.Errorf("funder %s: %w", funder.Address, err)
	}
	denom, err := cosmos.PickDenom(held, cs.Denom, funder.Address)
	if err != nil {
		return nil, err
	}
	wallets, err := cosmos.SecretWallets(funder.Key, cs.Seed, cs.Wallets, ch.Prefix, 0)
	if err != nil {
		return nil, err
	}
	cfg := cosmos.FundConfig{RPC: rpc, ChainID: ch.ID, Funder: funder, Denom: denom, Each: uint64(cs.WalletBalance), GasPrice: cs.GasPrice,
		Logf: func(f string, a ...any) { c.log.Info(fmt.Sprintf(f, a...)) }}
	c.log.Info("external chain", "chain_id", ch.ID, "prefix", ch.Prefix, "denom", denom, "funder", funder.Address)
	f, err := cosmos.Fund(ctx, hc, cfg, wallets)
	if err != nil {
		return nil, err
	}
	cfg.GasPrice = f.GasPrice
	rec := &Funding{Funder: funder.Address, ChainID: ch.ID, Denom: denom, Txs: f.Txs, Paid: f.Paid, Fees: f.Fees,
		GasPrice: f.GasPrice, Secs: time.Since(began).Seconds()}
	return &external{chain: ch, cfg: cfg, wallets: wallets, start: f.Start, seqs: f.Sequences, record: rec}, nil
}

// MaxMnemonicBytes bounds a mnemonic file: 24 words fit in 300 bytes.
const MaxMnemonicBytes = 4096

// readMnemonic reads the funder's mnemonic from its file or variable.
func readMnemonic(cs cosmos.Config) (string, error) {
	return readSecret("testnet.cosmos.funder_mnemonic", cs.FunderMnemonicFile, cs.FunderMnemonicEnv, "mnemonic")
}

// readSecret reads a funder's secret (what: its mnemonic or key) from the
// file or the variable env that setting+"_file" or setting+"_env" names.
// Errors name where it was to come from, never what it holds; what is
// read is remembered as a secret, so that no log shows it.
func readSecret(setting, file, env, what string) (string, error) {
	if env != "" {
		v := os.Getenv(env)
		if strings.TrimSpace(v) == "" {
			return "", fmt.Errorf("%s_env: $%s is unset or empty: export the funder's %s in it", setting, env, what)
		}
		secret.Remember(strings.TrimSpace(v))
		return v, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("%s_file: %w", setting, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s_file: %s is not a regular file", setting, file)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxMnemonicBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s_file: %w", setting, err)
	}
	if len(data) > MaxMnemonicBytes {
		return "", fmt.Errorf("%s_file: %s is over %d bytes: a %s is one line", setting, file, MaxMnemonicBytes, what)
	}
	secret.Remember(strings.TrimSpace(string(data)))
	return string(data), nil
}
