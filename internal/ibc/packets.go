package ibc

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/btcsuite/btcd/btcutil/bech32"
)

// An Event is one ABCI event of a block's txs or of the block itself, as
// CometBFT's RPC gives it (v0.38 and later: attributes as text).
type Event struct {
	Type       string `json:"type"`
	Attributes []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"attributes"`
}

func (e Event) attr(key string) string {
	for _, a := range e.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// A Fate is where a packet ended.
type Fate string

const (
	Acknowledged Fate = "acknowledged"            // received on B, its success acknowledged on A
	AckError     Fate = "acknowledged with error" // B wrote an error acknowledgement (A refunded the sender)
	TimedOut     Fate = "timed out"               // A took it back after its timeout (refunded)
	AckInFlight  Fate = "received, ack in flight" // on B, its acknowledgement not yet on A
	InFlight     Fate = "sent, not received"      // committed on A, not yet on B
	Unsent       Fate = "never sent"              // received on B or acknowledged on A, with no send on A this ledger saw
)

// A Packet is one packet of the channel, by its sequence: the heights
// and block times of what each chain did with it.
type Packet struct {
	Sequence              uint64
	Sent, Received, Acked time.Time // zero: not (yet)
	SentAt, RecvAt, AckAt int64     // heights
	TimedOutAt            int64
	Ack                   string // the acknowledgement B wrote (hex of its bytes)
	AckErr                string // its error, "" when it is a success
	Denom                 string // what it carries (ICS-20 packet data), as sent
	Amount                uint64
	Sender                string
}

// Fate says where p is.
func (p *Packet) Fate() Fate {
	switch {
	case p.SentAt == 0:
		return Unsent
	case p.TimedOutAt > 0:
		return TimedOut
	case p.AckAt > 0 && p.AckErr != "":
		return AckError
	case p.AckAt > 0:
		return Acknowledged
	case p.RecvAt > 0 || p.Ack != "":
		return AckInFlight // its acknowledgement (a success or B's refusal) not yet on A
	}
	return InFlight
}

// A Ledger follows the packets of one channel end to end: chain A's end
// (its source) and chain B's (its destination), from the events of each
// chain's blocks, given in any order.
type Ledger struct {
	Port       string
	SrcChannel string // on A
	DstChannel string // on B
	// From and To name A and B in what the ledger says: "A" and "B", the
	// run's chain and its counterparty; "B" and "A" for transfers back.
	From, To string
	packets  map[uint64]*Packet
}

// NewLedger follows port's packets from channel src on A to dst on B.
func NewLedger(port, src, dst string) *Ledger {
	return &Ledger{Port: port, SrcChannel: src, DstChannel: dst, From: "A", To: "B", packets: map[uint64]*Packet{}}
}

func (l *Ledger) packet(e Event) (*Packet, bool) {
	if e.attr("packet_src_port") != l.Port || e.attr("packet_src_channel") != l.SrcChannel || e.attr("packet_dst_channel") != l.DstChannel {
		return nil, false // another channel's, or the other direction's
	}
	seq, err := strconv.ParseUint(e.attr("packet_sequence"), 10, 64)
	if err != nil || seq == 0 {
		return nil, false
	}
	p := l.packets[seq]
	if p == nil {
		p = &Packet{Sequence: seq}
		l.packets[seq] = p
	}
	return p, true
}

// OnA reads a block of chain A: packets sent, acknowledged, timed out.
func (l *Ledger) OnA(height int64, at time.Time, events []Event) {
	for _, e := range events {
		switch e.Type {
		case "send_packet", "acknowledge_packet", "timeout_packet", "timeout_on_close_packet":
		default:
			continue
		}
		p, ok := l.packet(e)
		if !ok {
			continue
		}
		switch e.Type {
		case "send_packet":
			p.SentAt, p.Sent = height, at
			p.Denom, p.Amount, p.Sender = packetData(e.attr("packet_data_hex"))
		case "acknowledge_packet":
			p.AckAt, p.Acked = height, at
		default:
			p.TimedOutAt = height
		}
	}
}

// OnB reads a block of chain B: packets received and the
// acknowledgements written for them.
func (l *Ledger) OnB(height int64, at time.Time, events []Event) {
	for _, e := range events {
		if e.Type != "recv_packet" && e.Type != "write_acknowledgement" {
			continue
		}
		p, ok := l.packet(e)
		if !ok {
			continue
		}
		if e.Type == "recv_packet" {
			p.RecvAt, p.Received = height, at
			continue
		}
		p.Ack = e.attr("packet_ack_hex")
		p.AckErr = ackError(p.Ack)
	}
}

// packetData reads an ICS-20 packet's denom, amount and sender from its
// data (JSON, in hex); zero when it is not that.
func packetData(hexData string) (string, uint64, string) {
	b, err := hex.DecodeString(hexData)
	if err != nil {
		return "", 0, ""
	}
	var d struct {
		Denom  string `json:"denom"`
		Amount string `json:"amount"`
		Sender string `json:"sender"`
	}
	if json.Unmarshal(b, &d) != nil {
		return "", 0, ""
	}
	n, err := strconv.ParseUint(d.Amount, 10, 64)
	if err != nil {
		return "", 0, ""
	}
	return d.Denom, n, d.Sender
}

// ackError is an ICS-20 acknowledgement's error ("" for a success): the
// acknowledgement is JSON, {"result":"AQ=="} or {"error":"..."}, in hex.
func ackError(hexAck string) string {
	b, err := hex.DecodeString(hexAck)
	if err != nil {
		return "an acknowledgement that is not hex"
	}
	s := string(b)
	switch {
	case strings.HasPrefix(s, `{"result":`):
		return ""
	case strings.HasPrefix(s, `{"error":`):
		return cutText(strings.TrimSuffix(strings.TrimPrefix(s, `{"error":`), "}"), 300)
	}
	return "an acknowledgement that is neither a result nor an error: " + cutText(s, 100)
}

// Packets are the ledger's packets by sequence.
func (l *Ledger) Packets() []*Packet {
	out := make([]*Packet, 0, len(l.packets))
	for _, p := range l.packets {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Packet) int { return cmp.Compare(a.Sequence, b.Sequence) })
	return out
}

// Count is how many packets ended each way.
func (l *Ledger) Count() map[Fate]int {
	out := map[Fate]int{}
	for _, p := range l.packets {
		out[p.Fate()]++
	}
	return out
}

// Latencies are each relayed packet's time from its commit on A to its
// receipt on B, and to its acknowledgement's commit on A.
func (l *Ledger) Latencies() (recv, ack []time.Duration) {
	for _, p := range l.Packets() {
		if p.SentAt > 0 && p.RecvAt > 0 {
			recv = append(recv, p.Received.Sub(p.Sent))
		}
		if p.SentAt > 0 && p.AckAt > 0 && p.AckErr == "" {
			ack = append(ack, p.Acked.Sub(p.Sent))
		}
	}
	return recv, ack
}

// Unsettled counts the packets of denom whose escrow on A and voucher on
// B are out of step for now, and what they carry: sent and not yet
// received, or refused by B and not yet refunded on A.
func (l *Ledger) Unsettled(denom string) (n int, amount uint64) {
	for _, p := range l.packets {
		if p.Denom == denom && p.TimedOutAt == 0 && p.SentAt > 0 && (p.RecvAt == 0 || p.AckErr != "" && p.AckAt == 0) {
			n++
			amount += p.Amount
		}
	}
	return n, amount
}

// CaughtUp is how long after at (a relayer's pause ending) every packet
// committed on A before it was received on B; false while one is not.
func (l *Ledger) CaughtUp(at time.Time) (time.Duration, bool) {
	var last time.Time
	for _, p := range l.packets {
		if p.SentAt == 0 || !p.Sent.Before(at) || p.TimedOutAt > 0 {
			continue
		}
		if p.RecvAt == 0 {
			return 0, false
		}
		if p.Received.After(last) {
			last = p.Received
		}
	}
	return max(0, last.Sub(at)), true
}

// Refunds is what A gave back of denom to each sender: the packets B
// refused, once their acknowledgement is on A, and those timed out.
func (l *Ledger) Refunds(denom string) map[string]uint64 {
	out := map[string]uint64{}
	for _, p := range l.packets {
		if p.Denom == denom && p.SentAt > 0 && (p.TimedOutAt > 0 || p.AckErr != "" && p.AckAt > 0) {
			out[p.Sender] += p.Amount
		}
	}
	return out
}

// Problems are what makes the ledger's verdict fail: error
// acknowledgements, and packets received or acknowledged that were never
// sent.
func (l *Ledger) Problems() []string {
	var out []string
	more := 0
	for _, p := range l.Packets() {
		line := ""
		switch p.Fate() {
		case AckError, AckInFlight:
			if p.AckErr == "" {
				continue
			}
			line = fmt.Sprintf("packet %d acknowledged with an error by %s: %s", p.Sequence, l.To, p.AckErr)
		case Unsent:
			line = fmt.Sprintf("packet %d received on %s (height %d) or acknowledged on %s (height %d), never sent on %[4]s", p.Sequence, l.To, p.RecvAt, l.From, p.AckAt)
		default:
			continue
		}
		if len(out) == maxProblems {
			more++
			continue
		}
		out = append(out, line)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%d more packets like these", more))
	}
	return out
}

// maxProblems bounds the packets Problems names one by one.
const maxProblems = 5

// EscrowAddress is the address of the account that holds what port's
// channel sends out (ibc-go's GetEscrowAddress: SHA-256 of "ics20-1", a
// zero byte and "port/channel", its first 20 bytes).
func EscrowAddress(port, channel string) []byte {
	sum := sha256.Sum256(append([]byte("ics20-1\x00"), port+"/"+channel...))
	return sum[:20]
}

// EscrowAccount is EscrowAddress as an account of a chain of prefix.
func EscrowAccount(prefix, port, channel string) (string, error) {
	conv, err := bech32.ConvertBits(EscrowAddress(port, channel), 8, 5, true)
	if err != nil {
		return "", err
	}
	return bech32.Encode(prefix, conv)
}

// VoucherDenom is the denom B mints for base arriving on its end of the
// channel (port, channel: B's).
func VoucherDenom(port, channel, base string) string {
	return fmt.Sprintf("ibc/%X", sha256.Sum256([]byte(port+"/"+channel+"/"+base)))
}

// Conserved checks ICS-20's conservation across the two chains: what A's
// escrow holds of a denom is what B has minted of its voucher plus what
// the unsettled packets carry (Ledger.Unsettled: escrowed on A and not yet
// minted on B, or refused by B and not yet refunded).
func Conserved(escrowed, minted, unsettled uint64) error {
	return ConservedBetween("A", "B", escrowed, minted, unsettled)
}

// ConservedBetween is Conserved with the chains named (from: the escrow's).
func ConservedBetween(from, to string, escrowed, minted, unsettled uint64) error {
	if escrowed == minted+unsettled {
		return nil
	}
	return fmt.Errorf("not conserved: escrowed %d on %s, %d vouchers minted on %s and %d in packets not yet settled (%+d)",
		escrowed, from, minted, to, unsettled, int64(minted+unsettled)-int64(escrowed))
}
