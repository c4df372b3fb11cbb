package ibc

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func twoChains() Config {
	return Config{
		A:             Chain{ID: "ibca-1", RPC: "http://127.0.0.1:26641", GRPC: "http://127.0.0.1:26647", Prefix: "wasm", Denom: "stake", GasPrice: 0.001},
		B:             Chain{ID: "ibcb-1", RPC: "http://127.0.0.1:26649", GRPC: "http://127.0.0.1:26655", Prefix: "wasm", Denom: "stake", GasPrice: 0.001},
		TelemetryHost: "127.0.0.1", TelemetryPort: 3001,
	}
}

// Hermes's config names both chains with their own addresses, the event
// stream on each node's websocket, keys kept in the relayer's directory,
// packets relayed and telemetry on.
func TestConfigOfTwoChains(t *testing.T) {
	b, err := twoChains().render("/run/relayer/keys")
	if err != nil {
		t.Fatal(err)
	}
	var f hermesFile
	if err := toml.Unmarshal(b, &f); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, b)
	}
	if len(f.Chains) != 2 || f.Chains[0].ID != "ibca-1" || f.Chains[1].ID != "ibcb-1" {
		t.Fatalf("chains: %+v", f.Chains)
	}
	c := f.Chains[1]
	if c.EventSource.URL != "ws://127.0.0.1:26649/websocket" || c.GRPCAddr != "http://127.0.0.1:26655" || c.KeyStoreFolder != "/run/relayer/keys" ||
		c.GasPrice.Denom != "stake" || c.AccountPrefix != "wasm" || c.KeyName != keyName {
		t.Errorf("chain B: %+v", c)
	}
	if !f.Mode.Packets.Enabled || !f.Mode.Clients.Enabled || f.Mode.Channels.Enabled || !f.Telemetry.Enabled || f.Telemetry.Port != 3001 {
		t.Errorf("modes: %+v, telemetry %+v", f.Mode, f.Telemetry)
	}
	// chainperf's batching, and Hermes's own max_msg_num (none written).
	if c.EventSource.BatchDelay != "200ms" || f.Mode.Packets.ClearInterval != 100 || c.MaxMsgNum != 0 || c.SequentialBatchTx || strings.Contains(string(b), "max_msg_num") {
		t.Errorf("default batching: %+v, clear every %d\n%s", c, f.Mode.Packets.ClearInterval, b)
	}
}

// [ibc.hermes]'s settings reach both chains' sections of Hermes's config,
// and the relayer's name in the finding says which are not chainperf's.
func TestConfigTakesTheSettings(t *testing.T) {
	c := twoChains()
	c.Settings = Settings{MaxMsgNum: 10, BatchDelay: 1500 * time.Millisecond, ClearInterval: 20, SequentialBatchTx: true}
	b, err := c.render("/k")
	if err != nil {
		t.Fatal(err)
	}
	var f hermesFile
	if err := toml.Unmarshal(b, &f); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, b)
	}
	for _, ch := range f.Chains {
		if ch.MaxMsgNum != 10 || ch.EventSource.BatchDelay != "1500ms" || !ch.SequentialBatchTx {
			t.Errorf("chain %s: %+v", ch.ID, ch)
		}
	}
	if f.Mode.Packets.ClearInterval != 20 {
		t.Errorf("clear_interval %d, want 20", f.Mode.Packets.ClearInterval)
	}
	if got := c.Settings.String(); got != "max_msg_num 10, batch_delay 1.5s, clear_interval 20, sequential_batch_tx" {
		t.Errorf("settings read %q", got)
	}
	if got := (Settings{}).String(); got != "" {
		t.Errorf("chainperf's own settings read %q, want none", got)
	}
}

// What Hermes could not be given is refused before it runs.
func TestConfigRefuses(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"one chain ID":   func(c *Config) { c.B.ID = c.A.ID },
		"bad chain ID":   func(c *Config) { c.A.ID = "a b\n[x]" },
		"grpc not http":  func(c *Config) { c.B.GRPC = "127.0.0.1:26655" },
		"rpc elsewhere":  func(c *Config) { c.A.RPC = "file:///etc/passwd" },
		"no denom":       func(c *Config) { c.A.Denom = "" },
		"negative price": func(c *Config) { c.B.GasPrice = -1 },
		"101 messages":   func(c *Config) { c.Settings.MaxMsgNum = 101 },
		"negative delay": func(c *Config) { c.Settings.BatchDelay = -time.Second },
	} {
		c := twoChains()
		edit(&c)
		if _, err := c.render("/k"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A hermes --json command's answer is its last status line: the result on
// success, an error quoting it otherwise, and an error when there is none.
func TestResultOfACommand(t *testing.T) {
	ok := "2026-11-30T07:53:03Z INFO starting\n{\"result\":{\"a_side\":{\"channel_id\":\"channel-0\"},\"b_side\":{\"channel_id\":\"channel-3\"}},\"status\":\"success\"}\n"
	res, err := result([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := parseChannel(res)
	if err != nil || ch != (Channel{A: "channel-0", B: "channel-3"}) {
		t.Errorf("channel %+v, %v", ch, err)
	}
	if _, err := result([]byte(`{"result":"failed to create channel: no account","status":"error"}`)); err == nil || !strings.Contains(err.Error(), "no account") {
		t.Errorf("error status: %v", err)
	}
	if _, err := result([]byte("thread 'main' panicked at ...")); err == nil || !strings.Contains(err.Error(), "no result") {
		t.Errorf("no status line: %v", err)
	}
	for _, bad := range []string{`{"a_side":{"channel_id":"channel-0"}}`, `{"a_side":{"channel_id":"../x"},"b_side":{"channel_id":"channel-1"}}`, `[]`} {
		if _, err := parseChannel(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func FuzzResult(f *testing.F) {
	f.Add([]byte("{\"result\":{\"a_side\":{\"channel_id\":\"channel-0\"},\"b_side\":{\"channel_id\":\"channel-1\"}},\"status\":\"success\"}"))
	f.Add([]byte("{\"result\":\"x\",\"status\":\"error\"}\n{\"status\":1}"))
	f.Add([]byte("not json\n{"))
	f.Fuzz(func(t *testing.T, out []byte) {
		res, err := result(out)
		if err != nil {
			return
		}
		if ch, err := parseChannel(res); err == nil && (!channelIDRE.MatchString(ch.A) || !channelIDRE.MatchString(ch.B)) {
			t.Fatalf("channel %+v from %q", ch, out)
		}
	})
}

// New restores the key on both chains from a file of the mnemonic that
// it removes after, and writes no mnemonic into the relayer's directory;
// a hermes that fails says so with its log. (A stand-in hermes: the real
// one runs in cmd/chainperf's TestIBCTransfers.)
func TestNewKeepsNoMnemonic(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hermes")
	calls := filepath.Join(dir, "calls")
	os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\ntest -s \"${11}\" || exit 3\necho '{\"result\":\"ok\",\"status\":\"success\"}'\n"), 0o755)
	mnemonic := "abandon ability able about above absent absorb abstract absurd abuse access accident"
	h, err := New(context.Background(), bin, filepath.Join(dir, "relayer"), twoChains(), mnemonic)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	if got := strings.Count(string(b), "keys add --chain"); got != 2 || !strings.Contains(string(b), "--chain ibca-1") || !strings.Contains(string(b), "--chain ibcb-1") {
		t.Errorf("keys added: %s", b)
	}
	filepath.Walk(h.Dir, func(p string, _ os.FileInfo, _ error) error {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "abandon ability") {
			t.Errorf("%s holds the mnemonic", p)
		}
		return nil
	})
	os.WriteFile(bin, []byte("#!/bin/sh\necho 'thread main panicked'\nexit 101\n"), 0o755)
	if _, err := New(context.Background(), bin, filepath.Join(dir, "relayer2"), twoChains(), mnemonic); err == nil || !strings.Contains(err.Error(), "hermes.log") {
		t.Errorf("a failing hermes: %v", err)
	}
}
