package sdkchain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/statecache"
	"github.com/chainperf/chainperf/internal/testnet"
)

// walletsFile lists a state's funded wallets, an address a line.
const walletsFile = "wallets"

// savedChain is what a state says of the chain besides the stores.
type savedChain struct {
	Funding     cosmos.Funding `json:"funding"`
	First       uint64         `json:"first"` // the first wallet's account number
	Denom       string         `json:"denom"`
	Prefix      string         `json:"prefix"`
	GenesisSecs float64        `json:"genesis_secs"`
}

// SaveState is what a state keeps of c beside the nodes' stores: its
// funding, and its wallets' addresses (deriving a million takes longer
// than reading them).
func (c *Chain) SaveState() (json.RawMessage, map[string][]byte, error) {
	if len(c.Wallets) == 0 {
		return nil, nil, fmt.Errorf("no wallets to save")
	}
	meta, err := json.Marshal(savedChain{Funding: c.Funding, First: c.Wallets[0].Number, Denom: c.Spec.Denom,
		Prefix: c.Spec.Bech32Prefix, GenesisSecs: c.GenesisTime.Seconds()})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	b.Grow(len(c.Wallets) * 48)
	for _, w := range c.Wallets {
		b.WriteString(w.Address)
		b.WriteByte('\n')
	}
	return meta, map[string][]byte{walletsFile: b.Bytes()}, nil
}

// SetupFrom sets the chain up from a saved start state: Init in every home
// (this run's config files and ports), then each node's store and the
// genesis from st, and the funded wallets st lists (unkeyed).
func SetupFrom(ctx context.Context, t *testnet.Testnet, binary string, spec cosmos.Config, settings Settings, st *statecache.State) (*Chain, error) {
	var saved savedChain
	if err := json.Unmarshal(st.Meta.Chain, &saved); err != nil {
		return nil, fmt.Errorf("saved state %s: %w: remove it to build it again", st.Dir, err)
	}
	_, spec, decided, err := initChain(ctx, t, binary, spec, settings)
	if err != nil {
		return nil, err
	}
	if spec.Denom != saved.Denom || spec.Bech32Prefix != saved.Prefix {
		return nil, fmt.Errorf("saved state %s is of denom %s and prefix %s, the chain now says %s and %s: remove it to build it again",
			st.Dir, saved.Denom, saved.Prefix, spec.Denom, spec.Bech32Prefix)
	}
	began := time.Now()
	wallets, err := readWallets(st.File(walletsFile), saved.Funding.Wallets, saved.First, spec.Bech32Prefix)
	if err != nil {
		return nil, fmt.Errorf("saved state %s: %w: remove it to build it again", st.Dir, err)
	}
	for _, n := range t.Nodes {
		if err := st.Restore(n.Name, n.Home); err != nil {
			return nil, err
		}
	}
	return &Chain{Binary: binary, Spec: spec, Wallets: wallets, Funding: saved.Funding, GenesisTime: time.Since(began), Decided: decided}, nil
}

// readWallets reads the n addresses of the file at path, numbered from
// first: each must be a bech32 address of prefix.
func readWallets(path string, n int, first uint64, prefix string) ([]cosmos.Wallet, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]cosmos.Wallet, 0, n)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		a := sc.Text()
		if len(out) == n || !strings.HasPrefix(a, prefix+"1") || len(a) > 128 {
			return nil, fmt.Errorf("%s:%d: %q is not wallet %d of %d (%s1...)", path, len(out)+1, a, len(out), n, prefix)
		}
		out = append(out, cosmos.Wallet{Address: a, Number: first + uint64(len(out))})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) != n {
		return nil, fmt.Errorf("%s: %d wallets, want %d", path, len(out), n)
	}
	return out, nil
}
