package agent

import (
	"fmt"
	"net/netip"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// tableName is the nftables table the agent owns in the pod's network
// namespace; removing it undoes every cut.
const tableName = "chainperf"

// A cut is what the pod may not reach: every address but the agent's own
// port (all), or the listed peers.
type cut struct {
	all   bool
	peers []netip.Addr
}

// apply replaces the agent's table with the rules of c (an empty cut
// removes the table). Needs CAP_NET_ADMIN in the pod.
func apply(c cut, agentPort uint16) error {
	conn, err := nftables.New()
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	t := &nftables.Table{Family: nftables.TableFamilyIPv4, Name: tableName}
	// Flush-by-delete: add the table first so that deleting it never fails.
	conn.AddTable(t)
	conn.DelTable(t)
	if !c.all && len(c.peers) == 0 {
		return flush(conn)
	}
	conn.AddTable(t)
	accept := nftables.ChainPolicyAccept
	in := conn.AddChain(&nftables.Chain{Name: "in", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookInput, Priority: nftables.ChainPriorityFilter, Policy: &accept})
	out := conn.AddChain(&nftables.Chain{Name: "out", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityFilter, Policy: &accept})
	rule := func(ch *nftables.Chain, exprs ...expr.Any) {
		conn.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: exprs})
	}
	drop := &expr.Verdict{Kind: expr.VerdictDrop}
	acc := &expr.Verdict{Kind: expr.VerdictAccept}
	if c.all {
		// Loopback and the agent's port stay open: the harness must reach
		// the agent to reconnect the node.
		rule(in, append(ifname(expr.MetaKeyIIFNAME, "lo"), acc)...)
		rule(in, append(tcpPort(2, agentPort), acc)...)
		rule(in, drop)
		rule(out, append(ifname(expr.MetaKeyOIFNAME, "lo"), acc)...)
		rule(out, append(tcpPort(0, agentPort), acc)...)
		rule(out, drop)
	}
	for _, a := range c.peers {
		ip := a.As4()
		rule(in, &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ip[:]}, drop)
		rule(out, &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ip[:]}, drop)
	}
	return flush(conn)
}

func flush(conn *nftables.Conn) error {
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("nftables (the pod needs CAP_NET_ADMIN): %w", err)
	}
	return nil
}

// ifname matches the packet's in or out interface name.
func ifname(key expr.MetaKey, name string) []expr.Any {
	b := make([]byte, unix.IFNAMSIZ)
	copy(b, name)
	return []expr.Any{&expr.Meta{Key: key, Register: 1}, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: b}}
}

// tcpPort matches TCP with the port at offset (0 source, 2 destination).
func tcpPort(offset uint32, port uint16) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: offset, Len: 2},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.BigEndian.PutUint16(port)},
	}
}
