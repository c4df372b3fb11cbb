package load

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
)

// sender sends jobs until the channel closes or it takes a token from
// retire. Its buffers are reused, so a tx costs no allocation for
// building and encoding.
func (g *Generator) sender(ctx context.Context, client *fasthttp.Client, jobs <-chan job, retire <-chan struct{}) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	var buf sendBuffers
	for {
		select {
		case j, ok := <-jobs:
			if !ok {
				return
			}
			g.busy.Add(1)
			g.send(ctx, client, j, req, resp, &buf)
			g.busy.Add(-1)
		case <-retire:
			g.senders.Add(-1)
			return
		}
	}
}

// intend fills b.intended with the intended time of each of the job's txs
// (from the phase start); a picked-up job's are now.
func (g *Generator) intend(j *job, start time.Time, b *sendBuffers) {
	if j.pickup {
		j.due = time.Since(start)
		j.handed = j.due
	}
	b.intended = b.intended[:0]
	var prev time.Duration
	for i := 0; i < j.n; i++ {
		var at time.Duration
		switch {
		case j.direct || i == j.n-1:
			at = j.due
		default:
			at, _ = IntendedTime(g.cfg.Model, float64(j.seq+uint64(i)), prev)
		}
		prev = at
		b.intended = append(b.intended, at)
	}
}

// sendBuffers are a sender's buffers, kept from job to job.
type sendBuffers struct {
	body     []byte
	hashes   []Hash
	intended []time.Duration
	replies  []reply
	txs      [][]byte
}

// prepare makes the job's txs into b, with their intended times. A
// Stamper writes the intended times into the txs: they are known before
// the txs are made. Otherwise a picked-up job's time is taken after (a
// Cosmos wallet may wait in Append). Every tx of the job is made before
// any is begun in the ledger: a workload error (the run ends) leaves no
// tx half recorded.
func (g *Generator) prepare(ctx context.Context, j *job, b *sendBuffers) error {
	start := g.ledger.Start()
	if g.stamper != nil {
		g.intend(j, start, b)
	}
	err := g.ledger.Full()
	if err == nil {
		if b.txs, err = g.make(ctx, *j, b.txs, start, b.intended); err != nil {
			err = fmt.Errorf("workload: %w", err)
		}
	}
	if err != nil {
		return err
	}
	if g.stamper == nil {
		g.intend(j, start, b)
	}
	return nil
}

// send sends one job and records every tx's outcome.
func (g *Generator) send(ctx context.Context, client *fasthttp.Client, j job, req *fasthttp.Request, resp *fasthttp.Response, b *sendBuffers) {
	start := g.ledger.Start()
	if err := g.prepare(ctx, &j, b); err != nil {
		g.stop(err)
		if j.done != nil {
			j.done <- struct{}{}
		}
		return
	}
	b.hashes = b.hashes[:0]
	b.body = b.body[:0]
	if j.n > 1 {
		b.body = append(b.body, '[')
	}
	for i := 0; i < j.n; i++ {
		seq := j.seq + uint64(i)
		at := b.intended[i]
		tx := b.txs[i]
		h := Hash(sha256.Sum256(tx))
		b.hashes = append(b.hashes, h)
		g.ledger.Begin(h, at)
		if i > 0 {
			b.body = append(b.body, ',')
		}
		if g.carrier != nil {
			b.body = g.carrier.AppendRequest(b.body, seq, tx)
		} else {
			b.body = AppendRequest(b.body, g.method, seq, tx)
		}
	}
	if j.n > 1 {
		b.body = append(b.body, ']')
	}
	pick := j.seq / uint64(g.cfg.Batch)
	if r, ok := g.cfg.Workload.(Router); ok {
		pick = uint64(r.Route(j.seq))
	}
	target := g.cfg.Targets[pick%uint64(len(g.cfg.Targets))]
	req.SetRequestURI(target)
	req.SetBodyRaw(b.body)
	started := time.Now()
	g.onSchedule(j, b.intended, started.Sub(start))
	g.inRequest.Add(1)
	err := client.DoTimeout(req, resp, g.cfg.Timeout)
	g.inRequest.Add(-1)
	var errMsg string
	switch {
	case err != nil:
		errMsg = err.Error()
	case resp.StatusCode() != 200:
		errMsg = fmt.Sprintf("HTTP %d", resp.StatusCode())
	default:
		if b.replies, err = parseReplies(resp.Body(), b.replies); err != nil {
			errMsg = "unreadable answer: " + err.Error()
		}
	}
	observer, _ := g.cfg.Workload.(Observer)
	queuer, _ := g.cfg.Workload.(Queuer)
	for i, h := range b.hashes {
		if errMsg != "" {
			g.ledger.Sent(h, b.intended[i], started, SendError, errMsg)
			if observer != nil {
				observer.Sent(j.seq+uint64(i), SendError, errMsg)
			}
			continue
		}
		seq := j.seq + uint64(i)
		o, why := outcomeOf(b.replies, seq)
		if o == Rejected && queuer != nil && queuer.Queued(why) {
			o = Queued
		}
		g.ledger.Sent(h, b.intended[i], started, o, why)
		if observer != nil {
			observer.Sent(seq, o, why)
		}
	}
	if j.done != nil {
		j.done <- struct{}{}
	}
}

// onSchedule counts the job's txs as sent on time or late, and a late
// one by who made it late: the node (every sender was waiting for its
// answers when the job was handed out) or chainperf (its pacer, or
// senders busy with their own work).
func (g *Generator) onSchedule(j job, intended []time.Duration, started time.Duration) {
	var onTime int64
	for _, at := range intended {
		if started-at <= OnTime {
			onTime++
		}
	}
	g.onTime.Add(onTime)
	switch late := int64(len(intended)) - onTime; {
	case late == 0:
	case j.nodeWait:
		g.lateQueued.Add(late)
	default:
		g.lateHanding.Add(late)
	}
}
