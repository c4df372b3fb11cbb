package cosmos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chainperf/chainperf/internal/msgtemplate"
	"github.com/chainperf/chainperf/internal/scenario"
)

// MaxLearnBlocks bounds how many blocks one learning reads.
const MaxLearnBlocks = 10_000

// A Learned workload is what blocks From..To of a network hold: every
// message type, its count and one real message of it as a template.
type Learned struct {
	RPC      string
	ChainID  string
	From, To int64
	Txs      int
	Msgs     int
	Types    []LearnedType // most messages first
	Skipped  int           // messages the chain's descriptors could not read
	Example  string        // why the first of those was skipped
}

// A LearnedType is one message type of a learned workload.
type LearnedType struct {
	URL      string
	Name     string // the mix entry's name: "bank-send"
	Count    int
	Template string
}

// Learn reads blocks from..to of the node at rpc (to 0: its latest; from
// 0: blocks before to) and decodes their txs' messages with the chain's
// descriptors.
func Learn(ctx context.Context, c *http.Client, rpc string, from, to int64, blocks int, desc *msgtemplate.Descriptors) (*Learned, error) {
	tip, err := chainHeight(ctx, c, rpc)
	if err != nil {
		return nil, err
	}
	if to <= 0 || to > tip {
		to = tip
	}
	if from <= 0 {
		from = max(1, to-int64(blocks)+1)
	}
	if from > to || to-from >= MaxLearnBlocks {
		return nil, fmt.Errorf("blocks %d to %d: from 1 to %d blocks, up to the node's latest (%d)", from, to, MaxLearnBlocks, tip)
	}
	l := &Learned{RPC: rpc, From: from, To: to}
	chain, err := ReadChain(ctx, c, rpc)
	if err == nil {
		l.ChainID = chain.ID
	}
	byURL := map[string]*LearnedType{}
	isAccount := func(string) bool { return false }
	for h := from; h <= to; h++ {
		txs, err := blockTxs(ctx, c, rpc, h)
		if err != nil {
			return nil, err
		}
		for _, tx := range txs {
			msgs, err := txMessages(tx)
			if err != nil {
				continue // not a Cosmos tx (or not one this reads): not the workload's
			}
			l.Txs++
			for _, m := range msgs {
				l.add(m, desc, byURL, &isAccount)
			}
		}
	}
	for _, t := range byURL {
		l.Types = append(l.Types, *t)
	}
	slices.SortFunc(l.Types, func(a, b LearnedType) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.URL, b.URL)
	})
	names := map[string]bool{}
	for i := range l.Types {
		l.Types[i].Name = entryName(l.Types[i].URL, names)
	}
	if l.Msgs == 0 {
		return nil, fmt.Errorf("blocks %d to %d of %s hold no Cosmos SDK tx to learn from", from, to, rpc)
	}
	return l, nil
}

// add counts message m, making its type's template from it when it is
// the type's first (and, from its signer, the test for an account's
// address when there was none).
func (l *Learned) add(m Any, desc *msgtemplate.Descriptors, byURL map[string]*LearnedType, isAccount *func(string) bool) {
	l.Msgs++
	if t := byURL[m.URL]; t != nil {
		t.Count++
		return
	}
	if signer, err := desc.SignerValue(m.URL, m.Value); err == nil {
		if like := accountsLike(signer); like != nil {
			*isAccount = like
		}
	}
	tmpl, err := desc.FromMessage(m.URL, m.Value, *isAccount)
	if err != nil {
		l.Skipped++
		if l.Example == "" {
			l.Example = err.Error()
		}
		return
	}
	byURL[m.URL] = &LearnedType{URL: m.URL, Template: tmpl, Count: 1}
}

// accountsLike is a test for "an account address of this chain": the
// prefix and length of signer, an account's address (bech32 of 20
// bytes). A contract's address (32 bytes) is not one: it stays as it is.
func accountsLike(signer string) func(string) bool {
	i := strings.LastIndex(signer, "1")
	if i < 1 {
		return nil
	}
	prefix, n := signer[:i+1], len(signer)
	return func(s string) bool { return len(s) == n && strings.HasPrefix(s, prefix) }
}

// txMessages reads a TxRaw's body's messages (type URL and bytes).
func txMessages(tx []byte) ([]Any, error) {
	var body []byte
	if err := Fields(tx, func(num protowire.Number, _ uint64, b []byte) {
		if num == 1 {
			body = b
		}
	}); err != nil || body == nil {
		return nil, fmt.Errorf("not a TxRaw")
	}
	var msgs []Any
	err := Fields(body, func(num protowire.Number, _ uint64, b []byte) {
		if num != 1 {
			return
		}
		var m Any
		_ = Fields(b, func(num protowire.Number, _ uint64, v []byte) {
			switch num {
			case 1:
				m.URL = string(v)
			case 2:
				m.Value = v
			}
		})
		msgs = append(msgs, m)
	})
	if err != nil || len(msgs) == 0 || !strings.HasPrefix(msgs[0].URL, "/") {
		return nil, fmt.Errorf("not a tx body")
	}
	return msgs, nil
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// entryName is a mix entry's name for a type URL, unique among taken:
// "/cosmos.bank.v1beta1.MsgSend" is "bank-send".
func entryName(url string, taken map[string]bool) string {
	full := strings.TrimPrefix(url, "/")
	parts := strings.Split(full, ".")
	msg := strings.TrimPrefix(parts[len(parts)-1], "Msg")
	module := ""
	for i := len(parts) - 2; i >= 0; i-- {
		if p := parts[i]; !(len(p) > 1 && p[0] == 'v' && unicode.IsDigit(rune(p[1]))) {
			module = p
			break
		}
	}
	var b strings.Builder
	for i, r := range msg {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	name := strings.Trim(nonName.ReplaceAllString(strings.ToLower(module)+"-"+b.String(), "-"), "-")
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		name = "msg-" + name
	}
	name = strings.TrimRight(name[:min(len(name), 28)], "-")
	out := name
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s-%d", name, i)
	}
	taken[out] = true
	return out
}

// WriteTOML writes the learned workload as a scenario's [workload]: a
// cosmos-mix of one templated entry a type, weighed by its count.
func (l *Learned) WriteTOML(w io.Writer) error {
	fmt.Fprintf(w, "# Learned by `chainperf workload learn` from blocks %d to %d of %s", l.From, l.To, l.RPC)
	if l.ChainID != "" {
		fmt.Fprintf(w, " (chain %s)", l.ChainID)
	}
	fmt.Fprintf(w, ":\n# %d txs, %d messages of %d types. Each template is one real message of its type,\n", l.Txs, l.Msgs, len(l.Types))
	fmt.Fprintf(w, "# its signer as {wallet}, other accounts as {other}, denoms as {denom}; each\n# weight is the type's count.")
	if l.Skipped > 0 {
		fmt.Fprintf(w, " %d messages the chain's descriptors could not read were left\n# out (%s).", l.Skipped, strings.ReplaceAll(l.Example, "\n", " "))
	}
	fmt.Fprintf(w, "\n[workload]\nkind = \"cosmos-mix\"\ngas_limit = 0\n")
	for _, t := range l.Types {
		fmt.Fprintf(w, "\n# %s: %d of %d messages (%.1f %%)\n[[workload.mix]]\nmsg = %q\nweight = %d\ntemplate = %s\n",
			t.URL, t.Count, l.Msgs, 100*float64(t.Count)/float64(l.Msgs), t.Name, t.Count, scenario.Quote(t.Template))
	}
	return nil
}
