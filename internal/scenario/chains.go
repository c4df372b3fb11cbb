package scenario

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// A ChainSection is a chain's part of the scenario: its [testnet.<Name>]
// table, decoded on top of its defaults and checked as strictly as the
// scenario's own tables (file:line, did-you-mean), and the workload kinds
// it runs. Each chain package registers its own (RegisterChain, from its
// init); the scenario knows no chain by name.
type ChainSection struct {
	// Name is testnet.chain's value and the table's name ("cosmos").
	Name string
	// Is says what the chain is in messages ("a Cosmos SDK chain").
	Is string
	// Defaults is the table's defaults: a TOML fragment whose first table
	// is [testnet.<Name>], part of the built-in default scenario
	// (DefaultText), comments and all.
	Defaults []byte
	// New returns a pointer to a zero section: a struct with toml tags.
	New func() any
	// WorkloadKeys are the [workload] keys only its kinds take
	// ("read_rate"): set for another kind, they are refused.
	WorkloadKeys []string
	// Mode is workload.mode's default on this chain ("": default.toml's).
	Mode string
	// Workloads are the workload kinds the chain runs; the first two are
	// named when a kvstore kind is set on this chain.
	Workloads []string
	// Check checks the section when the testnet runs this chain;
	// CheckWorkload checks [workload] when its kind is one of Workloads
	// (and the testnet runs this chain).
	Check         func(s *Scenario, c *Checker)
	CheckWorkload func(s *Scenario, c *Checker)
	// Describe says what one tx of a workload of its kinds is, for the
	// plan a run prints ("cosmos-send (pregenerate) from 1000 wallets").
	Describe func(s *Scenario) string
	// App says where the chain's application comes from; nil: the chain
	// runs chainperf's own node (testnet.binary or testnet.build).
	App func(section any) AppRef
}

var chains struct {
	sync.RWMutex
	of map[string]ChainSection
}

// RegisterChain adds a chain's section. A second chain of one name, a
// section that is not a pointer to a struct or defaults whose first table
// is not the chain's are programming errors: it panics.
func RegisterChain(c ChainSection) {
	chains.Lock()
	defer chains.Unlock()
	if chains.of == nil {
		chains.of = map[string]ChainSection{}
	}
	if _, dup := chains.of[c.Name]; dup || c.Name == Kvstore || c.Name == "" {
		panic(fmt.Sprintf("scenario: chain %q registered twice", c.Name))
	}
	if t := reflect.TypeOf(c.New()); t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("scenario: chain %q: New gives %s, not a pointer to a struct", c.Name, t))
	}
	if firstTable(c.Defaults) != "[testnet."+c.Name+"]" {
		panic(fmt.Sprintf("scenario: chain %q: its defaults' first table is not [testnet.%s]", c.Name, c.Name))
	}
	chains.of[c.Name] = c
}

// firstTable is the first table header of a TOML text ("" if none).
func firstTable(text []byte) string {
	for _, l := range bytes.Split(text, []byte("\n")) {
		if l = bytes.TrimSpace(l); bytes.HasPrefix(l, []byte("[")) {
			return string(l)
		}
	}
	return ""
}

// Kvstore is the chain of chainperf's own node: CometBFT's kvstore app.
const Kvstore = "kvstore"

// registered lists the chains' sections by name.
func registered() []ChainSection {
	chains.RLock()
	defer chains.RUnlock()
	out := make([]ChainSection, 0, len(chains.of))
	for _, c := range chains.of {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b ChainSection) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// chainNamed is the section of chain name, false for kvstore or an
// unknown chain.
func chainNamed(name string) (ChainSection, bool) {
	chains.RLock()
	defer chains.RUnlock()
	c, ok := chains.of[name]
	return c, ok
}

// Chains lists the chains a scenario may name: kvstore, then the
// registered ones by name.
func Chains() []string {
	out := []string{Kvstore}
	for _, c := range registered() {
		out = append(out, c.Name)
	}
	return out
}

// WorkloadKinds lists every workload kind: the kvstore kinds, then each
// chain's.
func WorkloadKinds() []string {
	out := slices.Clone(KvstoreKinds)
	for _, c := range registered() {
		out = append(out, c.Workloads...)
	}
	return out
}

// ChainOfWorkload names the chain that runs workload kind k ("" for the
// kvstore kinds).
func ChainOfWorkload(k string) string {
	c, _ := chainOfWorkload(k)
	return c.Name
}

// chainOfWorkload is the chain that runs workload kind k, false for the
// kvstore kinds.
func chainOfWorkload(k string) (ChainSection, bool) {
	for _, c := range registered() {
		if slices.Contains(c.Workloads, k) {
			return c, true
		}
	}
	return ChainSection{}, false
}

// DescribeWorkload is what the chain that runs s's workload says one of
// its txs is; "" for a kvstore kind.
func (s *Scenario) DescribeWorkload() string {
	if c, ok := chainOfWorkload(s.Workload.Kind); ok && c.Describe != nil {
		return c.Describe(s)
	}
	return ""
}

// Section is testnet's decoded [testnet.<name>] table (a pointer to the
// chain's section type), nil when no chain of that name is registered.
// The scenario's copies share it: change it through SetSection.
func (t Testnet) Section(name string) any { return t.sections[name] }

// SectionOf is a copy of testnet t's chain table name, of type T (zero
// when t was not decoded from a scenario); set it with SetSection.
func SectionOf[T any](t Testnet, name string) T {
	if c, ok := t.sections[name].(*T); ok && c != nil {
		return *c
	}
	var zero T
	return zero
}

// own gives t a copy of chain name's section of its own (copies of t
// share theirs until then) and returns it.
func (t *Testnet) own(name string) any {
	c, ok := chainNamed(name)
	if !ok {
		return nil
	}
	v := reflect.ValueOf(c.New())
	if old := reflect.ValueOf(t.sections[name]); old.IsValid() && !old.IsNil() {
		v.Elem().Set(old.Elem())
	}
	t.SetSection(name, v.Interface())
	return v.Interface()
}

// SetSection sets chain name's section to v, a pointer to the chain's
// section type, on t alone (copies of t keep theirs).
func (t *Testnet) SetSection(name string, v any) {
	m := make(map[string]any, len(t.sections)+1)
	for k, s := range t.sections {
		m[k] = s
	}
	m[name] = v
	t.sections = m
}

// freshSections returns a zero section of every registered chain.
func freshSections() map[string]any {
	m := map[string]any{}
	for _, c := range registered() {
		m[c.Name] = c.New()
	}
	return m
}

// chainMarker is the line of default.toml where the chains' defaults go.
var chainMarker = []byte("# @chains: each chain's [testnet.<chain>] defaults go here.\n")

// DefaultText is the built-in default scenario: default.toml with each
// registered chain's defaults in the place marked for them.
func DefaultText() []byte {
	var chainParts []byte
	for _, c := range registered() {
		chainParts = append(chainParts, c.Defaults...)
	}
	return bytes.Replace(Default, chainMarker, chainParts, 1)
}
