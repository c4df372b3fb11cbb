package main

import (
	"fmt"
	"strings"

	"github.com/chainperf/chainperf/internal/experiment"
	"github.com/chainperf/chainperf/internal/scenario"
)

// An edit is a change the command line makes to a scenario: how an error
// names it ("--binary", "with rate=300"; "" names none) and the change
// (nil: the flag was not given).
type edit struct {
	name  string
	apply func(*scenario.Scenario) error
}

// resolveScenario reads the scenario at file ("" the default), makes the
// edits in order and checks the result once, as the command will use it:
// the scenario's own checks (what the file set, at its file:line; what an
// edit set, in the edit's words) and the providers'.
func resolveScenario(file string, edits ...edit) (*scenario.Scenario, error) {
	s, err := scenario.Open(file)
	if err != nil {
		return nil, err
	}
	var names []string
	edited := false
	for _, e := range edits {
		if e.apply == nil {
			continue
		}
		if err := e.apply(s); err != nil {
			return nil, named(e.name, err)
		}
		edited = true
		if e.name != "" {
			names = append(names, e.name)
		}
	}
	if edited {
		if err := s.Check(); err != nil {
			return nil, named(strings.Join(names, ", "), err)
		}
	}
	return s, experiment.Check(s)
}

func named(name string, err error) error {
	if name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// backendEdit forces the emulated WAN's delay backend ("" keeps the
// scenario's).
func backendEdit(backend string) edit {
	if backend == "" {
		return edit{}
	}
	return edit{"--netem-backend", func(s *scenario.Scenario) error {
		s.Testnet.NetemBackend = backend
		return nil
	}}
}

// binaryEdit runs the scenario's testnet on another node binary, or for a
// Cosmos SDK or EVM chain another build of its application ("" keeps its
// own): the same scenario, so that compare pairs the runs.
func binaryEdit(name, bin string) edit {
	if bin == "" {
		return edit{}
	}
	return edit{name, func(s *scenario.Scenario) error {
		if app, ok := s.Testnet.Application(); ok { // the chain application: a path or a release
			*app.Binary, *app.Build = bin, scenario.AppBuild{}
		} else {
			s.Testnet.Binary, s.Testnet.Build = bin, scenario.Build{}
		}
		return nil
	}}
}
