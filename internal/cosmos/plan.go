package cosmos

// start is wallet i's balance at the start.
func (w *Workload) start(i int) uint64 {
	if w.cfg.Start != nil {
		return w.cfg.Start[i]
	}
	return w.cfg.Funded
}

// cost is what a tx takes from its sender's balance: what it pays and
// stakes, and its fee.
func (w *Workload) cost(e *effect) uint64 {
	c := w.cfg.Fee
	for _, m := range e.msgs {
		switch k := w.cfg.Mix[m.kind]; k.Msg {
		case MsgSendKind, MsgMultiSendKind:
			c += k.Amount * uint64(len(m.to))
		case MsgDelegateKind:
			c += k.Amount
		}
	}
	return c // a template's effect is the chain's to say: its events
}

// templated says whether a tx holds a message of a template: its effect on
// balances is read from the chain's events.
func (w *Workload) templated(e *effect) bool {
	for _, m := range e.msgs {
		if w.cfg.Mix[m.kind].Template != nil {
			return true
		}
	}
	return false
}

// bond is what a tx adds to its sender's stake with its own validator.
func (w *Workload) bond(e *effect) int64 {
	var d int64
	for _, m := range e.msgs {
		d += w.stakeDelta(int(m.kind))
	}
	return d
}

// stakeDelta is what a message of entry k adds to its sender's stake with
// its own validator.
func (w *Workload) stakeDelta(k int) int64 {
	switch m := w.cfg.Mix[k]; m.Msg {
	case MsgDelegateKind:
		return int64(m.Amount)
	case MsgUndelegateKind, MsgRedelegateKind:
		return -int64(m.Amount)
	}
	return 0
}

// delegateEntry is the mix's delegate entry (-1: none).
func (w *Workload) delegateEntry() int {
	for i, m := range w.cfg.Mix {
		if m.Msg == MsgDelegateKind {
			return i
		}
	}
	return -1
}

// validatorOf is the validator wallet from stakes with under entry k.
func (w *Workload) validatorOf(from, k int) int {
	if v := w.cfg.Mix[k].Validator; v >= 0 {
		return v
	}
	return from % len(w.cfg.Validators)
}

// draw picks the mix entry of message n (the n-th of the run) by weight.
func (w *Workload) draw(n uint64) int {
	if len(w.cfg.Mix) == 1 {
		return 0
	}
	x := float64(splitmix(n^w.cfg.MixSeed)>>11) / (1 << 53) * w.weights
	for i, m := range w.cfg.Mix {
		if x < m.Weight {
			return i
		}
		x -= m.Weight
	}
	return len(w.cfg.Mix) - 1
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// message makes message n of the run of entry k from wallet from.
func (w *Workload) message(k int, n uint64, from int) msgEffect {
	m := msgEffect{kind: uint8(k), n: n}
	e := w.cfg.Mix[k]
	switch {
	case e.Template != nil, e.Msg == MsgSendKind, e.Msg == MsgMultiSendKind:
		nw := len(w.wallets)
		m.to = make([]int32, 0, e.Outputs)
		for j := range e.Outputs {
			r := w.cfg.Receivers.Pick(n*uint64(e.Outputs) + uint64(j))
			if r == from {
				r = (r + 1) % nw
			}
			m.to = append(m.to, int32(r))
		}
	default:
		m.val = int32(w.validatorOf(from, k))
		m.dst = (m.val + 1) % int32(len(w.cfg.Validators))
	}
	return m
}

// plan draws tx seq's messages for sender from, whose state st the
// caller holds: an undelegate or redelegate the sender's stake (by its
// txs so far) cannot cover becomes a delegate.
func (w *Workload) plan(seq uint64, from int, st *wstate) *effect {
	e := &effect{from: int32(from), code: -1, msgs: make([]msgEffect, 0, w.cfg.MsgsPerTx)}
	bonded := st.bonded
	for j := range w.cfg.MsgsPerTx {
		n := seq*uint64(w.cfg.MsgsPerTx) + uint64(j)
		k := w.draw(n)
		if bonded+w.stakeDelta(k) < 0 {
			k = w.delegateEntry()
		}
		bonded += w.stakeDelta(k)
		e.msgs = append(e.msgs, w.message(k, n, from))
	}
	return e
}

// take books tx e of a wallet whose state st the caller holds: its
// sequence, and what it spends and stakes.
func (w *Workload) take(st *wstate, e *effect) txRef {
	ref := txRef{from: e.from, nonce: st.next, ok: true, eff: e}
	if !w.cfg.Unordered {
		st.next++
	}
	st.spent += w.cost(e)
	st.bonded += w.bond(e)
	return ref
}

// untake gives back what take booked for a tx that was not sent or was
// refused (not its sequence: the caller decides).
func (w *Workload) untake(st *wstate, e *effect) {
	st.spent -= w.cost(e)
	st.bonded -= w.bond(e)
}
