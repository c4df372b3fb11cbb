package netem

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chainperf/chainperf/internal/selfcost"
	nfqueue "github.com/florianl/go-nfqueue/v2"
	"github.com/mdlayher/netlink"
)

// A Daemon delays the packets between emulated hosts in user space: in
// each node's namespace an iptables rule sends the packets addressed to
// other nodes to NFQUEUE, and the daemon (a netlink socket per namespace,
// in chainperf) gives each its verdict after the link's delay (with
// jitter), or drops it for loss. One-way delays are applied at the sender,
// so a ping between two nodes takes both directions' delays. Traffic to
// and from the harness (the bridge address) is not delayed. When no daemon
// listens (it ended with its harness), packets pass undelayed rather than
// being dropped (--queue-bypass).
type Daemon struct {
	plan   atomic.Pointer[Plan]
	cancel context.CancelFunc
	queues []*nfqueue.Nfqueue
}

// The queue number used in every namespace (queues are per namespace).
const queueNum = 7

// iptables returns the legacy iptables binary when there is one: the
// nft-based one may lack the NFQUEUE target on a kernel like this one.
func iptables() (string, error) {
	for _, name := range []string{"iptables-legacy", "iptables"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New(`the nfqueue delay backend needs iptables (apt-get install iptables)`)
}

// StartNFQueue starts the daemon for the n nodes of nw with plan.
func StartNFQueue(ctx context.Context, nw Hosts, n int, plan *Plan) (_ *Daemon, err error) {
	ipt, err := iptables()
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d := &Daemon{cancel: cancel}
	d.plan.Store(plan)
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	addrs := map[netip.Addr]int{}
	for j := 0; j < n; j++ {
		addrs[nw.Address(j)] = j
	}
	for i := 0; i < n; i++ {
		ns := nw.Namespace(i)
		for _, rule := range [][]string{
			{"-t", "mangle", "-A", "OUTPUT", "-d", nw.Gateway().String(), "-j", "RETURN"},
			{"-t", "mangle", "-A", "OUTPUT", "-d", nw.Range().String(), "-j", "NFQUEUE", "--queue-num", fmt.Sprint(queueNum), "--queue-bypass"},
		} {
			cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, ipt}, rule...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("iptables in %s: %v: %s", ns, err, strings.TrimSpace(string(out)))
			}
		}
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			return nil, err
		}
		nf, err := OpenQueue(int(f.Fd()))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("nfqueue in %s: %w", ns, err)
		}
		d.queues = append(d.queues, nf)
		from := i
		linkOf := func(_, dst netip.Addr) Link {
			if j, ok := addrs[dst]; ok {
				return d.plan.Load().Links[from][j]
			}
			return Link{}
		}
		// The daemon's goroutines (and its timers', below) count as
		// netem in the harness's own cost.
		selfcost.Do(dctx, selfcost.Netem, func(lctx context.Context) {
			err = Serve(lctx, nf, linkOf, func() float64 { return d.plan.Load().Bandwidth })
		})
		if err != nil {
			return nil, fmt.Errorf("nfqueue in %s: %w", ns, err)
		}
	}
	return d, nil
}

// QueueNum is the NFQUEUE number the delay rules send packets to (queues
// are per network namespace).
const QueueNum = queueNum

// OpenQueue opens the delay queue of the network namespace whose handle
// is netns (0: this process's own).
func OpenQueue(netns int) (*nfqueue.Nfqueue, error) {
	nf, err := nfqueue.Open(&nfqueue.Config{
		NetNS: netns, NfQueue: queueNum, MaxQueueLen: 1 << 16,
		// The IPv4 header is all the daemon reads.
		Copymode: nfqueue.NfQnlCopyPacket, MaxPacketLen: 20, WriteTimeout: time.Second,
	})
	if err != nil {
		return nil, err
	}
	_ = nf.SetOption(netlink.NoENOBUFS, true)
	return nf, nil
}

// Serve gives each packet of queue nf its verdict after the delay (with
// jitter) of its link, linkOf(source, destination), or drops it for the
// link's loss; bandwidth() (bits/s, 0: none) caps what passes the queue.
// It returns once the queue is served, until ctx ends.
func Serve(ctx context.Context, nf *nfqueue.Nfqueue, linkOf func(src, dst netip.Addr) Link, bandwidth func() float64) error {
	var free time.Time // when the link is free again (bandwidth cap); the hook runs on one goroutine
	hook := func(a nfqueue.Attribute) int {
		if a.PacketID == nil {
			return 0
		}
		id := *a.PacketID
		link := Link{}
		if a.Payload != nil && len(*a.Payload) >= 20 {
			link = linkOf(netip.AddrFrom4([4]byte((*a.Payload)[12:16])), netip.AddrFrom4([4]byte((*a.Payload)[16:20])))
		}
		if link.Loss > 0 && rand.Float64() < link.Loss {
			verdict(nf, id, nfqueue.NfDrop)
			return 0
		}
		delay := link.Delay
		if link.Jitter > 0 {
			delay += time.Duration(rand.NormFloat64() * float64(link.Jitter))
		}
		// A capped link sends one packet after the other: each waits
		// for those before it, then takes size/bandwidth.
		if bw := bandwidth(); bw > 0 && a.Payload != nil && len(*a.Payload) >= 4 {
			size := float64(binary.BigEndian.Uint16((*a.Payload)[2:4]))
			now := time.Now()
			free = maxTime(free, now).Add(time.Duration(size * 8 / bw * float64(time.Second)))
			delay += free.Sub(now)
		}
		if delay <= 0 {
			verdict(nf, id, nfqueue.NfAccept)
			return 0
		}
		time.AfterFunc(delay, func() {
			pprof.SetGoroutineLabels(ctx) // a timer's goroutine starts without the daemon's labels
			verdict(nf, id, nfqueue.NfAccept)
		})
		return 0
	}
	return nf.RegisterWithErrorFunc(ctx, hook, func(error) int { return 0 })
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// verdict tells the kernel what to do with packet id. An error means the
// packet is gone (its namespace or the daemon closed): nothing to do.
func verdict(nf *nfqueue.Nfqueue, id uint32, v int) {
	_ = nf.SetVerdict(id, v)
}

// SetPlan changes the delays from now on (a latency perturbation).
func (d *Daemon) SetPlan(p *Plan) { d.plan.Store(p) }

// Plan returns the plan in force.
func (d *Daemon) Plan() *Plan { return d.plan.Load() }

// Close stops the daemon. Packets still held are released by the kernel
// when their namespace goes; the rules go with it too.
func (d *Daemon) Close() {
	d.cancel()
	for _, q := range d.queues {
		_ = q.Close()
	}
}
