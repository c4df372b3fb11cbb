//go:build !linux

package load

import (
	"errors"
	"time"
)

// Elsewhere than Linux the pipelined path is not taken (pipelined): its
// sockets and poller are Linux's.
const pipelineOS = false

var errNoPipeline = errors.New("the pipelined path runs on Linux only")

type poller struct{}

func newPoller() (*poller, error)                       { return nil, errNoPipeline }
func (q *poller) add(*pipeConn) error                   { return errNoPipeline }
func (q *poller) remove(*pipeConn)                      {}
func (q *poller) ready(time.Duration, func(*pipeConn))  {}
func (q *poller) close()                                {}
func dialSock(string, time.Duration) (int, error)       { return -1, errNoPipeline }
func waitSock(int, int16, time.Duration) (int16, error) { return 0, errNoPipeline }
func sockWrite(int, []byte) (int, bool, error)          { return 0, false, errNoPipeline }
func sockRead(int, []byte) (int, bool, error)           { return 0, false, errNoPipeline }
func sockClose(int)                                     {}

const (
	sockIn  = 1
	sockOut = 4
)
