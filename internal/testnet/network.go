package testnet

import (
	"fmt"
	"net/netip"
	"strings"
)

// A Network is the address plan of a testnet whose nodes are emulated
// hosts (one network namespace a node, on one bridge): the netns provider
// makes it real. Every name carries the testnet's ID, so two testnets, or
// a leftover and a live one, are never confused.
type Network struct {
	Tag    string       `json:"tag"`    // "cp3f9a1c": bridge name, prefix of every other name
	Subnet netip.Prefix `json:"subnet"` // a /24; .1 is the bridge
}

// NetworkTag returns the name stem for testnet id ("tn-3f9a1c" -> "cp3f9a1c").
func NetworkTag(id string) string { return "cp" + strings.TrimPrefix(id, "tn-") }

// Namespace is node i's namespace.
func (n Network) Namespace(i int) string { return fmt.Sprintf("%s-%d", n.Tag, i) }

// HostLink is the root-namespace end of node i's veth pair (at most 15
// characters: "cp3f9a1c-199h").
func (n Network) HostLink(i int) string { return fmt.Sprintf("%s-%dh", n.Tag, i) }

// Gateway is the bridge's address.
func (n Network) Gateway() netip.Addr { return n.Subnet.Addr().Next() }

// Address is node i's address: .2, .3, ...
func (n Network) Address(i int) netip.Addr {
	a := n.Gateway()
	for j := 0; j <= i; j++ {
		a = a.Next()
	}
	return a
}

// Exec is the command prefix that runs a program in node i's namespace.
func (n Network) Exec(i int) []string { return []string{"ip", "netns", "exec", n.Namespace(i)} }

// Range is the subnet (for delay backends that take any set of hosts).
func (n Network) Range() netip.Prefix { return n.Subnet }
