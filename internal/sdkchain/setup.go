package sdkchain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/cosmos"
	"github.com/chainperf/chainperf/internal/testnet"
)

// A Chain is what Setup made: the funded wallets and how long genesis took.
type Chain struct {
	Binary string
	Spec   cosmos.Config
	// Wallets are unkeyed: cosmos.KeysOf(Spec.Seed, Spec.Bech32Prefix)
	// derives the key of the ones that sign.
	Wallets []cosmos.Wallet
	Funding cosmos.Funding
	// GenesisTime is how long deriving and funding the wallets took.
	GenesisTime time.Duration
	// Decided: where set-up followed the chain's own CLI (Params.Decided).
	Decided []string
}

// bytesPerWallet is about what one funded wallet costs a node in memory
// while it loads genesis (JSON, decoded accounts and balances, the store
// before its first commit): chainperf-sdkd peaked at 1,465 MiB with
// 100,000 wallets and 11,668 MiB with 1,000,000 (bench/state-size.sh).
const bytesPerWallet = 12 << 10

// CheckMemory refuses a genesis the machine cannot load on every node;
// key names the scenario's wallet count.
func CheckMemory(key string, wallets, nodes int) error {
	avail, err := memAvailable()
	if err != nil {
		return nil // not Linux: no check
	}
	need := uint64(wallets) * uint64(nodes) * bytesPerWallet
	if need > avail/10*8 {
		return fmt.Errorf("%s = %d: each of %d nodes loads the whole genesis, about %.1f GiB in all, and this machine has %.1f GiB available; lower wallets or run fewer nodes (a state saved with testnet.cosmos.state_cache loads no genesis, but is built by loading it once)",
			key, wallets, nodes, float64(need)/(1<<30), float64(avail)/(1<<30))
	}
	return nil
}

func memAvailable() (uint64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no MemAvailable in /proc/meminfo")
}

// Setup turns the CometBFT homes t.Setup wrote into homes of the SDK chain
// at binary (Init), then funds the wallets in genesis, which every node
// gets.
func Setup(ctx context.Context, t *testnet.Testnet, binary string, spec cosmos.Config, settings Settings) (*Chain, error) {
	if err := CheckMemory("testnet.cosmos.wallets", spec.Wallets, len(t.Nodes)); err != nil {
		return nil, err
	}
	genesis, spec, decided, err := initChain(ctx, t, binary, spec, settings)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	wallets, err := cosmos.Unkeyed(spec.Seed, spec.Wallets, spec.Bech32Prefix, 0)
	if err != nil {
		return nil, err
	}
	funding, err := cosmos.FundGenesis(genesis, wallets, spec.Denom, uint64(spec.WalletBalance))
	if err != nil {
		return nil, err
	}
	if err := fundAccounts(genesis, spec); err != nil {
		return nil, err
	}
	took := time.Since(began)
	if err := Distribute(t, genesis); err != nil {
		return nil, err
	}
	return &Chain{Binary: binary, Spec: spec, Wallets: wallets, Funding: funding, GenesisTime: took, Decided: decided}, nil
}

// fundAccounts funds the scenario's own addresses in genesis, after the
// wallets (whose numbers stay as they were), each an address of this
// chain, and the keys of spec.Mnemonics at its prefix.
func fundAccounts(genesis string, spec cosmos.Config) error {
	accounts := slices.Clone(spec.Accounts)
	for i, a := range accounts {
		if prefix, _, err := cosmos.DecodeBech32(a); err != nil || prefix != spec.Bech32Prefix {
			return fmt.Errorf("testnet.cosmos.accounts[%d]: %s is not an address of this chain, whose addresses begin %s1", i, a, spec.Bech32Prefix)
		}
	}
	for _, m := range spec.Mnemonics {
		w, err := cosmos.FromMnemonic(m, cosmos.DefaultHDPath, spec.Bech32Prefix)
		if err != nil {
			return err
		}
		accounts = append(accounts, w.Address)
	}
	if len(accounts) == 0 {
		return nil
	}
	_, _, err := cosmos.FundAccounts(genesis, len(accounts), func(yield func(string) error) error {
		for _, a := range accounts {
			if err := yield(a); err != nil {
				return err
			}
		}
		return nil
	}, spec.Denom, new(big.Int).SetInt64(spec.WalletBalance))
	return err
}

// initChain runs Init over t's homes and reads the chain's denom and
// address prefix into spec; it returns the genesis made.
func initChain(ctx context.Context, t *testnet.Testnet, binary string, spec cosmos.Config, settings Settings) (string, cosmos.Config, []string, error) {
	p := Params{Denom: spec.Denom, Stake: new(big.Int).SetInt64(spec.Stake), Settings: settings, InitArgs: spec.InitArgs, Hook: spec.SetupHook,
		GentxFee: GentxFee(spec.GasPrice)}
	// The gas price's denom is known once init has said what the chain's is.
	p.AppToml = func(*testnet.Node) map[string]string {
		return map[string]string{".minimum-gas-prices": strconv.Quote(strconv.FormatFloat(spec.GasPrice, 'f', -1, 64) + p.Denom)}
	}
	genesis, err := Init(ctx, t, binary, &p)
	if err != nil {
		return "", spec, nil, err
	}
	spec.Denom = p.Denom
	chainPrefix, err := addressPrefix(ctx, binary, t.ByRole(testnet.RoleValidator)[0].Home)
	if err != nil {
		return "", spec, nil, err
	}
	if spec.Bech32Prefix, err = prefix(spec.Bech32Prefix, chainPrefix, filepath.Base(binary)); err != nil {
		return "", spec, nil, err
	}
	return genesis, spec, p.Decided, nil
}

// gentxGas is the gas a gentx asks for (the SDK's default limit).
const gentxGas = 200_000

// GentxFee is what a gentx pays at gasPrice, rounded up; nil for a free
// chain.
func GentxFee(gasPrice float64) *big.Int {
	if gasPrice <= 0 {
		return nil
	}
	f, _ := new(big.Float).SetFloat64(math.Ceil(gasPrice * gentxGas)).Int(nil)
	return f
}

// Params say what differs between the SDK chains Init sets up.
type Params struct {
	// Denom is the staking and fee denom; "" takes the chain's own (the
	// bond denom its init writes), and Init sets it.
	Denom string
	// Stake is each validator's self-delegation per unit of voting power.
	Stake *big.Int
	// AppToml gives a node's app.toml settings, "section.key" (".key" at
	// the top) to a TOML value; each must be in the file init wrote.
	AppToml func(n *testnet.Node) map[string]string
	// Settings are the scenario's genesis patches and app.toml keys,
	// checked against the files the chain's init writes.
	Settings Settings
	// InitArgs are added to every node's init; Hook (an absolute path,
	// "": none) runs in each node's home after init and the config files.
	InitArgs []string
	Hook     string
	// GentxFee (nil or 0: none) is what each validator's gentx pays, in
	// Denom: a chain that checks its minimum gas price on genesis txs too
	// (Celestia's) refuses a free one at its first start.
	GentxFee *big.Int
	// Decided: what Init did otherwise than the SDK's template app's CLI
	// would have it, because the chain's CLI differs (its help read first).
	Decided []string
}

// Init turns the CometBFT homes t.Setup wrote into homes of the SDK chain
// at binary: `init` in each (keeping chainperf's node and validator keys
// and config.toml), app.toml's settings with the API and gRPC servers off,
// a key, genesis account and gentx per validator, collect-gentxs. It
// returns the genesis file it made, in the first validator's home.
func Init(ctx context.Context, t *testnet.Testnet, binary string, p *Params) (string, error) {
	sh, err := readShape(ctx, binary)
	if err != nil {
		return "", err
	}
	if sh.genesis == "" {
		p.Decided = append(p.Decided, "the genesis commands are at the top of the CLI (no `genesis` command): used there")
	}
	run := func(args ...string) ([]byte, error) { return cli(ctx, binary, args...) }
	vals := t.ByRole(testnet.RoleValidator)
	if len(vals) == 0 {
		return "", fmt.Errorf("a Cosmos SDK chain needs at least one validator")
	}
	first := vals[0]
	for i, n := range t.Nodes {
		if err := initHome(ctx, t, n, binary, sh, p, i == 0); err != nil {
			return "", err
		}
	}
	for _, v := range vals {
		out, err := run("keys", "add", "operator", "--keyring-backend", "test", "--home", v.Home, "--output", "json")
		if err != nil {
			return "", err
		}
		addr, err := operatorAddress(out)
		if err != nil {
			return "", fmt.Errorf("%s keys add: %w", binary, err)
		}
		funds := new(big.Int).Mul(big.NewInt(v.Power), p.Stake)
		if p.GentxFee != nil {
			funds.Add(funds, p.GentxFee)
		}
		if _, err := run(sh.genesisArgs("add-genesis-account", addr, funds.String()+p.Denom, "--home", first.Home)...); err != nil {
			return "", err
		}
	}
	gentxDir := filepath.Join(first.Home, "config", "gentx")
	if err := os.MkdirAll(gentxDir, 0o755); err != nil {
		return "", err
	}
	for _, v := range vals {
		if v != first {
			if err := copyFile(Genesis(first), Genesis(v)); err != nil {
				return "", err
			}
		}
		stake := new(big.Int).Mul(big.NewInt(v.Power), p.Stake).String() + p.Denom
		args := []string{"gentx", "operator", stake,
			"--chain-id", t.ChainID, "--home", v.Home, "--keyring-backend", "test",
			"--moniker", v.Name, "--output-document", filepath.Join(gentxDir, v.Name+".json")}
		if p.GentxFee != nil && p.GentxFee.Sign() > 0 {
			args = append(args, "--fees", p.GentxFee.String()+p.Denom)
		}
		if _, err := run(sh.genesisArgs(args...)...); err != nil {
			return "", err
		}
	}
	if _, err := run(sh.genesisArgs("collect-gentxs", "--home", first.Home, "--gentx-dir", gentxDir)...); err != nil {
		return "", err
	}
	if err := p.Settings.PatchGenesis(Genesis(first), filepath.Base(binary)); err != nil {
		return "", err
	}
	return Genesis(first), nil
}

// initHome runs binary's init in n's home (the denom given by
// --default-denom, or written into genesis after when init lacks the flag;
// "" reads the chain's own), then writes chainperf's config.toml and
// app.toml's settings. first says whether to record what it decided.
func initHome(ctx context.Context, t *testnet.Testnet, n *testnet.Node, binary string, sh shape, p *Params, first bool) error {
	args := []string{"init", n.Name, "--chain-id", t.ChainID, "--home", n.Home, "--overwrite"}
	if p.Denom != "" && sh.defaultDenom {
		args = append(args, "--default-denom", p.Denom)
	}
	if _, err := cli(ctx, binary, append(args, p.InitArgs...)...); err != nil {
		return err
	}
	written, err := BondDenom(Genesis(n))
	switch {
	case errors.Is(err, ErrNoStaking):
		return fmt.Errorf("%s: %w", filepath.Base(binary), err)
	case err != nil && p.Denom == "":
		return fmt.Errorf("%s init: %w", filepath.Base(binary), err)
	case err != nil:
		written = p.Denom // no staking denom to read: the scenario's stands
	}
	switch {
	case p.Denom == "":
		p.Denom = written
	case written != p.Denom:
		changed, err := patchDenom(Genesis(n), written, p.Denom)
		if err != nil {
			return err
		}
		why := "init has no --default-denom"
		if sh.defaultDenom {
			why = "init's --default-denom left the bond denom " + strconv.Quote(written)
		}
		if first {
			p.Decided = append(p.Decided, fmt.Sprintf("%s: %d denoms of %q in genesis set to %q", why, changed, written, p.Denom))
		}
	}
	if err := t.WriteConfig(n); err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	appToml := filepath.Join(n.Home, "config", "app.toml")
	edits, err := p.Settings.appTomlEdits(appToml, filepath.Base(binary))
	if err != nil {
		return err
	}
	maps.Copy(edits, p.AppToml(n))
	if p.Settings.Servers {
		maps.Copy(edits, serversOn(n))
	}
	if err := editAppToml(appToml, edits); err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	if p.Settings.Traces != "" {
		traced, err := traceTo(n, p.Settings.Traces)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		if !traced && first {
			p.Decided = append(p.Decided, NoTracing)
		}
	}
	if p.Hook != "" {
		return runHook(ctx, p.Hook, binary, t.ChainID, n)
	}
	return nil
}

// DefaultConfig runs binary's init in home (made for it) and returns the
// config.toml it wrote: the defaults of the CometBFT version it runs.
func DefaultConfig(ctx context.Context, binary, home, chainID string) (string, error) {
	if _, err := cli(ctx, binary, "init", "defaults", "--chain-id", chainID, "--home", home, "--overwrite"); err != nil {
		return "", err
	}
	return filepath.Join(home, "config", "config.toml"), nil
}

// HasStartFlag says whether binary's start command takes flag (its help
// lists it).
func HasStartFlag(ctx context.Context, binary, flag string) bool {
	out, err := cli(ctx, binary, "start", "--help")
	return err == nil && bytes.Contains(out, []byte(flag+" "))
}

// Genesis is the genesis file in n's home.
func Genesis(n *testnet.Node) string { return filepath.Join(n.Home, "config", "genesis.json") }

// Distribute copies the genesis file at path to every node that does not
// hold it.
func Distribute(t *testnet.Testnet, path string) error {
	for _, n := range t.Nodes {
		if Genesis(n) != path {
			if err := copyFile(path, Genesis(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

func cli(ctx context.Context, binary string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, binary, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// What a failing command printed goes into the error, without
		// anything that looks like a mnemonic (keys add prints one).
		return nil, fmt.Errorf("%s %s: %v: %s", filepath.Base(binary), strings.Join(args, " "), err, redactMnemonic(strings.TrimSpace(stderr.String())))
	}
	// keys add writes its JSON to stderr in some SDK versions.
	return append(out, stderr.Bytes()...), nil
}

var (
	sectionRE = regexp.MustCompile(`^\s*\[([^\]]+)\]\s*$`)
	keyRE     = regexp.MustCompile(`^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)(.*)$`)
)

// serversOff turns off the API, gRPC and gRPC-web servers where app.toml
// has them: their fixed default ports would clash between nodes.
var serversOff = map[string]string{"api.enable": "false", "grpc.enable": "false", "grpc-web.enable": "false"}

// serversOn turns on n's REST gateway and gRPC server at its own ports.
func serversOn(n *testnet.Node) map[string]string {
	at := func(port int) string { return net.JoinHostPort(n.Host, strconv.Itoa(port)) }
	return map[string]string{"api.enable": "true", "api.address": strconv.Quote("tcp://" + at(n.Ports.API)),
		"grpc.enable": "true", "grpc.address": strconv.Quote(at(n.Ports.GRPC))}
}

// editAppToml sets app.toml's settings, "section.key" (".key" at the top)
// to a TOML value, and serversOff; a setting of set the file does not have
// is an error naming it.
func editAppToml(path string, set map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("no app.toml after init: %w", err)
	}
	all := maps.Clone(serversOff)
	maps.Copy(all, set)
	set = maps.Clone(set)
	section := ""
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if m := sectionRE.FindStringSubmatch(l); m != nil {
			section = m[1]
			continue
		}
		if m := keyRE.FindStringSubmatch(l); m != nil {
			if v, ok := all[section+"."+m[2]]; ok {
				lines[i] = m[1] + m[2] + m[3] + v
				delete(set, section+"."+m[2])
			}
		}
	}
	if len(set) > 0 {
		missing := slices.Sorted(maps.Keys(set))
		return fmt.Errorf("%s has no %s: not the app.toml of a chain chainperf can set up", path, strings.Join(missing, ", "))
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// operatorAddress reads the address from `keys add --output json`. Some
// versions print a warning before the JSON; the JSON (and sometimes the
// text after it) holds the key's mnemonic, so an error never quotes it.
func operatorAddress(out []byte) (string, error) {
	var key struct {
		Address string `json:"address"`
	}
	if j := bytes.IndexByte(out, '{'); j >= 0 {
		_ = json.NewDecoder(bytes.NewReader(out[j:])).Decode(&key)
	}
	if key.Address == "" {
		return "", fmt.Errorf("no address in its output (%d bytes, not shown: it may hold the key's mnemonic); run the command by hand to see why", len(out))
	}
	return key.Address, nil
}

// mnemonicRE matches a "mnemonic" JSON field and a run of 12 or more
// lower-case words on one line, the form of a BIP-39 mnemonic.
var mnemonicRE = regexp.MustCompile(`"mnemonic"\s*:\s*"[^"]*"|\b[a-z]{3,8}( [a-z]{3,8}){11,}\b`)

// redactMnemonic removes what looks like a mnemonic from a command's output.
func redactMnemonic(s string) string {
	return mnemonicRE.ReplaceAllString(s, "[mnemonic removed]")
}

// BondDenom reads the staking denom from a genesis file
// (app_state.staking.params.bond_denom).
func BondDenom(genesis string) (string, error) {
	b, err := os.ReadFile(genesis)
	if err != nil {
		return "", err
	}
	var doc struct {
		AppState struct {
			Staking *struct {
				Params struct {
					BondDenom string `json:"bond_denom"`
				} `json:"params"`
			} `json:"staking"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("%s: %w", genesis, err)
	}
	if doc.AppState.Staking == nil {
		return "", ErrNoStaking
	}
	if doc.AppState.Staking.Params.BondDenom == "" {
		return "", fmt.Errorf("%s has no app_state.staking.params.bond_denom: set testnet.cosmos.denom", genesis)
	}
	return doc.AppState.Staking.Params.BondDenom, nil
}

// ErrNoStaking says a chain's genesis has no staking module: its
// validators are not made by gentxs, the only way chainperf makes them.
var ErrNoStaking = errors.New("its genesis has no staking module (app_state.staking), so its validators cannot be made by gentxs as chainperf makes them: " +
	"chainperf runs chains whose validators stake in their own genesis (an Interchain Security consumer's come from a provider chain, which it does not run)")

// addressPrefix reads the chain's bech32 account prefix from the address
// of the key Init made in home.
func addressPrefix(ctx context.Context, binary, home string) (string, error) {
	out, err := cli(ctx, binary, "keys", "show", "operator", "--address", "--keyring-backend", "test", "--home", home)
	if err != nil {
		return "", err
	}
	// A warning may come beside the address (cli keeps stderr).
	for _, f := range strings.Fields(string(out)) {
		if m := addressRE.FindStringSubmatch(f); m != nil {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("%s keys show printed no bech32 address (%d bytes)", filepath.Base(binary), len(out))
}

var addressRE = regexp.MustCompile(`^([a-z]{1,40})1[02-9ac-hj-np-z]{38,}$`)

// prefix is the address prefix a run uses: the scenario's, which must be
// the chain's, or ("") the chain's.
func prefix(given, chain, binary string) (string, error) {
	if given != "" && given != chain {
		return "", fmt.Errorf("testnet.cosmos.bech32_prefix is %q, but %s makes addresses with %q: set it to %q or leave it out (\"\" reads it from the chain)",
			given, binary, chain, chain)
	}
	return chain, nil
}
