package cosmos

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/cometbft/cometbft/crypto/secp256k1"
	bip39 "github.com/cosmos/go-bip39"
)

// DefaultHDPath is the Cosmos Hub's BIP-44 path (coin type 118), what
// `keys add` uses unless told otherwise.
const DefaultHDPath = "m/44'/118'/0'/0/0"

// FromMnemonic is the wallet of a BIP-39 mnemonic (no passphrase) at a
// BIP-32 path, as an SDK keyring derives it with `keys add --recover`.
// Errors never quote the mnemonic.
func FromMnemonic(mnemonic, path, prefix string) (Wallet, error) {
	words := strings.Join(strings.Fields(mnemonic), " ")
	seed, err := bip39.NewSeedWithErrorChecking(words, "")
	if err != nil {
		return Wallet{}, fmt.Errorf("not a valid BIP-39 mnemonic (%d words; a word misspelled or the checksum wrong)", len(strings.Fields(mnemonic)))
	}
	steps, err := parseHDPath(path)
	if err != nil {
		return Wallet{}, err
	}
	// The network only picks the serialisation's version bytes, unused here.
	k, err := hdkeychain.NewMaster(seed, &chaincfg.MainNetParams)
	if err != nil {
		return Wallet{}, err
	}
	for _, i := range steps {
		if k, err = k.Derive(i); err != nil {
			return Wallet{}, fmt.Errorf("hd path %s: %w", path, err)
		}
	}
	priv, err := k.ECPrivKey()
	if err != nil {
		return Wallet{}, err
	}
	b := priv.Key.Bytes() // 32 bytes, left-padded, as the SDK keeps it
	key := secp256k1.PrivKey(b[:])
	pub := key.PubKey()
	addr, err := Bech32(prefix, pub.Address())
	if err != nil {
		return Wallet{}, err
	}
	return Wallet{Key: key, PubKey: pub.Bytes(), Address: addr}, nil
}

// MnemonicOf is a BIP-39 mnemonic (24 words) made from seed and name
// alone, for a key chainperf hands to another program that takes only a
// mnemonic (a relayer's): like the wallets, anyone who knows the seed
// holds it, so it is for chains of chainperf's own making.
func MnemonicOf(seed, name string) string {
	entropy := sha256.Sum256([]byte("chainperf/mnemonic/" + seed + "/" + name))
	words, err := bip39.NewMnemonic(entropy[:])
	if err != nil {
		panic(err) // 256 bits is a size BIP-39 takes
	}
	return words
}

// FromSecret is the wallet of what a funder gave: a hex secp256k1 private
// key (what `keys export --unarmored-hex --unsafe` prints) or else a
// mnemonic at path.
func FromSecret(secret, path, prefix string) (Wallet, error) {
	t := strings.TrimSpace(secret)
	if len(t) == 64 {
		if b, err := hex.DecodeString(t); err == nil {
			key := secp256k1.PrivKey(b)
			pub := key.PubKey()
			addr, err := Bech32(prefix, pub.Address())
			return Wallet{Key: key, PubKey: pub.Bytes(), Address: addr}, err
		}
	}
	return FromMnemonic(secret, path, prefix)
}

// parseHDPath reads m/44'/118'/0'/0/0 into child indexes.
func parseHDPath(path string) ([]uint32, error) {
	parts := strings.Split(path, "/")
	if len(parts) < 2 || parts[0] != "m" {
		return nil, fmt.Errorf("hd path %q: write it as m/44'/118'/0'/0/0", path)
	}
	var out []uint32
	for _, p := range parts[1:] {
		hard := strings.HasSuffix(p, "'")
		n, err := strconv.ParseUint(strings.TrimSuffix(p, "'"), 10, 31)
		if err != nil {
			return nil, fmt.Errorf("hd path %q: %q is not an index below 2^31", path, p)
		}
		i := uint32(n)
		if hard {
			i += hdkeychain.HardenedKeyStart
		}
		out = append(out, i)
	}
	return out, nil
}
