package scenario

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/scenario/scenariotest"
)

func TestDefaultParses(t *testing.T) {
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	if s.Testnet.Validators != 4 || s.Testnet.FullNodes != 1 {
		t.Errorf("default testnet = %d validators, %d full nodes; want 4, 1", s.Testnet.Validators, s.Testnet.FullNodes)
	}
	if len(s.Testnet.Args) != 5 {
		t.Errorf("default args = %q", s.Testnet.Args)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range scenariotest.Bads {
		t.Run(tc.Name, func(t *testing.T) {
			_, err := Parse("f.toml", []byte(tc.Doc))
			if err == nil {
				t.Fatalf("Parse(%q) = nil error; want %q", tc.Doc, tc.Want)
			}
			if !strings.Contains(err.Error(), tc.Want) {
				t.Errorf("Parse(%q) error = %q; want it to contain %q", tc.Doc, err, tc.Want)
			}
		})
	}
}

func TestConfigOverridesFlatten(t *testing.T) {
	s, err := Parse("f.toml", []byte("[testnet.config]\n\"mempool.size\" = 100\n[testnet.config.consensus]\ntimeout_commit = \"500ms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Testnet.Config["consensus.timeout_commit"] != "500ms" || s.Testnet.Config["mempool.size"] != int64(100) {
		t.Errorf("config = %v", s.Testnet.Config)
	}
}

func TestArgsReplaceDefaults(t *testing.T) {
	s, err := Parse("f.toml", []byte("[testnet]\nargs = [\"start\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Testnet.Args) != 1 {
		t.Errorf("args = %q; want [start]", s.Testnet.Args)
	}
}

func TestObserveListsReplaceDefaults(t *testing.T) {
	s, err := Parse("f.toml", []byte("[observe]\nmetrics = [\"cometbft_p2p_peers\"]\nprofiles = [{node = \"validator0\", kind = \"allocs\", at = \"10s\"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Observe.Metrics) != 1 || s.Observe.Metrics[0] != "cometbft_p2p_peers" || len(s.Observe.Profiles) != 1 || s.Observe.Profiles[0].At.D() != 10e9 {
		t.Errorf("observe = %+v", s.Observe)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(DefaultText())
	f.Add([]byte("[testnet]\nvalidators = 2\n[testnet.config]\n\"p2p.send_rate\" = 1\n"))
	f.Add([]byte("[load]\nmodel = \"steps\"\nsteps = [{rate = 1, duration = \"1s\"}]\n"))
	// Bad numbers, nesting, strings that look nested, a BOM.
	f.Add([]byte("[testnet]\nvalidators = 2\n[load]\nrate = nan\n"))
	f.Add([]byte("[testnet]\nargs = [[[[[[]]]]]]\n"))
	f.Add([]byte("name = '''\n[[[\n'''\n[load]\nrate = 1e12\n"))
	f.Add([]byte("[load]\nrate = -\n")) // go-toml v2.2.4 panicked on it
	f.Add([]byte("\xef\xbb\xbf[experiment]\nkind = [\"steady\", \"find-max\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		if s.Testnet.Validators < 1 || math.IsNaN(s.Load.Rate) || s.Load.Rate > MaxRate {
			t.Fatalf("accepted %d validators, rate %g", s.Testnet.Validators, s.Load.Rate)
		}
		if err := s.Check(); err != nil {
			t.Errorf("accepted, then refused on a second check: %v", err)
		}
	})
}

// A latency table of one's own: a CSV beside the scenario, checked when
// the scenario is; a table that is not square names its line.
func TestLatencyTableCSV(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("From/to,a,b\na,0,5\nb,5\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.toml"), []byte("[testnet]\nprovider = \"netns\"\nzones = [\"a\", \"b\"]\nlatency_table = \"t.csv\"\n"), 0o644)
	_, err := Open(filepath.Join(dir, "s.toml"))
	if err == nil || !strings.Contains(err.Error(), "t.csv:3: 1 delays for 2 zones: the table must be square") {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("From/to,a,b\na,0,5\nb,5,0\n"), 0o644)
	s, err := Open(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if z := s.Testnet.ZoneOf(); z["validator0"] != "a" || z["validator1"] != "b" || z["validator2"] != "a" || z["full0"] != "a" {
		t.Errorf("zones round-robin: %v", z)
	}
}

// Credentials in URLs are stripped wherever they appear.
func TestRedact(t *testing.T) {
	in := `rpc = "http://user:pa@ss@10.0.0.1:26657" and HTTPS://a:b@h/x, http://plain:1/`
	want := `rpc = "http://10.0.0.1:26657" and HTTPS://h/x, http://plain:1/`
	if got := Redact(in); got != want {
		t.Errorf("Redact = %q; want %q", got, want)
	}
}

// An external network lists its nodes and takes nothing that would need
// chainperf to make or change them.
func TestExternalScenario(t *testing.T) {
	node := "[[testnet.node]]\nrole = \"full\"\nrpc = \"http://127.0.0.1:26657\"\n"
	evmNode := node + "json_rpc = \"http://127.0.0.1:8545\"\n"
	for _, tc := range []struct{ name, text, want string }{
		{"ok", "[testnet]\nprovider = \"external\"\n" + node, ""},
		{"no nodes", "[testnet]\nprovider = \"external\"\n", "needs the network's nodes"},
		{"bad url", "[testnet]\nprovider = \"external\"\n[[testnet.node]]\nrole = \"full\"\nrpc = \"ftp://x\"\n", "give an http:// or https:// URL"},
		{"bad role", "[testnet]\nprovider = \"external\"\n[[testnet.node]]\nrole = \"seed\"\nrpc = \"http://127.0.0.1:1\"\n", "testnet.node[0].role"},
		{"config", "[testnet]\nprovider = \"external\"\n[testnet.config]\n\"mempool.size\" = 10\n" + node, "config overrides cannot be applied"},
		{"cosmos", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\n" + node, "funded by an account you give: set funder_mnemonic_file"},
		{"cosmos funded", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[testnet.cosmos]\nfunder_mnemonic_env = \"M\"\n[workload]\nkind = \"cosmos-send\"\n" + node, ""},
		{"cosmos funded twice", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[testnet.cosmos]\nfunder_mnemonic_env = \"M\"\nfunder_mnemonic_file = \"m.txt\"\n[workload]\nkind = \"cosmos-send\"\n" + node, "not both"},
		{"cosmos bad env", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[testnet.cosmos]\nfunder_mnemonic_env = \"A B\"\n[workload]\nkind = \"cosmos-send\"\n" + node, "the name of an environment variable"},
		{"cosmos bad hd path", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[testnet.cosmos]\nfunder_mnemonic_env = \"M\"\nfunder_hd_path = \"44/118\"\n[workload]\nkind = \"cosmos-send\"\n" + node, "a BIP-32 path"},
		{"cosmos binary", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[testnet.cosmos]\nbinary = \"/bin/true\"\nfunder_mnemonic_env = \"M\"\n[workload]\nkind = \"cosmos-send\"\n" + node, "starts no node of an external network"},
		{"funder on a local testnet", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\nfunder_mnemonic_env = \"M\"\n[workload]\nkind = \"cosmos-send\"\n", "funds its wallets in genesis"},
		{"sweep on a local testnet", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\nsweep_back = true\n[workload]\nkind = \"cosmos-send\"\n", "for provider \"external\" only"},
		{"accounts not bech32", "[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\naccounts = [\"wasm1q00p760n3rpa20dr0ls5ycyxe8rpmvym94ay93\", \"wasm1nope\"]\n[workload]\nkind = \"cosmos-send\"\n", "testnet.cosmos.accounts[1]: \"wasm1nope\" is not a bech32 address"},
		{"accounts on an external network", "[testnet]\nprovider = \"external\"\nchain = \"cosmos\"\n[testnet.cosmos]\nfunder_mnemonic_env = \"M\"\naccounts = [\"wasm1q00p760n3rpa20dr0ls5ycyxe8rpmvym94ay93\"]\n[workload]\nkind = \"cosmos-send\"\n" + node, "fund them yourself"},
		{"evm", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[workload]\nkind = \"evm-transfer\"\n" + evmNode, "funded by an account you give: set funder_key_file"},
		{"evm funded", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"K\"\nsweep_back = true\n[workload]\nkind = \"evm-transfer\"\n" + evmNode, ""},
		{"evm funded twice", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"K\"\nfunder_key_file = \"k.txt\"\n[workload]\nkind = \"evm-transfer\"\n" + evmNode, "not both"},
		{"evm no json-rpc", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"K\"\n[workload]\nkind = \"evm-transfer\"\n" + node, "give json_rpc"},
		{"evm json-rpc sends", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"K\"\nsend_via = \"json-rpc\"\n[workload]\nkind = \"evm-transfer\"\n" + evmNode + "[[testnet.node]]\nrole = \"validator\"\nrpc = \"http://127.0.0.1:26658\"\n", "testnet.node[1].json_rpc"},
		{"evm binary", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nbinary = \"/bin/true\"\nfunder_key_env = \"K\"\n[workload]\nkind = \"evm-transfer\"\n" + evmNode, "starts no node of an external network"},
		{"evm bad env", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"A B\"\n[workload]\nkind = \"evm-transfer\"\n" + evmNode, "the name of an environment variable"},
		{"evm funder on a local testnet", "[testnet]\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"K\"\n[workload]\nkind = \"evm-transfer\"\n", "funds its wallets in genesis"},
		{"evm pool reads too often", "[testnet]\nchain = \"evm\"\n[testnet.evm]\npool_reads = \"10ms\"\n[workload]\nkind = \"evm-transfer\"\n", "testnet.evm.pool_reads: 10ms: from 100ms to 1m"},
		{"evm pool reads of cometbft's mempool", "[testnet]\nchain = \"evm\"\n[testnet.evm]\nmempool = \"cometbft\"\npool_reads = \"1s\"\n[workload]\nkind = \"evm-transfer\"\n", "set mempool = \"app\""},
		{"evm pool reads of an external network", "[testnet]\nprovider = \"external\"\nchain = \"evm\"\n[testnet.evm]\nfunder_key_env = \"K\"\npool_reads = \"1s\"\n[workload]\nkind = \"evm-transfer\"\n" + evmNode, "for testnets chainperf starts"},
		{"evm sweep on a local testnet", "[testnet]\nchain = \"evm\"\n[testnet.evm]\nsweep_back = true\n[workload]\nkind = \"evm-transfer\"\n", "for provider \"external\" only"},
		{"rotate", "[testnet]\nprovider = \"external\"\n[experiment]\nkind = \"rotate\"\n" + node, "rotate starts fresh nodes"},
		{"nodes without external", node, "set [testnet] provider = \"external\""},
	} {
		s, err := Parse("e.toml", []byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		case tc.want == "" && s.Testnet.NodeNames()[0] != "full0":
			t.Errorf("%s: names %v", tc.name, s.Testnet.NodeNames())
		}
	}
}

// A testnet's own accounts are bech32 addresses.
func TestCosmosAccounts(t *testing.T) {
	_, err := Parse("a.toml", []byte("[testnet]\nchain = \"cosmos\"\n[testnet.cosmos]\naccounts = [\"wasm1q00p760n3rpa20dr0ls5ycyxe8rpmvym94ay93\"]\n[workload]\nkind = \"cosmos-send\"\n"))
	if err != nil {
		t.Error(err)
	}
}

// The shape of a file is checked before the decoder sees it: nesting past
// MaxDepth (memory grew with its square) and size past MaxFileBytes are
// errors; brackets in strings and comments do not count; a UTF-8 BOM is
// accepted.
func TestFileShape(t *testing.T) {
	deep := "[testnet]\nargs = " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n"
	if _, err := Parse("f.toml", []byte(deep)); err == nil || !strings.Contains(err.Error(), "f.toml:2: nested more than 16") {
		t.Errorf("40 deep: %v", err)
	}
	quoted := "name = \"" + strings.Repeat("[", 40) + "\" # " + strings.Repeat("{", 40) + "\n[testnet]\nargs = ['''\n" + strings.Repeat("[", 40) + "''']\n"
	if _, err := Parse("f.toml", []byte(quoted)); err != nil && strings.Contains(err.Error(), "nested") {
		t.Errorf("brackets in strings and comments counted: %v", err)
	}
	// A dotted key nests as a table a level a part: 520,000 parts took
	// 14 s and 1.3 GB to decode. Dots in values and strings do not count.
	dotted := "[testnet]\n" + strings.Repeat("a.", 100_000) + "a = 1\n"
	if _, err := Parse("f.toml", []byte(dotted)); err == nil || !strings.Contains(err.Error(), "f.toml:2: a dotted key of more than 16 parts") {
		t.Errorf("a key of 100,001 parts: %v", err)
	}
	values := "name = \"" + strings.Repeat("a.", 40) + "\"\n[experiment]\nrates = [" + strings.Repeat("1.5, ", 40) + "2.5]\n"
	if _, err := Parse("f.toml", []byte(values)); err != nil && strings.Contains(err.Error(), "dotted") {
		t.Errorf("dots in values and strings counted: %v", err)
	}
	big := "name = \"x\"\n" + strings.Repeat("# padding\n", MaxFileBytes/10+1)
	if _, err := Parse("f.toml", []byte(big)); err == nil || !strings.Contains(err.Error(), "a scenario is at most") {
		t.Errorf("a 1 MiB+ file: %v", err)
	}
	if s, err := Parse("f.toml", []byte("\xef\xbb\xbfname = \"bom\"\n")); err != nil || s.Name != "bom" {
		t.Errorf("a BOM: %v", err)
	}
	if _, err := Open("/dev/zero"); err == nil || !strings.Contains(err.Error(), "is a device") {
		t.Errorf("/dev/zero: %v", err)
	}
}

// "auto" turns the scale profile on from ScaleFrom validators; on, off
// and lists of parts say exactly what applies, each part once (a part
// chainperf does not know is a bad-input case of scenariotest).
func TestScaleProfileParts(t *testing.T) {
	for _, tc := range []struct {
		setting string
		vals    int
		want    []string
	}{
		{"auto", ScaleFrom - 1, nil},
		{"auto", ScaleFrom, ScaleParts},
		{"", 50, ScaleParts},
		{"on", 4, ScaleParts},
		{"off", 100, nil},
		{"peers, log,peers", 4, []string{"peers", "log"}},
	} {
		tn := Testnet{ScaleProfile: tc.setting, Validators: tc.vals}
		if got := tn.ScaleProfileParts(); !slices.Equal(got, tc.want) {
			t.Errorf("%q with %d validators: %v; want %v", tc.setting, tc.vals, got, tc.want)
		}
	}
}

// Powers that add up to CometBFT's maximum total voting power exactly
// are a valid set; one more is refused (scenariotest.Bads).
func TestPowersUpToTheMaximumTotal(t *testing.T) {
	if _, err := Parse("f.toml", []byte("[testnet]\nvalidators = 2\npowers = [1152921504606846974, 1]\n")); err != nil {
		t.Errorf("powers summing to the maximum: %v", err)
	}
}

// Bad values come all at once, as bad keys do: each the decoder refuses
// (a wrong type, a duration that is not one) with its line, then what
// validation finds in the rest.
func TestValueErrorsAllAtOnce(t *testing.T) {
	_, err := Parse("s.toml", []byte("[load]\nrate = \"x\"\nduration = \"abc\"\n[testnet]\nvalidators = \"y\"\nfull_nodes = -1\n"))
	if err == nil {
		t.Fatal("parsed")
	}
	for _, want := range []string{"s.toml:2: load.rate must be a number", `s.toml:3: "abc" is not a duration`, "s.toml:5: testnet.validators must be an integer", "s.toml:6: testnet.full_nodes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

// TestVersionOf: versions take nodes by name, the rest by weight in
// shares of the validators and, apart, of the full nodes.
func TestVersionOf(t *testing.T) {
	s, err := Parse("f.toml", []byte(`[testnet]
validators = 4
full_nodes = 2
[[testnet.versions]]
binary = "embedded"
weight = 2
[[testnet.versions]]
binary = "/bin/true"
weight = 1
[[testnet.versions]]
binary = "/bin/false"
nodes = ["validator3"]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Testnet.VersionOf()
	want := map[string]int{"validator0": 0, "validator1": 0, "validator2": 1, "validator3": 2, "full0": 0, "full1": 1}
	if !maps.Equal(got, want) {
		t.Errorf("versions %v; want %v", got, want)
	}
	up := Perturbation{Kind: "upgrade", Duration: Duration(2 * time.Second), Gap: Duration(time.Second)}
	if n := s.UpgradeNodes(up); len(n) != 6 || n[4] != "full0" {
		t.Errorf("an upgrade of every node takes %v", n)
	}
	if l := s.UpgradeLength(up); l.D() != 17*time.Second { // 6 x 2 s + 5 x 1 s
		t.Errorf("upgrade length %s; want 17s", l.D())
	}
}

// workload.mode's default is the chain's: "pregenerate", but "live" on an
// EVM chain; a mode set is kept on either.
func TestModeDefaultIsTheChains(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[testnet]\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\n", "pregenerate"},
		{"[testnet]\nchain = \"cosmos\"\n[workload]\nkind = \"cosmos-send\"\nmode = \"live\"\n", "live"},
		{"[testnet]\nchain = \"evm\"\n[workload]\nkind = \"evm-transfer\"\n", "live"},
		{"[testnet]\nchain = \"evm\"\n[workload]\nkind = \"evm-transfer\"\nmode = \"pregenerate\"\n", "pregenerate"},
	} {
		s, err := Parse("m.toml", []byte(tc.text))
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if s.Workload.Mode != tc.want {
			t.Errorf("%q: mode %q; want %q", tc.text, s.Workload.Mode, tc.want)
		}
	}
}

// [ibc] names the other chain's scenario file, read relative to this one:
// a second testnet of its own chain ID on the same provider, with no
// counterparty of its own; what is wrong is said with the file and key.
func TestIBCCounterparty(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	b := write("b.toml", "[testnet]\nchain_id = \"b-1\"\n")
	write("same.toml", "[testnet]\nchain_id = \"a-1\"\n")
	write("third.toml", "[testnet]\nchain_id = \"c-1\"\n[ibc]\ncounterparty = \"b.toml\"\n")
	write("netns.toml", "[testnet]\nchain_id = \"c-1\"\nprovider = \"netns\"\n")
	a := func(cp string, more ...string) string {
		return write("a.toml", "[testnet]\nchain_id = \"a-1\"\n"+strings.Join(more, "")+"[ibc]\ncounterparty = \""+cp+"\"\n")
	}
	s, err := Open(a("b.toml"))
	if err != nil || s.IBC.Peer == nil || s.IBC.Peer.File != b || s.IBC.Peer.Testnet.ChainID != "b-1" {
		t.Fatalf("peer %+v, %v", s.IBC.Peer, err)
	}
	for cp, want := range map[string]string{
		"none.toml":  "a.toml:4: ibc.counterparty: read scenario",
		"same.toml":  "both testnets have chain ID \"a-1\"",
		"third.toml": "names a counterparty of its own",
		"netns.toml": "runs on provider \"netns\", this testnet on \"process\"",
		"b.txt":      "name the other chain's scenario file (.toml)",
	} {
		if _, err := Open(a(cp)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", cp, err, want)
		}
	}
	if _, err := Open(a("b.toml", "provider = \"kubernetes\"\n")); err == nil || !strings.Contains(err.Error(), "provider \"process\" or \"netns\"") {
		t.Errorf("kubernetes: %v", err)
	}
	// The load back: a share of an open-loop rate, beside phases chainperf sends alone.
	if s, err := Open(a("b.toml") + ""); err != nil || s.IBC.Back != 0 {
		t.Errorf("no load back by default: %v", err)
	}
	for more, want := range map[string]string{
		"back = 0.25\n[experiment]\nkind = \"steady\"\n": "",
		"back = -1\n": "ibc.back: -1: a share of this chain's rate",
		"back = 0.5\n[experiment]\nkind = \"find-max\"\n": "runs beside steady phases of model \"constant\" and sweep cells, not find-max",
		"back = 0.5\n[load]\ngenerators = 2\n":            "set load.generators = 1",
	} {
		_, err := Open(write("a.toml", "[testnet]\nchain_id = \"a-1\"\n[ibc]\ncounterparty = \"b.toml\"\n"+more))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v; want %q", more, err, want)
		}
	}
	// The relayer's settings: taken, and refused out of their range with the key named.
	s, err = Open(write("a.toml", "[testnet]\nchain_id = \"a-1\"\n[ibc]\ncounterparty = \"b.toml\"\n[ibc.hermes]\nmax_msg_num = 10\nbatch_delay = \"1s\"\nclear_interval = 5\nsequential_batch_tx = true\n"))
	if h := s.IBC.Hermes; err != nil || h.MaxMsgNum != 10 || h.BatchDelay.D() != time.Second || h.ClearInterval != 5 || !h.SequentialBatchTx {
		t.Errorf("[ibc.hermes]: %+v, %v", s.IBC.Hermes, err)
	}
	for line, want := range map[string]string{
		"max_msg_num = 101":    "a.toml:6: ibc.hermes.max_msg_num: 101: from 1 to 100",
		"batch_delay = \"1m\"": "ibc.hermes.batch_delay: 1m0s: from 0 to 10s",
		"clear_interval = -1":  "ibc.hermes.clear_interval: -1: blocks",
		"max_messages = 3":     "max_messages",
	} {
		_, err := Open(write("a.toml", "[testnet]\nchain_id = \"a-1\"\n[ibc]\ncounterparty = \"b.toml\"\n[ibc.hermes]\n"+line+"\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", line, err, want)
		}
	}
	// The relayer is a perturbation's target with [ibc] only, alone, killed or paused.
	kill := "[[perturbation]]\nkind = \"%s\"\nnodes = [%s]\nat = \"10s\"\nduration = \"5s\"\n"
	if _, err := Open(write("a.toml", "[testnet]\nchain_id = \"a-1\"\n"+fmt.Sprintf(kill, "kill", `"relayer"`)+"[ibc]\ncounterparty = \"b.toml\"\n")); err != nil {
		t.Errorf("kill the relayer: %v", err)
	}
	for _, bad := range []string{fmt.Sprintf(kill, "restart", `"relayer"`), fmt.Sprintf(kill, "kill", `"relayer", "validator0"`)} {
		if _, err := Open(write("a.toml", "[testnet]\nchain_id = \"a-1\"\n"+bad+"[ibc]\ncounterparty = \"b.toml\"\n")); err == nil || !strings.Contains(err.Error(), "the relayer is killed or paused alone") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := Open(write("a.toml", "[testnet]\n"+fmt.Sprintf(kill, "kill", `"relayer"`))); err == nil || !strings.Contains(err.Error(), "perturbation[0].nodes") {
		t.Errorf("a relayer without [ibc]: %v", err)
	}
}
