package cosmos

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
)

// ModuleAddress is the address of an SDK module account (fee_collector,
// bonded_tokens_pool, ...): the first 20 bytes of SHA-256 of its name.
func ModuleAddress(prefix, name string) string {
	sum := sha256.Sum256([]byte(name))
	addr, _ := Bech32(prefix, sum[:20])
	return addr
}

// Funding is what FundGenesis did.
type Funding struct {
	Wallets int
	Each    uint64
	Denom   string
	Bytes   int64 // size of the genesis file written
}

// FundGenesis adds wallets to the genesis file at path: a BaseAccount each
// in app_state.auth.accounts (numbers after the accounts already there,
// which are renumbered 0.. in their order so that no two clash) and each
// amount of denom in app_state.bank.balances; the supply of denom grows by
// the sum. It sets the wallets' Number to what the chain will assign.
func FundGenesis(path string, wallets []Wallet, denom string, each uint64) (Funding, error) {
	first, size, err := FundAccounts(path, len(wallets), func(yield func(string) error) error {
		for _, w := range wallets {
			if err := yield(w.Address); err != nil {
				return err
			}
		}
		return nil
	}, denom, new(big.Int).SetUint64(each))
	if err != nil {
		return Funding{}, err
	}
	for i := range wallets {
		wallets[i].Number = first + uint64(i)
	}
	return Funding{Wallets: len(wallets), Each: each, Denom: denom, Bytes: size}, nil
}

// Addresses yields bech32 addresses in order, stopping at yield's first
// error, which it returns.
type Addresses func(yield func(addr string) error) error

// FundAccounts adds n accounts holding each of denom, at the addresses
// addrs yields, to the genesis file at path, as FundGenesis does, and
// returns the first new account's number and the file's new size. The
// accounts are written as addrs yields them, never held: a million cost
// the writer no more memory than ten.
func FundAccounts(path string, n int, addrs Addresses, denom string, each *big.Int) (first uint64, size int64, err error) {
	fail := func(err error) (uint64, int64, error) { return 0, 0, fmt.Errorf("%s: %w", path, err) }
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	g, err := readBank(raw)
	if err != nil {
		return fail(err)
	}
	first = uint64(len(g.accounts))
	if err := g.grow(denom, new(big.Int).Mul(each, big.NewInt(int64(n)))); err != nil {
		return fail(err)
	}
	frame, err := g.frame()
	if err != nil {
		return fail(err)
	}
	// The new balances are written beside the file and joined after, so
	// that each address is asked for once.
	var files [2]*os.File
	for i := range files {
		if files[i], err = os.CreateTemp(filepath.Dir(path), ".funding-*"); err != nil {
			return fail(err)
		}
		defer os.Remove(files[i].Name()) //nolint:errcheck // gone once renamed, or a failure's leftover
		defer files[i].Close()           //nolint:errcheck // closed below on success
	}
	out, side := bufio.NewWriterSize(files[0], 1<<20), bufio.NewWriterSize(files[1], 1<<20)
	if err := g.writeNew(out, side, frame, n, addrs, first, denom, each.String()); err != nil {
		return fail(err)
	}
	if size, err = join(files[0], out, files[1], frame); err != nil {
		return fail(err)
	}
	if err := os.Rename(files[0].Name(), path); err != nil {
		return fail(err)
	}
	return first, size, nil
}

type coin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// bankGenesis is a genesis file's accounts, balances and supply, and the
// rest of it as it was.
type bankGenesis struct {
	doc, app, auth, bank map[string]json.RawMessage
	accounts             []map[string]any
	balances             []json.RawMessage
	supply               []coin
}

func readBank(raw []byte) (*bankGenesis, error) {
	var g bankGenesis
	if err := json.Unmarshal(raw, &g.doc); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(g.doc["app_state"], &g.app); err != nil {
		return nil, fmt.Errorf("app_state: %w", err)
	}
	if err := json.Unmarshal(g.app["auth"], &g.auth); err != nil || g.auth == nil {
		return nil, fmt.Errorf("no app_state.auth: is this a Cosmos SDK chain's genesis?")
	}
	if err := json.Unmarshal(g.app["bank"], &g.bank); err != nil || g.bank == nil {
		return nil, fmt.Errorf("no app_state.bank: is this a Cosmos SDK chain's genesis?")
	}
	if err := json.Unmarshal(g.auth["accounts"], &g.accounts); err != nil {
		return nil, fmt.Errorf("app_state.auth.accounts: %w", err)
	}
	for i, a := range g.accounts {
		if a == nil {
			return nil, fmt.Errorf("app_state.auth.accounts[%d] is null", i)
		}
		a["account_number"] = strconv.Itoa(i)
	}
	if err := json.Unmarshal(g.bank["balances"], &g.balances); err != nil {
		return nil, fmt.Errorf("app_state.bank.balances: %w", err)
	}
	if err := json.Unmarshal(g.bank["supply"], &g.supply); err != nil {
		return nil, fmt.Errorf("app_state.bank.supply: %w", err)
	}
	return &g, nil
}

// grow adds add to the supply of denom.
func (g *bankGenesis) grow(denom string, add *big.Int) error {
	for i := range g.supply {
		if g.supply[i].Denom == denom {
			old, ok := new(big.Int).SetString(g.supply[i].Amount, 10)
			if !ok {
				return fmt.Errorf("supply of %s is %q", denom, g.supply[i].Amount)
			}
			g.supply[i].Amount = old.Add(old, add).String()
			return nil
		}
	}
	// The SDK wants the supply sorted by denom.
	g.supply = append(g.supply, coin{Denom: denom, Amount: add.String()})
	for i := len(g.supply) - 1; i > 0 && g.supply[i].Denom < g.supply[i-1].Denom; i-- {
		g.supply[i], g.supply[i-1] = g.supply[i-1], g.supply[i]
	}
	return nil
}

// Stand-ins for the two lists in the marshalled file, replaced as it is
// written.
const (
	accountsMark = `"@chainperf:accounts@"`
	balancesMark = `"@chainperf:balances@"`
)

// A genesisFrame is the file around the two lists: before the accounts,
// between them and after the balances (auth sorts before bank).
type genesisFrame struct{ head, middle, tail []byte }

func (g *bankGenesis) frame() (genesisFrame, error) {
	var err error
	set := func(m map[string]json.RawMessage, key string, v any) {
		if err == nil {
			m[key], err = json.Marshal(v)
		}
	}
	g.auth["accounts"] = json.RawMessage(accountsMark)
	g.bank["balances"] = json.RawMessage(balancesMark)
	set(g.bank, "supply", g.supply)
	set(g.app, "auth", g.auth)
	set(g.app, "bank", g.bank)
	set(g.doc, "app_state", g.app)
	var doc []byte
	if err == nil {
		doc, err = json.Marshal(g.doc)
	}
	if err != nil {
		return genesisFrame{}, err
	}
	a, b := bytes.Index(doc, []byte(accountsMark)), bytes.Index(doc, []byte(balancesMark))
	if a < 0 || b < a || bytes.Count(doc, []byte(accountsMark)) != 1 || bytes.Count(doc, []byte(balancesMark)) != 1 {
		return genesisFrame{}, fmt.Errorf("the genesis already holds chainperf's stand-in strings %s or %s", accountsMark, balancesMark)
	}
	return genesisFrame{head: doc[:a], middle: doc[a+len(accountsMark) : b], tail: doc[b+len(balancesMark):]}, nil
}

// writeNew writes the head and the accounts list to out and the balances
// list to side: the ones there were, then n new ones from addrs.
func (g *bankGenesis) writeNew(out, side *bufio.Writer, f genesisFrame, n int, addrs Addresses, first uint64, denom, amount string) error {
	out.Write(f.head) //nolint:errcheck // a bufio.Writer keeps its first error for Flush
	out.WriteByte('[')
	side.WriteByte('[')
	for i, a := range g.accounts {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(b)
	}
	for i, b := range g.balances {
		if i > 0 {
			side.WriteByte(',')
		}
		side.Write(b)
	}
	coins, err := json.Marshal([]coin{{Denom: denom, Amount: amount}})
	if err != nil {
		return err
	}
	var buf []byte
	i := 0
	err = addrs(func(addr string) error {
		if i == n {
			return fmt.Errorf("more than the %d addresses to fund", n)
		}
		if !bech32ish(addr) {
			return fmt.Errorf("address %d to fund, %q, is not bech32", i, addr)
		}
		buf = buf[:0]
		if i > 0 || len(g.accounts) > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"`...)
		buf = append(buf, addr...)
		buf = append(buf, `","pub_key":null,"account_number":"`...)
		buf = strconv.AppendUint(buf, first+uint64(i), 10)
		buf = append(buf, `","sequence":"0"}`...)
		out.Write(buf)
		buf = buf[:0]
		if i > 0 || len(g.balances) > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"address":"`...)
		buf = append(buf, addr...)
		buf = append(buf, `","coins":`...)
		buf = append(buf, coins...)
		buf = append(buf, '}')
		side.Write(buf)
		i++
		return nil
	})
	if err == nil && i != n {
		err = fmt.Errorf("%d addresses to fund, not %d", i, n)
	}
	if err != nil {
		return err
	}
	out.WriteByte(']')
	side.WriteByte(']')
	return side.Flush()
}

// join appends the middle, the balances list and the tail to the file out
// writes, and returns its size.
func join(dst *os.File, out *bufio.Writer, src *os.File, f genesisFrame) (int64, error) {
	out.Write(f.middle) //nolint:errcheck // kept for Flush
	if err := out.Flush(); err != nil {
		return 0, err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if _, err := io.Copy(dst, src); err != nil {
		return 0, err
	}
	if _, err := dst.Write(f.tail); err != nil {
		return 0, err
	}
	if err := dst.Chmod(0o644); err != nil {
		return 0, err
	}
	size, err := dst.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	return size, dst.Close()
}

// bech32ish says whether s can be written into JSON as it is: a bech32
// address's characters.
func bech32ish(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
