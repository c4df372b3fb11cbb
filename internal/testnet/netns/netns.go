// Package netns is the provider that makes a testnet's nodes emulated hosts: one network
// namespace per node, each with its own address on a bridge in the root
// namespace (a veth pair per node), so that the harness still reaches
// every node's RPC, metrics and pprof, and faults can cut a node's link or
// split the network. Every name carries the testnet's ID ("cp3f9a1c" for
// tn-3f9a1c): two testnets, or a leftover and a live one, are never
// confused.
//
// It drives iproute2's `ip`: the nodes must be exec'ed inside their
// namespace (`ip netns exec` does setns then exec, which a multi-threaded
// Go process cannot do for itself), and the same tool then sets up links,
// addresses and routes.
package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"

	"github.com/chainperf/chainperf/internal/testnet"
)

// DefaultRange is where testnets take their subnets: 198.18.0.0/15, set
// aside for benchmarking (RFC 2544).
const DefaultRange = "198.18.0.0/15"

// CheckRoot says what is missing when this process cannot make namespaces.
func CheckRoot() error {
	if os.Geteuid() != 0 {
		return errors.New(`the netns provider makes network namespaces and links, which needs root: run chainperf as root, or use [testnet] provider = "process"`)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New(`the netns provider needs iproute2's "ip" command (apt-get install iproute2)`)
	}
	return nil
}

// Pick returns a free /24 of rng for testnet id: the first, from a place
// derived from the ID, that no interface of the root namespace has an
// address in.
func Pick(id, rng string) (testnet.Network, error) {
	r, err := netip.ParsePrefix(rng)
	if err != nil || !r.Addr().Is4() || r.Bits() > 24 {
		return testnet.Network{}, fmt.Errorf("address range %q: give an IPv4 prefix of /24 or wider, e.g. %s", rng, DefaultRange)
	}
	r = r.Masked()
	used, err := usedSubnets()
	if err != nil {
		return testnet.Network{}, err
	}
	count := 1 << (24 - r.Bits())
	var h uint32
	for _, c := range id {
		h = h*31 + uint32(c)
	}
	base := r.Addr().As4()
	start := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8
	for k := 0; k < count; k++ {
		i := (int(h) + k) % count
		v := start + uint32(i)<<8
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), 0}), 24)
		if !used[p] {
			return testnet.Network{Tag: testnet.NetworkTag(id), Subnet: p}, nil
		}
	}
	return testnet.Network{}, fmt.Errorf("every /24 of %s is in use: remove old testnets (`chainperf clean`) or give another range", rng)
}

func usedSubnets() (map[netip.Prefix]bool, error) {
	out, err := ip(context.Background(), "-o", "-4", "addr", "show")
	if err != nil {
		return nil, err
	}
	used := map[netip.Prefix]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "inet" {
				if p, err := netip.ParsePrefix(f[i+1]); err == nil {
					q, _ := p.Addr().Prefix(24)
					used[q] = true
				}
			}
		}
	}
	return used, nil
}

// Create makes the bridge and, for each of count nodes, a namespace with
// loopback up and a veth pair: eth0 inside with the node's address and a
// default route via the bridge, the other end on the bridge. On error it
// removes what it made.
func Create(ctx context.Context, n testnet.Network, count int) (err error) {
	defer func() {
		if err != nil {
			_ = Remove(context.WithoutCancel(ctx), n.Tag)
		}
	}()
	gw := netip.PrefixFrom(n.Gateway(), n.Subnet.Bits()).String()
	if err := run(ctx,
		[]string{"link", "add", n.Tag, "type", "bridge"},
		[]string{"addr", "add", gw, "dev", n.Tag},
		[]string{"link", "set", n.Tag, "up"},
	); err != nil {
		return err
	}
	for i := 0; i < count; i++ {
		ns, host := n.Namespace(i), n.HostLink(i)
		addr := netip.PrefixFrom(n.Address(i), n.Subnet.Bits()).String()
		if err := run(ctx,
			[]string{"netns", "add", ns},
			[]string{"-n", ns, "link", "set", "lo", "up"},
			[]string{"link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns},
			[]string{"link", "set", host, "master", n.Tag},
			[]string{"link", "set", host, "up"},
			[]string{"-n", ns, "addr", "add", addr, "dev", "eth0"},
			[]string{"-n", ns, "link", "set", "eth0", "up"},
			[]string{"-n", ns, "route", "add", "default", "via", n.Gateway().String()},
		); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	return nil
}

// Remove deletes every namespace and the bridge tagged tag (a namespace's
// veth pair goes with it). What is already gone is not an error.
func Remove(ctx context.Context, tag string) error {
	nss, err := Namespaces(ctx, tag)
	if err != nil {
		return err
	}
	var errs []error
	for _, ns := range nss {
		if _, err := ip(ctx, "netns", "del", ns); err != nil {
			errs = append(errs, err)
		}
	}
	// A namespace's veth pair goes with it, but the kernel frees it
	// later: delete the root-namespace ends and the bridge now.
	out, err := ip(ctx, "-o", "link", "show")
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name := strings.Split(strings.TrimSuffix(f[1], ":"), "@")[0]
		if name == tag || strings.HasPrefix(name, tag+"-") {
			if _, err := ip(ctx, "link", "del", name); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Namespaces lists the namespaces tagged tag ("" lists every chainperf
// namespace: names "cp" + 6 hex digits + "-N").
func Namespaces(ctx context.Context, tag string) ([]string, error) {
	out, err := ip(ctx, "netns", "list")
	if err != nil {
		return nil, err
	}
	var nss []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		name := f[0]
		t, _, ok := strings.Cut(name, "-")
		if ok && (t == tag || tag == "" && len(t) == 8 && strings.HasPrefix(t, "cp")) {
			nss = append(nss, name)
		}
	}
	return nss, nil
}

// Busy says whether a process runs in any namespace tagged tag.
func Busy(ctx context.Context, tag string) bool {
	nss, _ := Namespaces(ctx, tag)
	for _, ns := range nss {
		if out, err := ip(ctx, "netns", "pids", ns); err != nil || strings.TrimSpace(out) != "" {
			return true
		}
	}
	return false
}

// SetLink cuts (up false) or restores node i's link to the bridge.
func SetLink(ctx context.Context, n testnet.Network, i int, up bool) error {
	state := "down"
	if up {
		state = "up"
	}
	return run(ctx, []string{"link", "set", n.HostLink(i), state})
}

// Split makes the nodes of each group unreachable from every other group
// (blackhole routes in each namespace to the other groups' addresses);
// heal removes them. The harness, on the bridge, still reaches everyone.
func Split(ctx context.Context, n testnet.Network, groups [][]int, heal bool) error {
	op := "add"
	if heal {
		op = "del"
	}
	var errs []error
	for gi, g := range groups {
		for _, i := range g {
			for gj, other := range groups {
				if gi == gj {
					continue
				}
				for _, j := range other {
					if err := run(ctx, []string{"-n", n.Namespace(i), "route", op, "blackhole", n.Address(j).String() + "/32"}); err != nil {
						errs = append(errs, err)
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

func run(ctx context.Context, cmds ...[]string) error {
	for _, c := range cmds {
		if _, err := ip(ctx, c...); err != nil {
			return err
		}
	}
	return nil
}

func ip(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "ip", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ip %s: %s", strings.Join(args, " "), strings.TrimSpace(stderr.String()+" "+err.Error()))
	}
	return string(out), nil
}
