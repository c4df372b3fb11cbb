// Package ibc relays between two of chainperf's testnets: Hermes, the Rust
// IBC relayer (built by internal/build), configured from the chains' node
// addresses, its key restored from a mnemonic both chains fund in genesis,
// an ICS-20 channel opened between them, and the relayer run as a process
// chainperf starts and ends, its telemetry on a port of its own.
package ibc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chainperf/chainperf/internal/files"
	"github.com/chainperf/chainperf/internal/printable"
	"github.com/pelletier/go-toml/v2"
)

// A Chain is one side of the relayer: its chain ID and one node's CometBFT
// RPC, gRPC and REST gateway addresses (http://host:port), its address
// prefix and the gas price its txs pay, in its denom.
type Chain struct {
	ID       string
	RPC      string
	GRPC     string
	API      string
	Prefix   string
	Denom    string
	GasPrice float64
}

// Config is what Hermes is told: the two chains, where it serves its
// Prometheus telemetry (host and port) and how it batches.
type Config struct {
	A, B          Chain
	TelemetryHost string
	TelemetryPort int
	Settings      Settings
}

// Settings are Hermes's settings that shape its batches (the scenario's
// [ibc.hermes]); a zero field takes chainperf's value.
type Settings struct {
	MaxMsgNum         int           // messages a relay tx carries at most (Hermes's 30)
	BatchDelay        time.Duration // how long it collects a chain's events (200ms)
	ClearInterval     int           // every how many blocks it clears missed packets (100)
	SequentialBatchTx bool          // a batch's txs each wait for the block of the one before
}

// String names the settings that are not chainperf's ("": all are).
func (s Settings) String() string {
	var out []string
	if s.MaxMsgNum > 0 {
		out = append(out, fmt.Sprintf("max_msg_num %d", s.MaxMsgNum))
	}
	if s.BatchDelay > 0 {
		out = append(out, "batch_delay "+s.BatchDelay.String())
	}
	if s.ClearInterval > 0 {
		out = append(out, fmt.Sprintf("clear_interval %d", s.ClearInterval))
	}
	if s.SequentialBatchTx {
		out = append(out, "sequential_batch_tx")
	}
	return strings.Join(out, ", ")
}

func (s Settings) check() error {
	if s.MaxMsgNum < 0 || s.MaxMsgNum > 100 || s.BatchDelay < 0 || s.ClearInterval < 0 {
		return fmt.Errorf("hermes settings %+v: max_msg_num 0-100, batch_delay and clear_interval 0 or more", s)
	}
	return nil
}

// keyName is the relayer's key on both chains.
const keyName = "relayer"

var chainIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,50}$`)

func (c Chain) check() error {
	if !chainIDRE.MatchString(c.ID) {
		return fmt.Errorf("chain ID %q: letters, digits, '.', '_' and '-', at most 50", c.ID)
	}
	for _, u := range []string{c.RPC, c.GRPC} {
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "http" || p.Host == "" {
			return fmt.Errorf("chain %s: %q is not an http://host:port address", c.ID, u)
		}
	}
	if c.GasPrice < 0 || c.Denom == "" || c.Prefix == "" {
		return fmt.Errorf("chain %s: give its denom, address prefix and a gas price of 0 or more", c.ID)
	}
	return nil
}

// hermesFile is Hermes's config.toml: the fields it has no default for,
// and what chainperf needs (packets relayed and cleared, channels it opens
// itself, keys in the relayer's own directory).
type hermesFile struct {
	Global struct {
		LogLevel string `toml:"log_level"`
	} `toml:"global"`
	Mode struct {
		Clients struct {
			Enabled      bool `toml:"enabled"`
			Refresh      bool `toml:"refresh"`
			Misbehaviour bool `toml:"misbehaviour"`
		} `toml:"clients"`
		Connections modeOn `toml:"connections"`
		Channels    modeOn `toml:"channels"`
		Packets     struct {
			Enabled        bool   `toml:"enabled"`
			ClearInterval  uint64 `toml:"clear_interval"`
			ClearOnStart   bool   `toml:"clear_on_start"`
			TxConfirmation bool   `toml:"tx_confirmation"`
		} `toml:"packets"`
	} `toml:"mode"`
	Rest struct { // off; Hermes wants its address all the same
		Enabled bool   `toml:"enabled"`
		Host    string `toml:"host"`
		Port    int    `toml:"port"`
	} `toml:"rest"`
	Telemetry struct {
		Enabled bool   `toml:"enabled"`
		Host    string `toml:"host"`
		Port    int    `toml:"port"`
	} `toml:"telemetry"`
	Chains []hermesChain `toml:"chains"`
}

type modeOn struct {
	Enabled bool `toml:"enabled"`
}

type hermesChain struct {
	ID          string `toml:"id"`
	Type        string `toml:"type"`
	RPCAddr     string `toml:"rpc_addr"`
	GRPCAddr    string `toml:"grpc_addr"`
	EventSource struct {
		Mode       string `toml:"mode"`
		URL        string `toml:"url"`
		BatchDelay string `toml:"batch_delay"`
	} `toml:"event_source"`
	RPCTimeout     string `toml:"rpc_timeout"`
	AccountPrefix  string `toml:"account_prefix"`
	KeyName        string `toml:"key_name"`
	KeyStoreFolder string `toml:"key_store_folder"`
	StorePrefix    string `toml:"store_prefix"`
	GasPrice       struct {
		Price float64 `toml:"price"`
		Denom string  `toml:"denom"`
	} `toml:"gas_price"`
	MaxGas            uint64 `toml:"max_gas"`
	MaxMsgNum         int    `toml:"max_msg_num,omitempty"`
	SequentialBatchTx bool   `toml:"sequential_batch_tx"`
	ClockDrift        string `toml:"clock_drift"`
	TrustingPeriod    string `toml:"trusting_period"`
	TrustThreshold    struct {
		Numerator   string `toml:"numerator"`
		Denominator string `toml:"denominator"`
	} `toml:"trust_threshold"`
}

// render writes c as Hermes's config, its keys kept under keys.
func (c Config) render(keys string) ([]byte, error) {
	if err := c.Settings.check(); err != nil {
		return nil, err
	}
	var f hermesFile
	f.Global.LogLevel = "info"
	f.Mode.Clients.Enabled, f.Mode.Clients.Refresh = true, true // clients kept fresh through a long run
	f.Mode.Packets.Enabled = true
	f.Mode.Packets.ClearInterval = 100 // blocks: packets its events missed are found again
	if c.Settings.ClearInterval > 0 {
		f.Mode.Packets.ClearInterval = uint64(c.Settings.ClearInterval)
	}
	delay := 200 * time.Millisecond
	if c.Settings.BatchDelay > 0 {
		delay = c.Settings.BatchDelay
	}
	f.Mode.Packets.ClearOnStart = true
	f.Mode.Packets.TxConfirmation = false // chainperf reads the packets' fates from the blocks
	f.Rest.Host, f.Rest.Port = "127.0.0.1", 3000
	f.Telemetry.Enabled = true
	f.Telemetry.Host, f.Telemetry.Port = c.TelemetryHost, c.TelemetryPort
	for _, ch := range []Chain{c.A, c.B} {
		if err := ch.check(); err != nil {
			return nil, err
		}
		var h hermesChain
		h.ID, h.Type, h.RPCAddr, h.GRPCAddr = ch.ID, "CosmosSdk", ch.RPC, ch.GRPC
		h.EventSource.Mode, h.EventSource.BatchDelay = "push", fmt.Sprintf("%dms", delay.Milliseconds()) // humantime: no fractions
		h.MaxMsgNum, h.SequentialBatchTx = c.Settings.MaxMsgNum, c.Settings.SequentialBatchTx
		h.EventSource.URL = "ws" + strings.TrimPrefix(ch.RPC, "http") + "/websocket"
		h.RPCTimeout = "10s"
		h.AccountPrefix, h.KeyName, h.KeyStoreFolder, h.StorePrefix = ch.Prefix, keyName, keys, "ibc"
		h.GasPrice.Price, h.GasPrice.Denom = ch.GasPrice, ch.Denom
		h.MaxGas = 10_000_000
		h.ClockDrift, h.TrustingPeriod = "5s", "1days"
		h.TrustThreshold.Numerator, h.TrustThreshold.Denominator = "1", "3"
		f.Chains = append(f.Chains, h)
	}
	if c.A.ID == c.B.ID {
		return nil, fmt.Errorf("both chains are %s: a relayer needs two chain IDs", c.A.ID)
	}
	return toml.Marshal(f)
}

// A Hermes is the relayer of one run, its files in Dir.
type Hermes struct {
	Bin, Dir string
	Config   Config
	cmd      *exec.Cmd
	done     chan struct{}
	err      error // how it exited, once done is closed
}

// New writes the relayer's config into dir and restores its key on both
// chains from mnemonic (written to a file only hermes reads, then removed).
func New(ctx context.Context, bin, dir string, c Config, mnemonic string) (*Hermes, error) {
	h := &Hermes{Bin: bin, Dir: dir, Config: c}
	conf, err := c.render(filepath.Join(dir, "keys"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(h.configPath(), conf, 0o600); err != nil {
		return nil, err
	}
	words := filepath.Join(dir, "mnemonic")
	if err := os.WriteFile(words, []byte(mnemonic+"\n"), 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(words)
	for _, ch := range []Chain{c.A, c.B} {
		if _, err := h.run(ctx, "keys", "add", "--chain", ch.ID, "--key-name", keyName, "--mnemonic-file", words, "--overwrite"); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *Hermes) configPath() string { return filepath.Join(h.Dir, "config.toml") }

// LogPath is the relayer's log, kept with the run.
func (h *Hermes) LogPath() string { return filepath.Join(h.Dir, "hermes.log") }

// run runs one hermes command with --json and returns its result line's
// "result"; its output goes to the log too.
func (h *Hermes) run(ctx context.Context, args ...string) (json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, h.Bin, append([]string{"--config", h.configPath(), "--json"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+h.Dir, "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if f, ferr := os.OpenFile(h.LogPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); ferr == nil {
		fmt.Fprintf(f, "$ hermes %s\n%s\n", strings.Join(args, " "), out.Bytes())
		f.Close()
	}
	res, rerr := result(out.Bytes())
	switch {
	case err != nil && rerr == nil:
		return nil, fmt.Errorf("hermes %s: %v", strings.Join(args[:2], " "), err)
	case err != nil || rerr != nil:
		return nil, fmt.Errorf("hermes %s: %v (its log: %s)", strings.Join(args[:2], " "), errors.Join(err, rerr), h.LogPath())
	}
	return res, nil
}

// result finds what a hermes --json command returned: the last line that
// is an object with a "status", its "result" when the status is
// "success", else an error quoting it.
func result(out []byte) (json.RawMessage, error) {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var line struct {
			Status string          `json:"status"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(lines[i], &line) != nil || line.Status == "" {
			continue
		}
		if line.Status != "success" {
			return nil, fmt.Errorf("%s: %s", line.Status, cutText(string(line.Result), 600))
		}
		return line.Result, nil
	}
	return nil, fmt.Errorf("no result in its output: %s", cutText(string(out), 600))
}

func cutText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// A Channel is an ICS-20 channel's ID on each chain.
type Channel struct{ A, B string }

var channelIDRE = regexp.MustCompile(`^channel-[0-9]{1,9}$`)

// OpenChannel makes clients, a connection and a transfer channel between
// the two chains (a minute on 1 s blocks: a dozen txs, each waited for).
func (h *Hermes) OpenChannel(ctx context.Context) (Channel, error) {
	res, err := h.run(ctx, "create", "channel", "--a-chain", h.Config.A.ID, "--b-chain", h.Config.B.ID,
		"--a-port", "transfer", "--b-port", "transfer", "--new-client-connection", "--yes")
	if err != nil {
		return Channel{}, err
	}
	return parseChannel(res)
}

func parseChannel(res json.RawMessage) (Channel, error) {
	var got struct {
		A struct {
			ID string `json:"channel_id"`
		} `json:"a_side"`
		B struct {
			ID string `json:"channel_id"`
		} `json:"b_side"`
	}
	if err := json.Unmarshal(res, &got); err != nil || !channelIDRE.MatchString(got.A.ID) || !channelIDRE.MatchString(got.B.ID) {
		return Channel{}, fmt.Errorf("hermes create channel: no channel IDs in %s", cutText(string(res), 300))
	}
	return Channel{A: got.A.ID, B: got.B.ID}, nil
}

// Start runs the relayer until Stop; its output goes to its log.
func (h *Hermes) Start() error {
	log, err := os.OpenFile(h.LogPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	h.cmd = exec.Command(h.Bin, "--config", h.configPath(), "start")
	h.cmd.Env = append(os.Environ(), "HOME="+h.Dir, "NO_COLOR=1")
	h.cmd.Stdout, h.cmd.Stderr = log, log
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := h.cmd.Start(); err != nil {
		log.Close()
		return err
	}
	h.done = make(chan struct{})
	go func() {
		h.err = h.cmd.Wait()
		log.Close()
		close(h.done)
	}()
	return nil
}

// PID is the running relayer's (0 before Start).
func (h *Hermes) PID() int {
	if h.cmd == nil || h.cmd.Process == nil {
		return 0
	}
	return h.cmd.Process.Pid
}

// MetricsURL is its Prometheus telemetry.
func (h *Hermes) MetricsURL() string {
	return "http://" + net.JoinHostPort(h.Config.TelemetryHost, strconv.Itoa(h.Config.TelemetryPort)) + "/metrics"
}

// Done is closed when the relayer has exited; Err says how.
func (h *Hermes) Done() <-chan struct{} { return h.done }

// Err is how the relayer exited (nil before it has).
func (h *Hermes) Err() error {
	select {
	case <-h.done:
		return h.err
	default:
		return nil
	}
}

// Signal sends sig to the running relayer's process group (a fault on
// it: SIGKILL, SIGSTOP, SIGCONT).
func (h *Hermes) Signal(sig syscall.Signal) error {
	if h.cmd == nil || h.done == nil {
		return fmt.Errorf("the relayer is not running")
	}
	select {
	case <-h.done:
		return fmt.Errorf("the relayer has exited: %v", h.err)
	default:
	}
	return syscall.Kill(-h.cmd.Process.Pid, sig)
}

// Stop ends the relayer it started, by its process group: SIGTERM, then
// SIGKILL after grace. One that has exited is left alone (its group's ID
// may be another process's by now).
func (h *Hermes) Stop(grace time.Duration) {
	if h.cmd == nil || h.done == nil {
		return
	}
	select {
	case <-h.done:
		return
	default:
	}
	pgid := h.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGCONT) // a paused relayer hears the SIGTERM
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-h.done:
	case <-time.After(grace):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-h.done
	}
}

// LastLine is the last line of the relayer's log (its last word when it
// went down).
func (h *Hermes) LastLine() string {
	lines := strings.Split(strings.TrimSpace(string(files.Tail(h.LogPath(), 8<<10))), "\n")
	return printable.Clean(lines[len(lines)-1])
}
