package netem

import (
	"context"
	"fmt"
	"math"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/latency"
)

// An unknown zone is refused by name.
func TestPlanUnknownZone(t *testing.T) {
	tb, err := latency.ParseCSV("t.csv", []byte("From/to,a,b\na,0,5\nb,7,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PlanFor(tb, []string{"a", "c"}, 0.05, 0); err == nil || !strings.Contains(err.Error(), `unknown zone "c"`) {
		t.Errorf("unknown zone: %v", err)
	}
}

var rttRe = regexp.MustCompile(`= [\d.]+/([\d.]+)/`)

// TestNFQueueDelayAccuracy: between two namespaces, ping's RTT is twice
// the one-way delay within 5 % or 2 ms, for 10, 50 and 150 ms.
func TestNFQueueDelayAccuracy(t *testing.T) {
	ctx, nw := twoHosts(t)
	for _, ms := range []int{10, 50, 150} {
		d := time.Duration(ms) * time.Millisecond
		plan, _ := PlanFor(latency.Uniform(d, 2), []string{"node0", "node1"}, 0, 0)
		dm, err := StartNFQueue(ctx, nw, 2, plan)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("ip", "netns", "exec", nw.Namespace(0), "ping", "-c", "6", "-i", "0.2", "-q", nw.Address(1).String()).CombinedOutput()
		dm.Close()
		clearRules(t, nw)
		if err != nil {
			t.Fatalf("ping: %v\n%s", err, out)
		}
		m := rttRe.FindSubmatch(out)
		if m == nil {
			t.Fatalf("no rtt in %s", out)
		}
		rtt, _ := strconv.ParseFloat(string(m[1]), 64)
		want := 2 * float64(ms)
		t.Logf("one-way %d ms: ping rtt avg %.2f ms", ms, rtt)
		if math.Abs(rtt-want) > math.Max(0.05*want, 2) {
			t.Errorf("one-way %d ms: rtt %.2f ms; want %.0f +- max(5 %%, 2 ms)", ms, rtt, want)
		}
	}
}

// TestNFQueueBandwidth: at 1 Mbit/s a 1428-byte ping and its answer each
// take 11.4 ms on the wire: the RTT grows by 22.8 ms (within 5 % or 2 ms)
// over the same ping through the daemon with no cap. Both go through the
// daemon's timer (a 1 ms delay): with no delay at all a packet is passed
// at once, and the timer's own wake-up (about 1 ms a packet here) would
// count as serialization.
func TestNFQueueBandwidth(t *testing.T) {
	ctx, nw := twoHosts(t)
	rtt := func(bandwidth float64) float64 {
		plan, _ := PlanFor(latency.Uniform(time.Millisecond, 2), []string{"node0", "node1"}, 0, 0)
		plan.Bandwidth = bandwidth
		dm, err := StartNFQueue(ctx, nw, 2, plan)
		if err != nil {
			t.Fatal(err)
		}
		defer clearRules(t, nw)
		defer dm.Close()
		out, err := exec.Command("ip", "netns", "exec", nw.Namespace(0), "ping", "-c", "6", "-i", "0.2", "-s", "1400", "-q", nw.Address(1).String()).CombinedOutput()
		if err != nil {
			t.Fatalf("ping: %v\n%s", err, out)
		}
		m := rttRe.FindSubmatch(out)
		if m == nil {
			t.Fatalf("no rtt in %s", out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	base, capped := rtt(0), rtt(1e6)
	t.Logf("1428-byte ping through the daemon: rtt %.2f ms uncapped, %.2f ms at 1 Mbit/s", base, capped)
	if want, got := 2*1428*8/1e3, capped-base; math.Abs(got-want) > math.Max(0.05*want, 2) {
		t.Errorf("the cap added %.2f ms; want %.1f", got, want)
	}
}

// testHosts is a /24 of two or more namespaces on a bridge, named like
// the netns provider's (that provider uses this package, so its code is
// not used here).
type testHosts struct {
	tag    string
	subnet netip.Prefix
}

func (h testHosts) Namespace(i int) string { return fmt.Sprintf("%s-%d", h.tag, i) }
func (h testHosts) Gateway() netip.Addr    { return h.subnet.Addr().Next() }
func (h testHosts) Range() netip.Prefix    { return h.subnet }
func (h testHosts) Address(i int) netip.Addr {
	a := h.Gateway()
	for j := 0; j <= i; j++ {
		a = a.Next()
	}
	return a
}

// twoHosts makes two emulated hosts for the test (skipping it without
// root, ip, ping or iptables) and removes them when it ends.
func twoHosts(t *testing.T) (context.Context, testHosts) {
	t.Helper()
	if os.Geteuid() != 0 || testing.Short() {
		t.Skip("needs root for network namespaces")
	}
	for _, tool := range []string{"ip", "ping"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	if _, err := iptables(); err != nil {
		t.Skip(err)
	}
	id := time.Now().UnixNano() & 0xffffff
	nw := testHosts{tag: fmt.Sprintf("cq%06x", id), subnet: netip.MustParsePrefix(fmt.Sprintf("198.19.%d.0/24", 200+id%50))}
	ip := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() {
		for i := 0; i < 2; i++ {
			exec.Command("ip", "netns", "del", nw.Namespace(i)).Run()
			exec.Command("ip", "link", "del", nw.tag+fmt.Sprintf("-%dh", i)).Run()
		}
		exec.Command("ip", "link", "del", nw.tag).Run()
	})
	ip("link", "add", nw.tag, "type", "bridge")
	ip("addr", "add", nw.Gateway().String()+"/24", "dev", nw.tag)
	ip("link", "set", nw.tag, "up")
	for i := 0; i < 2; i++ {
		ns, host := nw.Namespace(i), fmt.Sprintf("%s-%dh", nw.tag, i)
		ip("netns", "add", ns)
		ip("-n", ns, "link", "set", "lo", "up")
		ip("link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns)
		ip("link", "set", host, "master", nw.tag)
		ip("link", "set", host, "up")
		ip("-n", ns, "addr", "add", nw.Address(i).String()+"/24", "dev", "eth0")
		ip("-n", ns, "link", "set", "eth0", "up")
		ip("-n", ns, "route", "add", "default", "via", nw.Gateway().String())
	}
	return context.Background(), nw
}

func clearRules(t *testing.T, nw testHosts) {
	ipt, _ := iptables()
	for i := 0; i < 2; i++ {
		exec.Command("ip", "netns", "exec", nw.Namespace(i), ipt, "-t", "mangle", "-F", "OUTPUT").Run()
	}
}

// The tc backend's commands for two nodes 10 ms apart with 5 % jitter, 1 %
// loss and 100 Mbit/s each: an htb root, the harness's class, the capped
// class, and a class, a netem qdisc and a filter a destination.
// (This kernel has no sch_netem, so the commands are checked, not run.)
func TestTCCommands(t *testing.T) {
	nw := testHosts{tag: "cp000001", subnet: netip.MustParsePrefix("198.18.5.0/24")}
	plan, _ := PlanFor(latency.Uniform(10*time.Millisecond, 2), []string{"node0", "node1"}, 0.05, 1)
	plan.Bandwidth = 100e6
	var got []string
	for _, c := range tcCommands(nw, 2, plan) {
		got = append(got, strings.Join(c, " "))
	}
	want := []string{
		"ip netns exec cp000001-0 tc qdisc add dev eth0 root handle 1: htb default ffff",
		"ip netns exec cp000001-0 tc class add dev eth0 parent 1: classid 1:ffff htb rate 10gbit",
		"ip netns exec cp000001-0 tc class add dev eth0 parent 1: classid 1:1 htb rate 100000000bit ceil 100000000bit",
		"ip netns exec cp000001-0 tc class add dev eth0 parent 1:1 classid 1:3 htb rate 1mbit ceil 100000000bit",
		"ip netns exec cp000001-0 tc qdisc add dev eth0 parent 1:3 handle b: netem delay 10.000ms 0.500ms distribution normal loss 1%",
		"ip netns exec cp000001-0 tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip dst 198.18.5.3/32 flowid 1:3",
	}
	if len(got) != 12 || strings.Join(got[:6], "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s", strings.Join(got, "\n"))
	}
}

// A node outside the WAN ("" zone) gets no delay to or from it.
func TestPlanNodeOutsideTheWAN(t *testing.T) {
	p, err := PlanFor(latency.Builtin(), []string{"tokyo", "london", ""}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Links[0][1].Delay == 0 || p.Links[0][2].Delay != 0 || p.Links[2][1].Delay != 0 {
		t.Errorf("links %+v", p.Links)
	}
}
