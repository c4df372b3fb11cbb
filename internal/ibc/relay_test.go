package ibc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/build"
	"github.com/chainperf/chainperf/internal/cosmos"
)

// wasmd is the chain of both sides: a CosmWasm chain nobody here wrote,
// built from its module version, with IBC transfer in it.
const wasmd = "module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.61.14"

// TestHermesRelaysATransfer: two testnets chainperf starts (wasmd, one
// validator each, the relayer's address funded in both geneses), Hermes
// built at its pinned version opens an ICS-20 channel between them and
// relays a transfer: the voucher arrives on B under the denom of B's end
// of the channel, and the acknowledgement goes back to A.
func TestHermesRelaysATransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Hermes, wasmd and chainperf; two testnets")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	hermes, err := build.Hermes(ctx, build.HermesVersion, build.CacheDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cp := filepath.Join(dir, "chainperf")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", cp, "../../cmd/chainperf").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mnemonic := cosmos.MnemonicOf("chainperf", "relayer")
	relayer, err := cosmos.FromMnemonic(mnemonic, cosmos.DefaultHDPath, "wasm")
	if err != nil {
		t.Fatal(err)
	}
	a := upTestnet(t, ctx, cp, dir, "ibca-1", relayer.Address)
	b := upTestnet(t, ctx, cp, dir, "ibcb-1", relayer.Address)
	l, err := net.Listen("tcp", "127.0.0.1:0") // a port for the relayer's telemetry
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	h, err := New(ctx, hermes, filepath.Join(dir, "relayer"), Config{A: a.chain, B: b.chain, TelemetryHost: "127.0.0.1", TelemetryPort: port}, mnemonic)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	ch, err := h.OpenChannel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("channel %s on A, %s on B, opened in %s", ch.A, ch.B, time.Since(began).Round(time.Second))
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	defer h.Stop(10 * time.Second)
	if b, err := os.ReadFile(filepath.Join(dir, "relayer", "config.toml")); err != nil || bytes.Contains(b, []byte(strings.Fields(mnemonic)[0]+" ")) {
		t.Errorf("the relayer's directory holds its mnemonic: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "relayer", "mnemonic")); err == nil {
		t.Error("the mnemonic file was left behind")
	}

	// The relayer's own key sends 1234stake from A to itself on B.
	home := filepath.Join(dir, "cli")
	recover := exec.CommandContext(ctx, a.binary, "keys", "add", "r", "--recover", "--keyring-backend", "test", "--home", home)
	recover.Stdin = strings.NewReader(mnemonic + "\n")
	if out, err := recover.CombinedOutput(); err != nil {
		t.Fatalf("keys add: %v\n%s", err, out)
	}
	send := exec.CommandContext(ctx, a.binary, "tx", "ibc-transfer", "transfer", "transfer", ch.A, relayer.Address, "1234stake",
		"--from", "r", "--keyring-backend", "test", "--home", home, "--node", a.rpc, "--chain-id", a.chain.ID,
		"--fees", "400stake", "--gas", "300000", "--yes", "-o", "json")
	if out, err := send.CombinedOutput(); err != nil || !bytes.Contains(out, []byte(`"code":0`)) {
		t.Fatalf("transfer: %v\n%s", err, out)
	}
	sum := sha256.Sum256([]byte("transfer/" + ch.B + "/stake"))
	voucher := fmt.Sprintf("ibc/%X", sum)
	balance := func() string {
		out, _ := exec.CommandContext(ctx, b.binary, "q", "bank", "balance", relayer.Address, voucher, "--node", b.rpc, "-o", "json").Output()
		var got struct{ Balance struct{ Amount string } }
		json.Unmarshal(out, &got)
		return got.Balance.Amount
	}
	sent := time.Now()
	for time.Since(sent) < 90*time.Second && balance() != "1234" {
		time.Sleep(time.Second)
	}
	if got := balance(); got != "1234" {
		t.Fatalf("%s of %s on B after 90 s, not 1234 (relayer log %s)", got, voucher, h.LogPath())
	}
	t.Logf("the voucher on B %s after the transfer was sent", time.Since(sent).Round(time.Second))
	// The acknowledgement is relayed back to A: Hermes counts it confirmed.
	acked := func() bool {
		resp, err := http.Get(h.MetricsURL())
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		for _, line := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(line, "acknowledgment_packets_confirmed_total{") && strings.Contains(line, `dst_chain="ibca-1"`) && !strings.HasSuffix(line, " 0") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(60 * time.Second)
	for !acked() && time.Now().Before(deadline) {
		time.Sleep(time.Second)
	}
	if !acked() {
		t.Errorf("no acknowledgement confirmed on A after 60 s (relayer log %s)", h.LogPath())
	}
	h.Stop(10 * time.Second)
	select {
	case <-h.Done():
	default:
		t.Error("the relayer runs after Stop")
	}
}

type side struct {
	chain       Chain
	rpc, binary string
}

// upTestnet starts a one-validator wasmd testnet with chain ID id, its
// servers on and addr funded, detached; the test's end takes it down.
func upTestnet(t *testing.T, ctx context.Context, cp, dir, id, addr string) side {
	t.Helper()
	file := filepath.Join(dir, id+".toml")
	scenario := fmt.Sprintf(`name = %q
[testnet]
validators = 1
full_nodes = 0
chain_id = %q
chain = "cosmos"
[testnet.config]
"consensus.timeout_commit" = "300ms"
[testnet.cosmos]
binary = %q
wallets = 10
gas_price = 0.001
servers = true
accounts = [%q]
[workload]
kind = "cosmos-send"
[load]
duration = "30s"
`, id, id, wasmd, addr)
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, id)
	up := exec.CommandContext(ctx, cp, "testnet", "up", "-f", file, "--detach", "--dir", home)
	// Both testnets take their ports from one registry of the test's own,
	// from the start of the lane's ports when .ci/run gives it some.
	up.Env = append(os.Environ(), "CHAINPERF_REGISTRY="+filepath.Join(dir, "registry"))
	if first, _, ok := strings.Cut(os.Getenv("CHAINPERF_TEST_PORTS"), "-"); ok {
		up.Env = append(up.Env, "CHAINPERF_FIRST_PORT="+first)
	}
	if out, err := up.CombinedOutput(); err != nil {
		t.Fatalf("testnet up %s: %v\n%s", id, err, out)
	}
	t.Cleanup(func() { exec.Command(cp, "testnet", "down", "--dir", home).Run() })
	b, err := os.ReadFile(filepath.Join(home, "testnet.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tn struct {
		Binary string `json:"binary"`
		Nodes  []struct {
			Host  string         `json:"host"`
			Ports map[string]int `json:"ports"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(b, &tn); err != nil || len(tn.Nodes) != 1 {
		t.Fatalf("testnet.json: %v", err)
	}
	n := tn.Nodes[0]
	if n.Host == "" {
		n.Host = "127.0.0.1"
	}
	rpc := fmt.Sprintf("http://%s:%d", n.Host, n.Ports["rpc"])
	return side{
		chain:  Chain{ID: id, RPC: rpc, GRPC: fmt.Sprintf("http://%s:%d", n.Host, n.Ports["grpc"]), Prefix: "wasm", Denom: "stake", GasPrice: 0.001},
		rpc:    strings.Replace(rpc, "http://", "tcp://", 1),
		binary: tn.Binary,
	}
}
