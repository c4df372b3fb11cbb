package chain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/sdkchain"
	"github.com/chainperf/chainperf/internal/statecache"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A Keeper keeps the testnet's start state: KeepState, called once every
// node made its first blocks (built is how long that took), stops the
// nodes, saves their stores and starts them again when Prepare found no
// saved state, and says whether the nodes run on a state made earlier (a
// saved one, or the one just saved): their next block then carries the
// time of the saved one, which the run must let pass before it measures.
type Keeper interface {
	KeepState(ctx context.Context, t *testnet.Testnet, p testnet.Provider, height int64, built time.Duration) (restarted bool, err error)
}

// startState is what Prepare found of the start state.
type startState struct {
	key      string            // "": no state kept
	restored *statecache.State // the state the nodes start from; nil: built this run
	saved    *statecache.State // the state this run saved
	dir      string            // where states are kept
	secs     float64           // restoring it, or saving it
	saveErr  string            // why it could not be saved
}

// prepareState sets the chain up from the saved start state of this
// chain, testnet and wallets, or as usual (KeepState then saves it).
func (c *Cosmos) prepareState(ctx context.Context, t *testnet.Testnet, spec cosmos.Config, settings sdkchain.Settings) error {
	key, err := c.stateKey(t, spec)
	if err != nil {
		return err
	}
	c.state = startState{key: key, dir: statecache.Dir()}
	st, err := statecache.Open(c.state.dir, key)
	if err != nil {
		return err
	}
	if st == nil {
		c.log.Info("no saved start state: building it", "key", key, "dir", c.state.dir)
		c.chain, err = sdkchain.Setup(ctx, t, c.binary, spec, settings)
		return err
	}
	c.state.restored = st
	c.log.Info("starting from a saved start state", "dir", st.Dir, "height", st.Meta.Height, "bytes", st.Meta.Bytes)
	began := time.Now()
	c.chain, err = sdkchain.SetupFrom(ctx, t, c.binary, spec, settings, st)
	c.state.secs = time.Since(began).Seconds()
	return err
}

// stateKey names the start state: the binary's bytes, the testnet's nodes
// and settings, and the wallets' funding.
func (c *Cosmos) stateKey(t *testnet.Testnet, spec cosmos.Config) (string, error) {
	bin, err := fileSum(c.binary)
	if err != nil {
		return "", err
	}
	var hook string
	if spec.SetupHook != "" {
		if hook, err = fileSum(spec.SetupHook); err != nil {
			return "", err
		}
	}
	type node struct {
		Name, Role string
		Power      int64
	}
	var nodes []node
	for _, n := range t.Nodes {
		nodes = append(nodes, node{n.Name, string(n.Role), n.Power})
	}
	tn := c.s.Testnet
	key := map[string]any{
		"binary": bin, "chain_id": t.ChainID, "nodes": nodes, "hook": hook,
		"seed": spec.Seed, "wallets": spec.Wallets, "balance": spec.WalletBalance, "denom": spec.Denom,
		"prefix": spec.Bech32Prefix, "stake": spec.Stake, "init_args": spec.InitArgs, "gas_price": spec.GasPrice,
		"genesis": tn.Genesis, "config": tn.Config, "app": tn.App,
	}
	if len(spec.Accounts) > 0 { // only then: the states saved before accounts keep their keys
		key["accounts"] = spec.Accounts
	}
	if len(spec.Mnemonics) > 0 {
		key["mnemonics"] = fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(spec.Mnemonics, "\n"))))
	}
	return statecache.Key(key)
}

// KeepState saves the start state the first time (see Keeper).
func (c *Cosmos) KeepState(ctx context.Context, t *testnet.Testnet, p testnet.Provider, height int64, built time.Duration) (bool, error) {
	switch {
	case c.state.key == "":
		return false, nil
	case c.state.restored != nil:
		return true, nil
	}
	nodes := t.Standing()
	if len(nodes) != len(t.Nodes) {
		c.log.Warn("start state not saved: some nodes join later and have no store yet")
		return false, nil
	}
	meta, extra, err := c.chain.SaveState()
	if err != nil {
		return false, err
	}
	if err := p.Stop(ctx, nodes...); err != nil {
		return false, fmt.Errorf("stop the nodes to save their start state: %w", err)
	}
	var homes []statecache.Home
	for _, n := range nodes {
		homes = append(homes, statecache.Home{Node: n.Name, Dir: n.Home})
	}
	began := time.Now()
	st, err := statecache.Save(c.state.dir, statecache.Meta{Key: c.state.key, Created: time.Now().UTC(), Height: height,
		BuildSecs: built.Seconds(), Chain: meta}, homes, extra)
	if err != nil { // the run goes on: a state it could not keep costs the next run time, not this one its figures
		c.state.saveErr = err.Error()
		c.log.Warn("start state not saved", "err", err)
	} else {
		c.state.saved, c.state.secs = st, time.Since(began).Seconds()
		c.log.Info("saved the start state", "dir", st.Dir, "bytes", st.Meta.Bytes, "took", time.Since(began).Round(time.Millisecond))
		c.pruneStates(st.Meta.Key)
	}
	if err := p.Start(ctx, nodes...); err != nil {
		return false, fmt.Errorf("start the nodes again after saving their start state: %w", err)
	}
	return true, nil
}

// pruneStates keeps the saved states within their disk cap, the least
// recently used going first (never the one just saved).
func (c *Cosmos) pruneStates(keep string) {
	max, err := statecache.MaxBytes()
	if err != nil {
		c.log.Warn("saved start states not pruned", "err", err)
		return
	}
	removed, err := statecache.Prune(c.state.dir, keep, max)
	if err != nil {
		c.log.Warn("saved start states not pruned", "err", err)
	}
	if len(removed) > 0 {
		c.log.Info("removed the least recently used start states past the cap", "states", len(removed), "cap_bytes", max, "dir", c.state.dir)
	}
}

// fileSum is the SHA-256 of the file at path, in hex.
func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// StateRecord is the size of a Cosmos chain's state, and the saved start
// state the run came from or made.
type StateRecord struct {
	Accounts int `json:"accounts"` // in genesis
	// StoreBytes is the application's store (data/application.db) on the
	// first node's disk after the run; Node names it.
	StoreBytes int64       `json:"store_bytes"`
	Node       string      `json:"node"`
	Saved      *SavedState `json:"saved,omitempty"`
	NotSaved   string      `json:"not_saved,omitempty"` // why the state this run built could not be kept
}

// SavedState is the start state a run came from (Restored) or made.
type SavedState struct {
	Dir      string    `json:"dir"`
	Restored bool      `json:"restored"`
	Created  time.Time `json:"created"`
	Height   int64     `json:"height"`
	Bytes    int64     `json:"bytes"`   // on disk: every node's store and the genesis
	Build    float64   `json:"build_s"` // the nodes' start to their first blocks, when it was made
	Secs     float64   `json:"s"`       // this run's restore, or its save
}

func (s *StateRecord) String() string {
	out := fmt.Sprintf("%d accounts in genesis, application store %.1f MB on %s after the run", s.Accounts, float64(s.StoreBytes)/1e6, s.Node)
	switch v := s.Saved; {
	case v == nil:
	case v.Restored:
		out += fmt.Sprintf("; started from the start state saved %s (height %d, %.1f MB on disk; loading genesis and the first blocks took %.1f s then), restored in %.1f s",
			v.Created.Format(time.RFC3339), v.Height, float64(v.Bytes)/1e6, v.Build, v.Secs)
	default:
		out += fmt.Sprintf("; start state built this run (loading genesis and the first blocks %.1f s) and saved at height %d in %.1f s (%.1f MB) for later runs: %s",
			v.Build, v.Height, v.Secs, float64(v.Bytes)/1e6, v.Dir)
	}
	if s.NotSaved != "" {
		out += "; the start state this run built could not be saved: " + s.NotSaved
	}
	return out
}

// dirBytes is the size of the regular files under dir (links not
// followed), counting at most a million entries.
func dirBytes(dir string) int64 {
	var n int64
	seen := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error { //nolint:errcheck // a size, best effort
		if err != nil {
			return nil
		}
		if seen++; seen > 1_000_000 {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// stateRecord is the run's state record, the store measured now.
func (c *Cosmos) stateRecord() *StateRecord {
	if c.t == nil || c.chain == nil || len(c.t.Nodes) == 0 {
		return nil
	}
	n := c.t.Nodes[0]
	r := &StateRecord{Accounts: int(c.chain.Wallets[0].Number) + len(c.chain.Wallets), Node: n.Name,
		StoreBytes: dirBytes(filepath.Join(n.Home, "data", "application.db")), NotSaved: c.state.saveErr}
	if st := c.state.restored; st != nil {
		r.Saved = &SavedState{Dir: st.Dir, Restored: true, Created: st.Meta.Created, Height: st.Meta.Height, Bytes: st.Meta.Bytes, Build: st.Meta.BuildSecs, Secs: c.state.secs}
	} else if st := c.state.saved; st != nil {
		r.Saved = &SavedState{Dir: st.Dir, Created: st.Meta.Created, Height: st.Meta.Height, Bytes: st.Meta.Bytes, Build: st.Meta.BuildSecs, Secs: c.state.secs}
	}
	return r
}
