package sdkchain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadWallets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wallets")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cosmos1a\ncosmos1b\n")
	ws, err := readWallets(path, 2, 5, "cosmos")
	if err != nil || len(ws) != 2 || ws[1].Address != "cosmos1b" || ws[1].Number != 6 || ws[0].Key != nil {
		t.Fatalf("%+v, %v", ws, err)
	}
	for _, c := range []struct{ text, want string }{
		{"cosmos1a\n", "1 wallets, want 2"},
		{"cosmos1a\ncosmos1b\ncosmos1c\n", `:3: "cosmos1c" is not wallet 2 of 2`},
		{"cosmos1a\nosmo1b\n", `:2: "osmo1b" is not wallet 1 of 2 (cosmos1...)`},
	} {
		write(c.text)
		if _, err := readWallets(path, 2, 5, "cosmos"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}
