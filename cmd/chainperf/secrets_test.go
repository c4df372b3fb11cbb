package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
