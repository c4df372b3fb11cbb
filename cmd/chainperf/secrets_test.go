package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chainperf/chainperf/internal/evm"
)

// A password in any address chainperf takes (the results database's
// DSN, its query parameters, a node URL, a mistyped scheme) never reaches
// what it prints, including inside a library's error.
func TestNoSecretInOutput(t *testing.T) {
	reg := t.TempDir()
	scn := filepath.Join(t.TempDir(), "ext.toml")
	for _, tc := range []struct {
		secret string
		args   []string
	}{
		{"Pg0Secret1", []string{"runs", "list", "--db", "postgres://chainperf:Pg0Secret1@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"}},
		{"Pg0Secret2", []string{"runs", "list", "--db", "postgres://u@127.0.0.1:1/db?password=Pg0Secret2&sslmode=disable&connect_timeout=2"}},
		{"Pg0Secret3", []string{"runs", "list", "--db", "postgresql://u:x@127.0.0.1:1/db?sslmode=require&sslpassword=Pg0Secret3&connect_timeout=2"}},
		{"Pg0Secret4", []string{"runs", "list", "--db", "postgress://u:Pg0Secret4@127.0.0.1/db"}},
		{"Pg0Secret5", []string{"runs", "list", "--db", "postgres:/u:Pg0Secret5@127.0.0.1/db"}},
		{"Pg0Secret6", []string{"runs", "list", "--db", "postgres//u:Pg0Secret6@127.0.0.1/db"}},
		{"Pg0Secret7", []string{"runs", "list", "--db", "host=127.0.0.1 password=Pg0Secret7"}},
		{"Pg0Secret8", []string{"runs", "list", "--db", "u:Pg0Secret8@127.0.0.1/db"}},
		{"RpcSecret1", []string{"load", "--rpc", "http://u:RpcSecret1@127.0.0.1:1", "--duration", "1s", "--no-store"}},
		{"RpcSecret2", []string{"load", "--rpc", "htp://u:RpcSecret2@127.0.0.1:1", "--no-store"}},
		{"RpcSecret3", []string{"load", "--rpc", "http://u:RpcSecret3@127.0.0.1:1#x", "--no-store"}},
		{"RpcSecret4", []string{"run", scn, "--db", filepath.Join(t.TempDir(), "r.db")}},
	} {
		if strings.HasPrefix(tc.secret, "RpcSecret4") {
			os.WriteFile(scn, []byte(`[testnet]
provider = "external"
[[testnet.node]]
role = "validator"
rpc = "http://u:RpcSecret4@127.0.0.1:1"
metrics = "http://m:RpcSecret4@127.0.0.1:1/metrics"
json_rpc = "http:/j:RpcSecret4@127.0.0.1:1"
`), 0o644)
		}
		out, code := cli(t, reg, tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d; want 2\n%s", tc.args, code, out)
		}
		if strings.Contains(out, tc.secret) {
			t.Errorf("%v printed the password:\n%s", tc.args, out)
		}
	}
}

// TestFunderKey: testnet funder-key writes genesis wallet 0's key of the
// scenario's seed to a new owner-only file and prints only the address;
// an existing file, a symlink (even to nowhere) and a chain without EVM
// wallets are refused, and nothing is written through the link.
func TestFunderKey(t *testing.T) {
	// No node, nothing timed: the beside tier.
	t.Parallel()
	dir, reg := t.TempDir(), t.TempDir()
	scen := filepath.Join(dir, "evm.toml")
	if err := os.WriteFile(scen, []byte("[testnet]\nchain = \"evm\"\n[testnet.evm]\nseed = \"team\"\n[workload]\nkind = \"evm-transfer\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := evm.Derive("team", 0)
	var d [32]byte
	w.Key.Key.PutBytes(&d)
	key := fmt.Sprintf("%x", d)
	out, code := cli(t, reg, "testnet", "funder-key", "-f", scen, "--out", filepath.Join(dir, "k"))
	if code != 0 || !strings.Contains(out, w.Address.String()) || strings.Contains(out, key[:16]) {
		t.Fatalf("exit %d: want wallet 0's address and not its key\n%s", code, out)
	}
	st, err := os.Stat(filepath.Join(dir, "k"))
	if err != nil || st.Mode().Perm() != 0o600 || string(mustRead(t, filepath.Join(dir, "k"))) != key+"\n" {
		t.Fatalf("the key file: %v, mode %v; want wallet 0's key, 0600", err, st)
	}
	if got, err := evm.FromHexKey(string(mustRead(t, filepath.Join(dir, "k")))); err != nil || got.Address != w.Address {
		t.Errorf("the file does not read back as the key: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"-f", scen, "--out", filepath.Join(dir, "k")}},
		{[]string{"-f", scen, "--out", link}},
		{[]string{"--out", filepath.Join(dir, "k2")}}, // the default scenario: kvstore
	} {
		if out, code := cli(t, reg, append([]string{"testnet", "funder-key"}, c.args...)...); code == 0 || strings.Contains(out, key[:16]) {
			t.Errorf("%v: exit %d, want a refusal\n%s", c.args, code, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Error("the key was written through the symlink")
	}
	if _, err := os.Lstat(filepath.Join(dir, "k2")); err == nil {
		t.Error("a key file was written for a kvstore scenario")
	}
}
