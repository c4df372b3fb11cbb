package testnet

import "log/slog"

// ProviderOptions are what every provider is made with.
type ProviderOptions struct {
	Exe    string // the chainperf binary, re-executed as `chainperf node` for embedded nodes
	Detach bool   // nodes outlive the harness
	Log    *slog.Logger
	// DryRun: a provider that can (kubernetes) has every object it would
	// make checked by the cluster's API server without keeping it, and
	// starts nothing.
	DryRun bool
}
