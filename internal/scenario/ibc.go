package scenario

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// IBC is [ibc]: a second testnet, the counterparty, named by a scenario
// file of its own whose [testnet] it runs (its chain, nodes and settings),
// and a relayer between the two that chainperf builds and runs.
type IBC struct {
	// Counterparty is the other chain's scenario file, relative to this
	// one ("": no second chain).
	Counterparty string `toml:"counterparty"`
	// Relayer names the relayer: "hermes", the one at hand.
	Relayer string `toml:"relayer"`
	// RelayerVersion is its release, built from its crate and cached by
	// version ("": chainperf's pinned one).
	RelayerVersion string `toml:"relayer_version"`
	// Drain is how long the run waits at its end for the packets in
	// flight to be relayed before it counts them as still in flight.
	Drain Duration `toml:"drain"`
	// Back is the counterparty's share of the load: its own [workload]
	// (transfers back on its end of the channel) sent to it beside this
	// chain's, at this fraction of this chain's rate, phase by phase (0:
	// none).
	Back float64 `toml:"back"`
	// Hermes are the relayer's own settings, for an ab of two.
	Hermes Hermes `toml:"hermes"`
	// Peer is the counterparty's scenario, read by Open.
	Peer *Scenario `toml:"-"`
}

// Hermes is [ibc.hermes]: the relayer's settings that shape how it
// batches, each 0 for chainperf's value.
type Hermes struct {
	// MaxMsgNum is the most messages a relay tx carries, 1-100 (0:
	// Hermes's 30).
	MaxMsgNum int `toml:"max_msg_num"`
	// BatchDelay is how long Hermes collects a chain's events before it
	// relays them (0: chainperf's 200ms).
	BatchDelay Duration `toml:"batch_delay"`
	// ClearInterval is every how many blocks Hermes looks for packets its
	// events missed (0: chainperf's 100).
	ClearInterval int `toml:"clear_interval"`
	// SequentialBatchTx has Hermes wait for each relay tx's block before it
	// sends the next of a batch.
	SequentialBatchTx bool `toml:"sequential_batch_tx"`
}

// RelayerNode is how perturbations name the relayer ([[perturbation]]
// kind = "kill" or "pause", nodes = ["relayer"]).
const RelayerNode = "relayer"

var relayerVersionRE = regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+)?$`)

func (s *Scenario) validateIBC(c *Checker) {
	b := &s.IBC
	if b.Counterparty == "" {
		return
	}
	c.oneOf("ibc.relayer", b.Relayer, []string{"hermes"})
	if !relayerVersionRE.MatchString(b.RelayerVersion) {
		c.fail("ibc.relayer_version", "%q: a release such as 1.10.5 (\"\": chainperf's own)", b.RelayerVersion)
	}
	if !strings.HasSuffix(b.Counterparty, ".toml") {
		c.fail("ibc.counterparty", "%q: name the other chain's scenario file (.toml)", b.Counterparty)
	}
	if b.Drain < 0 {
		c.fail("ibc.drain", "%s: cannot be negative", b.Drain.D())
	}
	if b.Back < 0 || b.Back > 10 {
		c.fail("ibc.back", "%g: a share of this chain's rate, from 0 to 10", b.Back)
	}
	if b.Back > 0 && s.Load.Generators > 1 {
		c.fail("ibc.back", "the counterparty's load is sent by chainperf itself, beside a phase it sends alone: set load.generators = 1")
	}
	if b.Back > 0 {
		for _, k := range s.Experiment.Kind {
			if k != KindSteady && k != KindSweep || k == KindSteady && s.Load.Model != "constant" {
				c.fail("ibc.back", "the counterparty's load is a share of this chain's rate: it runs beside steady phases of model \"constant\" and sweep cells, not %s of model %q", k, s.Load.Model)
				break
			}
		}
	}
	h := b.Hermes
	if h.MaxMsgNum < 0 || h.MaxMsgNum > 100 {
		c.fail("ibc.hermes.max_msg_num", "%d: from 1 to 100 messages a relay tx (0: Hermes's 30)", h.MaxMsgNum)
	}
	if h.BatchDelay < 0 || h.BatchDelay.D() > 10*time.Second {
		c.fail("ibc.hermes.batch_delay", "%s: from 0 to 10s", h.BatchDelay.D())
	}
	if h.ClearInterval < 0 || h.ClearInterval > 100_000 {
		c.fail("ibc.hermes.clear_interval", "%d: blocks, from 1 to 100000 (0: chainperf's 100)", h.ClearInterval)
	}
	switch s.Testnet.Provider {
	case "process", "netns":
	default:
		c.fail("ibc.counterparty", "a second chain and its relayer run beside testnets of provider \"process\" or \"netns\", not %q", s.Testnet.Provider)
	}
}

// openPeer reads the counterparty's scenario, relative to the scenario at
// path, and checks the pair: one provider, two chain IDs, no third chain.
func (s *Scenario) openPeer(path string) error {
	b := &s.IBC
	if b.Counterparty == "" {
		return nil
	}
	file := b.Counterparty
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(path), file)
	}
	peer, err := Open(file)
	if err != nil {
		return fmt.Errorf("%s: ibc.counterparty: %w", s.Pos("ibc.counterparty"), err)
	}
	switch {
	case peer.IBC.Counterparty != "":
		return fmt.Errorf("%s: ibc.counterparty: %s names a counterparty of its own: chainperf relays between two chains", s.Pos("ibc.counterparty"), file)
	case peer.Testnet.Provider != s.Testnet.Provider:
		return fmt.Errorf("%s: ibc.counterparty: %s runs on provider %q, this testnet on %q: both chains run on one provider", s.Pos("ibc.counterparty"), file, peer.Testnet.Provider, s.Testnet.Provider)
	case peer.Testnet.ChainID == s.Testnet.ChainID:
		return fmt.Errorf("%s: ibc.counterparty: both testnets have chain ID %q: set testnet.chain_id in one (a relayer tells chains by their IDs)", s.Pos("ibc.counterparty"), s.Testnet.ChainID)
	}
	b.Peer = peer
	return nil
}
