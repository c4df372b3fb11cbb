// Package experiment is the sequence of a run: the testnet brought up
// (testnet/live), the chain set up, each phase's load driven and
// observed, the experiment kinds' decisions, the chain's check, the
// record stored. Only cmd imports it.
//
// Where things go: a kind of experiment is one file here (steady.go,
// sweep.go, findmax.go, rotate.go) registered in kinds.go; a provider is a
// package under testnet/ listed in testnet/providers; a chain is a file
// in chain/ listed in chain.All.
package experiment
